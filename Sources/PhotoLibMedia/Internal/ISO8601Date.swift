import Foundation
import PhotoLibImaging

/// Turns the ISO 8601 dates of video metadata into a `Date`, without locale-dependent
/// formatters: Apple's `com.apple.quicktime.creationdate` ("2021-07-04T18:30:00+0200") and
/// FFmpeg's `creation_time` ("2021-07-04T16:30:05.000000Z").
enum ISO8601Date {
    /// Parses "YYYY-MM-DDTHH:MM:SS" (a space may replace the T), an optional fraction of a
    /// second, and an optional zone "Z", "±HH", "±HHMM" or "±HH:MM" (none: UTC). Returns `nil`
    /// for anything else and for impossible dates.
    static func date(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return nil }
        var exif = bytes[0..<19]
        exif[4] = UInt8(ascii: ":")
        exif[7] = UInt8(ascii: ":")
        exif[10] = UInt8(ascii: " ")
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            var end = index + 1
            while end < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) { end += 1 }
            guard end > index + 1 else { return nil }
            fraction = Double("0" + String(decoding: bytes[index..<end], as: UTF8.self)) ?? 0
            index = end
        }
        let zone = String(decoding: bytes[index...], as: UTF8.self)
        let offset: String
        switch zone.utf8.count {
        case 0: offset = "+00:00"
        case 1 where zone == "Z": offset = "+00:00"
        case 3: offset = zone + ":00"  // ±HH
        case 5: offset = String(zone.prefix(3)) + ":" + String(zone.suffix(2))  // ±HHMM
        case 6: offset = zone  // ±HH:MM
        default: return nil
        }
        guard let date = ExifDate.date(dateTime: String(decoding: exif, as: UTF8.self), offset: offset) else {
            return nil
        }
        return date.addingTimeInterval(fraction)
    }
}
