import Foundation
import PhotoLibCore

/// Dates as stored: INTEGER microseconds since 1970-01-01 UTC, always whole milliseconds.
///
/// The wire carries dates in milliseconds (docs/PROTOCOL.md), so a stored date with finer
/// digits could never be matched exactly by a client (`creationDate == …`, a sort cursor).
/// Every date is therefore rounded to the millisecond before it is stored.
enum Microseconds {
    /// The earliest date accepted: 0001-01-01T00:00:00Z.
    static let minimum: Int64 = -62_135_596_800 * 1_000_000
    /// The latest date accepted: 9999-12-31T23:59:59Z.
    static let maximum: Int64 = 253_402_300_799 * 1_000_000

    /// Now, in microseconds.
    static var now: Int64 { from(Date()) }

    /// `date` in microseconds, rounded to the nearest millisecond; the caller checks the range.
    static func from(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1_000).rounded() * 1_000
        guard value.isFinite, value >= Double(minimum), value <= Double(maximum) else {
            return value < 0 ? minimum - 1 : maximum + 1
        }
        return Int64(value)
    }

    /// `date` in microseconds, or `invalidArgument` naming `what` when outside years 1…9999.
    static func validated(_ date: Date, _ what: String) throws(PhotoLibError) -> Int64 {
        let value = from(date)
        guard value >= minimum, value <= maximum else {
            throw PhotoLibError(.invalidArgument, "\(what) \(date.timeIntervalSince1970) s since 1970 is outside the years 1…9999")
        }
        return value
    }

    /// The date for a stored value.
    static func date(_ value: Int64) -> Date {
        Date(timeIntervalSince1970: Double(value) / 1_000_000)
    }
}
