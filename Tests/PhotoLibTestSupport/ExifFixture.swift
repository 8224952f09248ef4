/// Builds JPEG variants carrying hand-made EXIF, for tests.
///
/// The EXIF is written from scratch (no library): a TIFF header (little- or big-endian),
/// IFD0 with Orientation, an Exif sub-IFD with DateTimeOriginal and OffsetTimeOriginal,
/// and a GPS IFD with latitude/longitude (refs + degree/minute/second rationals) and
/// altitude — only the fields asked for.
public enum ExifFixture {
    /// Returns `jpeg` with a new APP1 EXIF segment right after SOI, replacing any existing
    /// APP1 EXIF segment. Fields left `nil` are not written (an empty IFD0 if all are nil).
    ///
    /// - Parameters:
    ///   - orientation: EXIF orientation (written as given, so invalid values can be tested).
    ///   - dateTimeOriginal: "YYYY:MM:DD HH:MM:SS".
    ///   - offset: OffsetTimeOriginal, "+HH:MM" or "-HH:MM".
    ///   - gps: signed decimal degrees (negative = S / W).
    ///   - altitude: metres, negative below sea level (needs `gps`).
    ///   - customRendered: EXIF CustomRendered (iPhones: 2/3 HDR, 6 panorama).
    ///   - bigEndian: write a "MM" (Motorola) TIFF instead of "II" (Intel).
    public static func jpegWithExif(
        _ jpeg: [UInt8],
        orientation: Int? = nil,
        dateTimeOriginal: String? = nil,
        offset: String? = nil,
        gps: (lat: Double, lon: Double)? = nil,
        altitude: Double? = nil,
        customRendered: Int? = nil,
        bigEndian: Bool = false
    ) -> [UInt8] {
        let tiff = tiffBytes(
            orientation: orientation, dateTimeOriginal: dateTimeOriginal, offset: offset, gps: gps,
            altitude: altitude, customRendered: customRendered, bigEndian: bigEndian)
        return jpegWithAPP1(jpeg, payload: Array("Exif".utf8) + [0, 0] + tiff)
    }

    /// Returns `jpeg` with an APP1 segment holding `payload` (any bytes, e.g. garbage
    /// after "Exif\0\0") right after SOI, replacing any existing APP1 EXIF segment.
    /// `payload` must be at most 65533 bytes.
    public static func jpegWithAPP1(_ jpeg: [UInt8], payload: [UInt8]) -> [UInt8] {
        precondition(payload.count <= 65533, "an APP1 payload holds at most 65533 bytes")
        precondition(jpeg.count >= 2 && jpeg[0] == 0xFF && jpeg[1] == 0xD8, "not a JPEG (no SOI)")
        let length = payload.count + 2
        var result: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)]
        result += payload
        result += withoutExif(jpeg)[2...]
        return result
    }

    /// Returns `jpeg` without its APP1 segments that start with "Exif\0\0" (markers are
    /// walked from SOI to the first SOS; everything after is copied unchanged).
    public static func withoutExif(_ jpeg: [UInt8]) -> [UInt8] {
        var result: [UInt8] = Array(jpeg.prefix(2))
        var position = 2
        while position + 4 <= jpeg.count, jpeg[position] == 0xFF {
            let marker = jpeg[position + 1]
            if marker == 0xDA || marker == 0xD9 { break }
            let length = Int(jpeg[position + 2]) << 8 | Int(jpeg[position + 3])
            let end = position + 2 + length
            guard length >= 2, end <= jpeg.count else { break }
            let isExif =
                marker == 0xE1 && length >= 8
                && Array(jpeg[(position + 4)..<(position + 10)]) == Array("Exif".utf8) + [0, 0]
            if !isExif { result += jpeg[position..<end] }
            position = end
        }
        result += jpeg[position...]
        return result
    }

    // MARK: TIFF writing

    private enum FieldType: UInt16 {
        case byte = 1, ascii = 2, short = 3, long = 4, rational = 5
    }

    private struct Entry {
        var tag: UInt16
        var type: FieldType
        var count: UInt32
        var value: [UInt8]
    }

    private struct Writer {
        let bigEndian: Bool

        func u16(_ value: UInt16) -> [UInt8] {
            bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
        }

        func u32(_ value: UInt32) -> [UInt8] {
            let bytes = (0..<4).map { UInt8((value >> (8 * UInt32($0))) & 0xFF) }
            return bigEndian ? bytes.reversed() : bytes
        }

        func ascii(_ text: String) -> [UInt8] {
            Array(text.utf8) + [0]
        }

        func rational(_ numerator: UInt32, _ denominator: UInt32) -> [UInt8] {
            u32(numerator) + u32(denominator)
        }

        /// Degrees, minutes and seconds (seconds to 1/10000) of |degrees|.
        func coordinate(_ degrees: Double) -> [UInt8] {
            let value = abs(degrees)
            let whole = value.rounded(.down)
            let minutes = ((value - whole) * 60).rounded(.down)
            let seconds = ((value - whole) * 60 - minutes) * 60
            return rational(UInt32(whole), 1) + rational(UInt32(minutes), 1)
                + rational(UInt32((seconds * 10000).rounded()), 10000)
        }

        /// One IFD at `offset` (from the TIFF start): entries, next-IFD 0, then the values
        /// that do not fit in 4 bytes.
        func ifd(_ entries: [Entry], at offset: Int) -> [UInt8] {
            let sorted = entries.sorted { $0.tag < $1.tag }
            var table = u16(UInt16(sorted.count))
            var data: [UInt8] = []
            let dataStart = offset + 2 + 12 * sorted.count + 4
            for entry in sorted {
                table += u16(entry.tag) + u16(entry.type.rawValue) + u32(entry.count)
                if entry.value.count <= 4 {
                    table += entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
                } else {
                    table += u32(UInt32(dataStart + data.count))
                    data += entry.value
                    if data.count % 2 == 1 { data.append(0) }
                }
            }
            return table + u32(0) + data
        }

        static func size(of entries: [Entry]) -> Int {
            2 + 12 * entries.count + 4
                + entries.reduce(0) { $0 + ($1.value.count > 4 ? ($1.value.count + 1) & ~1 : 0) }
        }
    }

    private static func tiffBytes(
        orientation: Int?, dateTimeOriginal: String?, offset: String?,
        gps: (lat: Double, lon: Double)?, altitude: Double?, customRendered: Int? = nil, bigEndian: Bool
    ) -> [UInt8] {
        let w = Writer(bigEndian: bigEndian)
        var exifEntries: [Entry] = []
        if let customRendered {
            exifEntries.append(Entry(tag: 0xA401, type: .short, count: 1, value: w.u16(UInt16(truncatingIfNeeded: customRendered))))
        }
        if let dateTimeOriginal {
            let text = w.ascii(dateTimeOriginal)
            exifEntries.append(Entry(tag: 0x9003, type: .ascii, count: UInt32(text.count), value: text))
        }
        if let offset {
            let text = w.ascii(offset)
            exifEntries.append(Entry(tag: 0x9011, type: .ascii, count: UInt32(text.count), value: text))
        }
        var gpsEntries: [Entry] = []
        if let gps {
            gpsEntries += [
                Entry(tag: 0x0000, type: .byte, count: 4, value: [2, 3, 0, 0]),
                Entry(tag: 0x0001, type: .ascii, count: 2, value: w.ascii(gps.lat < 0 ? "S" : "N")),
                Entry(tag: 0x0002, type: .rational, count: 3, value: w.coordinate(gps.lat)),
                Entry(tag: 0x0003, type: .ascii, count: 2, value: w.ascii(gps.lon < 0 ? "W" : "E")),
                Entry(tag: 0x0004, type: .rational, count: 3, value: w.coordinate(gps.lon)),
            ]
            if let altitude {
                gpsEntries += [
                    Entry(tag: 0x0005, type: .byte, count: 1, value: [altitude < 0 ? 1 : 0]),
                    Entry(
                        tag: 0x0006, type: .rational, count: 1,
                        value: w.rational(UInt32((abs(altitude) * 100).rounded()), 100)),
                ]
            }
        }
        // IFD0 first (with pointer placeholders), then the Exif IFD, then the GPS IFD.
        var ifd0Entries: [Entry] = []
        if let orientation {
            ifd0Entries.append(
                Entry(tag: 0x0112, type: .short, count: 1, value: w.u16(UInt16(truncatingIfNeeded: orientation))))
        }
        if !exifEntries.isEmpty { ifd0Entries.append(Entry(tag: 0x8769, type: .long, count: 1, value: w.u32(0))) }
        if !gpsEntries.isEmpty { ifd0Entries.append(Entry(tag: 0x8825, type: .long, count: 1, value: w.u32(0))) }
        let ifd0Offset = 8
        let exifOffset = ifd0Offset + Writer.size(of: ifd0Entries)
        let gpsOffset = exifOffset + (exifEntries.isEmpty ? 0 : Writer.size(of: exifEntries))
        for index in ifd0Entries.indices {
            if ifd0Entries[index].tag == 0x8769 { ifd0Entries[index].value = w.u32(UInt32(exifOffset)) }
            if ifd0Entries[index].tag == 0x8825 { ifd0Entries[index].value = w.u32(UInt32(gpsOffset)) }
        }
        var tiff: [UInt8] = bigEndian ? [0x4D, 0x4D, 0x00, 0x2A] : [0x49, 0x49, 0x2A, 0x00]
        tiff += w.u32(UInt32(ifd0Offset))
        tiff += w.ifd(ifd0Entries, at: ifd0Offset)
        if !exifEntries.isEmpty { tiff += w.ifd(exifEntries, at: exifOffset) }
        if !gpsEntries.isEmpty { tiff += w.ifd(gpsEntries, at: gpsOffset) }
        return tiff
    }
}
