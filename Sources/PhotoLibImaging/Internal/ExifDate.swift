import Foundation

/// Turns EXIF date text into a `Date` without locale-dependent formatters.
package enum ExifDate {
    /// Parses "YYYY:MM:DD HH:MM:SS" and an optional "+HH:MM"/"-HH:MM" offset.
    /// Without an offset the wall-clock time is taken as UTC. Returns `nil` for
    /// impossible dates (month 13, February 30, the "0000:00:00 00:00:00" placeholder).
    package static func date(dateTime: String, offset: String?) -> Date? {
        let bytes = Array(dateTime.utf8)
        guard bytes.count == 19 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
            year >= 1
        else { return nil }
        var offsetSeconds = 0
        if let offset {
            guard let parsed = offsetSecondsFrom(offset) else { return nil }
            offsetSeconds = parsed
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let local = days * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(local - offsetSeconds))
    }

    /// Seconds east of UTC for "+HH:MM" / "-HH:MM".
    package static func offsetSecondsFrom(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 6, bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-"),
            bytes[3] == UInt8(ascii: ":"),
            let hours = Int(String(decoding: bytes[1..<3], as: UTF8.self)),
            let minutes = Int(String(decoding: bytes[4..<6], as: UTF8.self)),
            (0...14).contains(hours), (0...59).contains(minutes)
        else { return nil }
        let seconds = hours * 3600 + minutes * 60
        return bytes[0] == UInt8(ascii: "-") ? -seconds : seconds
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's
    /// days-from-civil algorithm, written out).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
