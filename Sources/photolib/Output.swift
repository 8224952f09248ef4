import Foundation
import PhotoLibClient

/// Writes results: JSON documents on stdout, tables for people.
enum Output {
    /// Prints `value` as one pretty JSON document.
    static func json(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Output.date(date))
        }
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    /// Prints rows as aligned columns.
    static func table(_ header: [String], _ rows: [[String]]) {
        let widths = header.indices.map { column in
            ([header] + rows).map { displayWidth($0[column]) }.max() ?? 0
        }
        // Padded by terminal columns, never cut: `padding(toLength:)` counts UTF-16 units and
        // cut titles with emoji short.
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell + String(repeating: " ", count: max(0, widths[index] - displayWidth(cell)))
            }.joined(separator: "  ")
        }
        print(line(header))
        for row in rows { print(line(row)) }
    }

    /// ISO 8601 in UTC to the second, as in the JSON, in the proleptic Gregorian calendar of
    /// date literals (`PredicateDate.secondsText`): what is printed can be pasted into `--where`.
    static func date(_ date: Date) -> String {
        PredicateDate.secondsText(date)
    }

    /// A video's length as `m:ss.s` (`h:mm:ss` from an hour).
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "-" }
        let whole = Int(seconds)
        if whole >= 3600 { return String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60) }
        return String(format: "%d:%04.1f", whole / 60, seconds - Double(whole / 60 * 60))
    }

    /// What kind of asset it is at a glance, for listings: a video's duration, `live`,
    /// `screenshot`… (its subtypes), or `-`.
    static func kind(_ asset: Asset) -> String {
        var parts: [String] = []
        if asset.mediaType == .video { parts.append(duration(asset.duration)) }
        parts += asset.mediaSubtypes.names
        return parts.isEmpty ? "-" : parts.joined(separator: " ")
    }

    /// The terminal columns `text` takes: two for a wide character (emoji, CJK, fullwidth
    /// forms), none for a combining mark or zero-width joiner, one for the rest.
    static func displayWidth(_ text: String) -> Int {
        text.reduce(0) { width, character in
            let scalars = character.unicodeScalars
            guard let first = scalars.first else { return width }
            if scalars.contains(where: { $0.properties.isEmojiPresentation }) { return width + 2 }
            switch first.value {
            case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
                 0x1F300...0x1FAFF, 0x20000...0x3FFFD:
                return width + 2
            default:
                return width + 1
            }
        }
    }

    /// Whether stderr is a terminal (progress bars go there).
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}

/// An asset in the CLI's JSON: PhotoKit's property names.
struct AssetJSON: Encodable {
    struct LocationJSON: Encodable {
        var latitude: Double
        var longitude: Double
        var altitude: Double?
    }

    var localIdentifier: String
    var mediaType: String
    var mediaSubtypes: [String]
    var pixelWidth: Int
    var pixelHeight: Int
    var creationDate: Date
    var modificationDate: Date
    var isFavorite: Bool
    var isHidden: Bool
    var duration: Double
    var location: LocationJSON?

    init(_ asset: Asset) {
        localIdentifier = asset.localIdentifier
        mediaType = asset.mediaType.name
        mediaSubtypes = asset.mediaSubtypes.names
        pixelWidth = asset.pixelWidth
        pixelHeight = asset.pixelHeight
        creationDate = asset.creationDate
        modificationDate = asset.modificationDate
        isFavorite = asset.isFavorite
        isHidden = asset.isHidden
        duration = asset.duration
        location = asset.location.map { LocationJSON(latitude: $0.latitude, longitude: $0.longitude, altitude: $0.altitude) }
    }

    func encode(to encoder: any Encoder) throws {
        enum Keys: String, CodingKey {
            case localIdentifier, mediaType, mediaSubtypes, pixelWidth, pixelHeight, creationDate, modificationDate, isFavorite, isHidden, duration, location
        }
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(localIdentifier, forKey: .localIdentifier)
        try c.encode(mediaType, forKey: .mediaType)
        try c.encode(mediaSubtypes, forKey: .mediaSubtypes)
        try c.encode(pixelWidth, forKey: .pixelWidth)
        try c.encode(pixelHeight, forKey: .pixelHeight)
        try c.encode(creationDate, forKey: .creationDate)
        try c.encode(modificationDate, forKey: .modificationDate)
        try c.encode(isFavorite, forKey: .isFavorite)
        try c.encode(isHidden, forKey: .isHidden)
        try c.encode(duration, forKey: .duration)
        try c.encode(location, forKey: .location)  // null when unknown
    }
}
