import Foundation

/// A fetch predicate: the syntax tree of PhotoLib's closed predicate language
/// (docs/PREDICATES.md). The wire carries predicate text; ``init(parsing:)`` turns it into
/// this tree, ``description`` prints it back (`AssetPredicate(parsing: p.description) == p` for
/// every tree the parser can produce), and ``matches(_:)`` evaluates it in memory.
///
/// `AND` and `OR` are binary and left-associative, as parsed: `a AND b AND c` is
/// `.and(.and(a, b), c)`. Parentheses leave no node of their own.
public indirect enum AssetPredicate: Sendable, Hashable {
    /// `key op value`.
    case comparison(PredicateKey, ComparisonOperator, PredicateValue)
    /// `key IN {v1, v2, …}`: true when `key == v` for some `v` of the list (false when empty).
    case membership(PredicateKey, [PredicateValue])
    /// `NOT p`.
    case not(AssetPredicate)
    /// `p AND q`.
    case and(AssetPredicate, AssetPredicate)
    /// `p OR q`.
    case or(AssetPredicate, AssetPredicate)

    /// The longest predicate text accepted, in UTF-8 bytes.
    public static let maximumLength = 4096
    /// The deepest nesting accepted: every `(` and every `NOT` opens one level.
    public static let maximumDepth = 64
}

/// A comparison operator. `==` and `!=` also have the NSPredicate spellings `=` and `<>`.
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    /// `==`.
    case equal = "=="
    /// `!=`.
    case notEqual = "!="
    /// `<`.
    case less = "<"
    /// `<=`.
    case lessOrEqual = "<="
    /// `>`.
    case greater = ">"
    /// `>=`.
    case greaterOrEqual = ">="

    /// Whether this is one of `<`, `<=`, `>`, `>=`.
    public var isOrdering: Bool { self != .equal && self != .notEqual }
}

/// A literal on the right of a comparison.
///
/// Equality is the predicate's own: strings are equal when their UTF-8 bytes are (Swift's
/// `String ==` would equate `"é"` and `"e\u{301}"`, which the store tells apart).
public enum PredicateValue: Sendable, Hashable {
    /// An instant, in microseconds since 1970-01-01T00:00:00Z (the store's precision).
    case date(microsecondsSince1970: Int64)
    /// An integer (`pixelWidth`, `pixelHeight`).
    case integer(Int64)
    /// A double (`duration`); the parser only makes finite ones.
    case double(Double)
    /// `true` or `false`.
    case boolean(Bool)
    /// A media type by name.
    case mediaType(MediaType)
    /// Media subtype bits; the parser makes exactly one named bit (`screenshot`…).
    case mediaSubtypes(MediaSubtypes)
    /// A string.
    case string(String)
    /// `nil`.
    case null

    /// A date value, rounded to the nearest microsecond (``PredicateDate/microseconds(_:)``).
    public static func date(_ date: Date) -> PredicateValue {
        .date(microsecondsSince1970: PredicateDate.microseconds(date))
    }
}

/// Dates as predicates see them: exact microseconds, ISO 8601 text in UTC.
public enum PredicateDate {
    /// The earliest instant a date literal may denote: 0001-01-01T00:00:00Z.
    public static let minimum: Int64 = -62_135_596_800 * 1_000_000
    /// The latest instant a date literal may denote: 9999-12-31T23:59:59.999999Z.
    public static let maximum: Int64 = 253_402_300_800 * 1_000_000 - 1

    /// `date` in microseconds since 1970, rounded to the nearest microsecond: the unit the
    /// store counts in. (The store keeps whole milliseconds, the wire's precision, so a date
    /// read from it converts exactly; see docs/PREDICATES.md.)
    public static func microseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1_000_000).rounded()
        guard value.isFinite else { return value < 0 ? Int64.min : Int64.max }
        if value <= -9.2e18 { return Int64.min }
        if value >= 9.2e18 { return Int64.max }
        return Int64(value)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day number (H. Hinnant's `civil_from_days`).
    static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The number of days in a month of a year.
    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// `date` as ISO 8601 text in UTC to the second, `YYYY-MM-DDTHH:MM:SSZ`, in the proleptic
    /// Gregorian calendar that date literals use (Foundation's formatters switch to the
    /// Julian calendar before 1582-10-15, so 0001-01-01 printed as 0001-01-03). The second is
    /// rounded down; a date outside the years 1…9999 is clamped to them.
    public static func secondsText(_ date: Date) -> String {
        let value = min(max(microseconds(date), minimum), maximum)
        var seconds = value / 1_000_000
        if value % 1_000_000 < 0 { seconds -= 1 }
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let (year, month, day) = civil(days: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
            + "T" + pad(rest / 3600, 2) + ":" + pad(rest / 60 % 60, 2) + ":" + pad(rest % 60, 2) + "Z"
    }

    /// ISO 8601 text in UTC: `YYYY-MM-DD` at midnight, else `YYYY-MM-DDTHH:MM:SS[.ffffff]Z`
    /// (fraction without trailing zeros). Parses back to the same microsecond.
    public static func text(microsecondsSince1970 value: Int64) -> String {
        let perDay: Int64 = 86_400_000_000
        var days = value / perDay
        var rest = value % perDay
        if rest < 0 {
            rest += perDay
            days -= 1
        }
        let (year, month, day) = civil(days: days)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        if rest == 0 { return text }
        let seconds = rest / 1_000_000
        let micros = rest % 1_000_000
        text += "T" + pad(seconds / 3600, 2) + ":" + pad(seconds / 60 % 60, 2) + ":" + pad(seconds % 60, 2)
        if micros != 0 {
            var fraction = pad(micros, 6)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return text + "Z"
    }

    /// `value` in decimal, zero-padded to `width` digits (negative years are not printable
    /// as ISO dates; they keep their sign).
    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value.magnitude)
        let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
        return value < 0 ? "-" + padded : padded
    }
}

extension PredicateValue {
    /// Equal values: UTF-8 byte equality for strings, the synthesized rule for the rest.
    public static func == (lhs: PredicateValue, rhs: PredicateValue) -> Bool {
        switch (lhs, rhs) {
        case (.date(let a), .date(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.boolean(let a), .boolean(let b)): return a == b
        case (.mediaType(let a), .mediaType(let b)): return a == b
        case (.mediaSubtypes(let a), .mediaSubtypes(let b)): return a == b
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.null, .null): return true
        default: return false
        }
    }

    /// Hashes consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .date(let value):
            hasher.combine(0)
            hasher.combine(value)
        case .integer(let value):
            hasher.combine(1)
            hasher.combine(value)
        case .double(let value):
            hasher.combine(2)
            hasher.combine(value)
        case .boolean(let value):
            hasher.combine(3)
            hasher.combine(value)
        case .mediaType(let value):
            hasher.combine(4)
            hasher.combine(value)
        case .mediaSubtypes(let value):
            hasher.combine(5)
            hasher.combine(value)
        case .string(let value):
            hasher.combine(6)
            hasher.combine(value.utf8.count)
            for byte in value.utf8 { hasher.combine(byte) }
        case .null:
            hasher.combine(7)
        }
    }
}

extension AssetPredicate: CustomStringConvertible {
    /// The predicate as text in the grammar, with the fewest parentheses that keep its tree.
    public var description: String {
        switch self {
        case .comparison(let key, let op, let value):
            return "\(key.rawValue) \(op.rawValue) \(value)"
        case .membership(let key, let values):
            return "\(key.rawValue) IN {" + values.map(\.description).joined(separator: ", ") + "}"
        case .not(let operand):
            return "NOT " + operand.parenthesized(if: { $0.isBinary })
        case .and(let left, let right):
            return left.parenthesized(if: { $0.isOr }) + " AND " + right.parenthesized(if: { $0.isBinary })
        case .or(let left, let right):
            return left.description + " OR " + right.parenthesized(if: { $0.isOr })
        }
    }

    private var isOr: Bool {
        if case .or = self { return true }
        return false
    }

    private var isBinary: Bool {
        switch self {
        case .and, .or: return true
        default: return false
        }
    }

    private func parenthesized(if condition: (AssetPredicate) -> Bool) -> String {
        condition(self) ? "(\(description))" : description
    }
}

extension PredicateValue: CustomStringConvertible {
    /// The value as a literal of the grammar. A ``mediaSubtypes(_:)`` value that is not
    /// exactly one named subtype prints as its raw bits, which the parser rejects.
    public var description: String {
        switch self {
        case .date(let microseconds): return PredicateDate.text(microsecondsSince1970: microseconds)
        case .integer(let value): return String(value)
        case .double(let value): return String(value)
        case .boolean(let value): return value ? "true" : "false"
        case .mediaType(let type): return type.name
        case .mediaSubtypes(let subtypes):
            return MediaSubtypes.named.first { $0.value == subtypes }?.name ?? String(subtypes.rawValue)
        case .string(let text): return Self.quoted(text)
        case .null: return "nil"
        }
    }

    /// `text` in double quotes with `"` and `\` escaped.
    static func quoted(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { quoted.unicodeScalars.append("\\") }
            quoted.unicodeScalars.append(scalar)
        }
        return quoted + "\""
    }
}
