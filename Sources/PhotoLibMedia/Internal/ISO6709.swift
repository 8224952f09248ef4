import PhotoLibCore
import PhotoLibImaging

/// Parses ISO 6709 point strings, as QuickTime stores a video's place
/// (`com.apple.quicktime.location.ISO6709`, or the `©xyz` atom FFmpeg reports as `location`):
/// `+48.8584+002.2945+035.000/`.
///
/// Latitude is `±DD.D`, `±DDMM.M` or `±DDMMSS.S`, longitude `±DDD.D`, `±DDDMM.M` or
/// `±DDDMMSS.S` (the count of integer digits says which), then an optional altitude in metres
/// `±A.A`, an optional `CRS…` part, and a closing `/` (optional here).
enum ISO6709 {
    /// The location in `text`, or `nil` when it is not a valid ISO 6709 point in range.
    static func location(_ text: String) -> Location? {
        var parts: [(sign: Double, digits: String)] = []
        var current: (sign: Double, digits: String)? = nil
        for character in text.trimmingLeadingAndTrailingSpaces() {
            switch character {
            case "+", "-":
                if let current { parts.append(current) }
                current = (character == "-" ? -1 : 1, "")
            case "0"..."9", ".":
                guard current != nil else { return nil }
                current!.digits.append(character)
            case "/":
                break
            case "C":
                // A coordinate reference system ("CRSWGS_84") ends the numbers.
                if let current { parts.append(current) }
                current = nil
                return point(parts)
            default:
                return nil
            }
        }
        if let current { parts.append(current) }
        return point(parts)
    }

    private static func point(_ parts: [(sign: Double, digits: String)]) -> Location? {
        guard parts.count == 2 || parts.count == 3,
            let latitude = angle(parts[0].digits, degreeDigits: 2),
            let longitude = angle(parts[1].digits, degreeDigits: 3)
        else { return nil }
        var altitude: Double? = nil
        if parts.count == 3 {
            guard let value = Double(parts[2].digits), value.isFinite else { return nil }
            altitude = parts[2].sign * value
        }
        return try? Location(latitude: parts[0].sign * latitude, longitude: parts[1].sign * longitude, altitude: altitude)
            .validated()
    }

    /// Degrees from `D…`, `D…MM` or `D…MMSS` integer digits (with an optional fraction).
    private static func angle(_ digits: String, degreeDigits: Int) -> Double? {
        let pieces = digits.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count <= 2, let whole = pieces.first, whole.allSatisfy(\.isNumber),
            pieces.count == 1 || (!pieces[1].isEmpty && pieces[1].allSatisfy(\.isNumber))
        else { return nil }
        let fraction = pieces.count == 2 ? Double("0." + pieces[1]) ?? 0 : 0
        let characters = Array(whole)
        func number(_ range: Range<Int>) -> Double? { Double(String(characters[range])) }
        switch characters.count {
        case degreeDigits:
            return number(0..<degreeDigits).map { $0 + fraction }
        case degreeDigits + 2:
            guard let degrees = number(0..<degreeDigits), let minutes = number(degreeDigits..<(degreeDigits + 2)),
                minutes + fraction < 60
            else { return nil }
            return degrees + (minutes + fraction) / 60
        case degreeDigits + 4:
            guard let degrees = number(0..<degreeDigits), let minutes = number(degreeDigits..<(degreeDigits + 2)),
                let seconds = number((degreeDigits + 2)..<(degreeDigits + 4)), minutes < 60, seconds + fraction < 60
            else { return nil }
            return degrees + minutes / 60 + (seconds + fraction) / 3600
        default:
            return nil
        }
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and NULs (no Foundation needed).
    fileprivate func trimmingLeadingAndTrailingSpaces() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\0" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
