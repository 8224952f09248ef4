/// Splits predicate text into tokens. Whitespace (space, tab, CR, LF) separates tokens;
/// keywords are case-insensitive, identifiers are kept exactly as written.
struct PredicateLexer {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    /// A lexer over `text`.
    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    /// Every token of the text, ending with ``PredicateToken/Kind/end``.
    static func tokens(_ text: String) throws(PhotoLibError) -> [PredicateToken] {
        var lexer = PredicateLexer(text)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private func text(from start: Int) -> String {
        String(String.UnicodeScalarView(scalars[start..<index]))
    }

    private static func isDigit(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        return scalar >= "0" && scalar <= "9"
    }

    private static func isIdentifierStart(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        return (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || scalar == "_"
    }

    private static func isIdentifierPart(_ scalar: Unicode.Scalar?) -> Bool {
        isIdentifierStart(scalar) || isDigit(scalar)
    }

    /// The next token.
    mutating func next() throws(PhotoLibError) -> PredicateToken {
        while let scalar = peek(), scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" {
            index += 1
        }
        let start = index
        let column = start + 1
        guard let scalar = peek() else { return PredicateToken(kind: .end, column: column, text: "") }

        func token(_ kind: PredicateToken.Kind, length: Int) -> PredicateToken {
            index += length
            return PredicateToken(kind: kind, column: column, text: text(from: start))
        }

        switch scalar {
        case "(": return token(.leftParenthesis, length: 1)
        case ")": return token(.rightParenthesis, length: 1)
        case "{": return token(.leftBrace, length: 1)
        case "}": return token(.rightBrace, length: 1)
        case ",": return token(.comma, length: 1)
        case "=":
            return token(.comparison(.equal), length: peek(1) == "=" ? 2 : 1)
        case "!":
            return peek(1) == "=" ? token(.comparison(.notEqual), length: 2) : token(.not, length: 1)
        case "<":
            if peek(1) == "=" { return token(.comparison(.lessOrEqual), length: 2) }
            if peek(1) == ">" { return token(.comparison(.notEqual), length: 2) }
            return token(.comparison(.less), length: 1)
        case ">":
            return peek(1) == "=" ? token(.comparison(.greaterOrEqual), length: 2) : token(.comparison(.greater), length: 1)
        case "&":
            guard peek(1) == "&" else { throw PredicateError.at(column, "expected '&&', found a single '&'") }
            return token(.and, length: 2)
        case "|":
            guard peek(1) == "|" else { throw PredicateError.at(column, "expected '||', found a single '|'") }
            return token(.or, length: 2)
        case "\"":
            return try string(column: column)
        case _ where Self.isDigit(scalar) || (scalar == "-" && Self.isDigit(peek(1))):
            if scalar != "-", (1...3).allSatisfy({ Self.isDigit(peek($0)) }), peek(4) == "-" {
                return try date(column: column)
            }
            return try number(column: column)
        case _ where Self.isIdentifierStart(scalar):
            while Self.isIdentifierPart(peek()) { index += 1 }
            let word = text(from: start)
            let kind: PredicateToken.Kind
            switch word.lowercased() {
            case "and": kind = .and
            case "or": kind = .or
            case "not": kind = .not
            case "in": kind = .in
            case "true", "yes": kind = .boolean(true)
            case "false", "no": kind = .boolean(false)
            case "nil", "null": kind = .null
            default: kind = .identifier(word)
            }
            return PredicateToken(kind: kind, column: column, text: word)
        case "\0":
            throw PredicateError.at(column, "NUL characters are not allowed in a predicate")
        default:
            throw PredicateError.at(
                column, "unexpected character '\(scalar.escaped(asASCII: false))'; expected a key, a literal, an operator, a parenthesis, a brace or a comma")
        }
    }

    /// `"…"` with `\"` and `\\` escapes.
    private mutating func string(column: Int) throws(PhotoLibError) -> PredicateToken {
        let start = index
        index += 1
        var value = String.UnicodeScalarView()
        while true {
            guard let scalar = peek() else {
                throw PredicateError.at(column, "unterminated string: expected a closing '\"'")
            }
            index += 1
            switch scalar {
            case "\"":
                return PredicateToken(kind: .string(String(value)), column: column, text: text(from: start))
            case "\\":
                guard let escaped = peek(), escaped == "\"" || escaped == "\\" else {
                    let what = peek().map { "'\\\($0.escaped(asASCII: false))'" } ?? "'\\' at the end of the input"
                    throw PredicateError.at(index, "invalid escape \(what) in a string: only \\\" and \\\\ are allowed")
                }
                index += 1
                value.append(escaped)
            case "\0":
                throw PredicateError.at(index, "NUL characters are not allowed in a predicate")
            default:
                value.append(scalar)
            }
        }
    }

    /// `-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?`, not followed by a letter or digit.
    private mutating func number(column: Int) throws(PhotoLibError) -> PredicateToken {
        let start = index
        if peek() == "-" { index += 1 }
        while Self.isDigit(peek()) { index += 1 }
        if peek() == ".", Self.isDigit(peek(1)) {
            index += 1
            while Self.isDigit(peek()) { index += 1 }
        }
        if peek() == "e" || peek() == "E" {
            let signed = peek(1) == "+" || peek(1) == "-"
            if Self.isDigit(peek(signed ? 2 : 1)) {
                index += signed ? 2 : 1
                while Self.isDigit(peek()) { index += 1 }
            }
        }
        if Self.isIdentifierPart(peek()) || peek() == "." {
            while Self.isIdentifierPart(peek()) || peek() == "." { index += 1 }
            throw PredicateError.at(column, "malformed number '\(text(from: start))': expected digits, an optional .fraction and an optional exponent")
        }
        return PredicateToken(kind: .number(text(from: start)), column: column, text: text(from: start))
    }

    /// An ISO 8601 date: `YYYY-MM-DD[THH:MM[:SS[.f{1,6}]][Z|±HH:MM]]`; no zone means UTC.
    private mutating func date(column: Int) throws(PhotoLibError) -> PredicateToken {
        let start = index
        while let scalar = peek(), Self.isDigit(scalar) || ":-+.TtZz".unicodeScalars.contains(scalar) { index += 1 }
        let text = text(from: start)
        var reader = DateReader(scalars: Array(scalars[start..<index]), column: column, text: text)
        return PredicateToken(kind: .date(try reader.read()), column: column, text: text)
    }
}

extension PredicateDate {
    /// Reads an ISO 8601 date as the predicate grammar writes it (`YYYY-MM-DD`, optionally
    /// `THH:MM[:SS[.ffffff]]` and `Z` or `±HH:MM`; a plain date is midnight UTC, a time
    /// without zone is UTC), calendar and ranges checked, into microseconds since 1970.
    ///
    /// Throws `invalidArgument` naming what is wrong, e.g. "day 29 does not exist in 2023-02".
    public static func parse(_ text: String) throws(PhotoLibError) -> Int64 {
        var reader = DateReader(scalars: Array(text.unicodeScalars), column: nil, text: text)
        return try reader.read()
    }
}

/// Reads one ISO 8601 date literal into microseconds since 1970.
private struct DateReader {
    let scalars: [Unicode.Scalar]
    /// The literal's column in a predicate, or `nil` for a date read on its own.
    let column: Int?
    let text: String
    var index = 0

    private func fail(_ why: String) -> PhotoLibError {
        let message = "invalid date '\(text)': \(why); expected YYYY-MM-DD, optionally followed by THH:MM[:SS[.ffffff]] and Z or ±HH:MM"
        guard let column else { return PhotoLibError(.invalidArgument, message) }
        return PredicateError.at(column, message)
    }

    private mutating func digits(_ count: Int, _ what: String) throws(PhotoLibError) -> Int64 {
        var value: Int64 = 0
        for _ in 0..<count {
            guard index < scalars.count, scalars[index] >= "0", scalars[index] <= "9" else {
                throw fail("expected \(count) digits for the \(what)")
            }
            value = value * 10 + Int64(scalars[index].value - 48)
            index += 1
        }
        return value
    }

    private mutating func expect(_ separator: Unicode.Scalar, _ context: String) throws(PhotoLibError) {
        guard index < scalars.count, scalars[index] == separator else { throw fail("expected '\(separator)' \(context)") }
        index += 1
    }

    private func at(_ options: String) -> Bool {
        index < scalars.count && options.unicodeScalars.contains(scalars[index])
    }

    mutating func read() throws(PhotoLibError) -> Int64 {
        let year = try digits(4, "year")
        try expect("-", "after the year")
        let month = try digits(2, "month")
        try expect("-", "after the month")
        let day = try digits(2, "day")
        guard year >= 1 else { throw fail("the year must be 0001…9999") }
        guard (1...12).contains(month) else { throw fail("the month must be 01…12") }
        guard day >= 1, day <= PredicateDate.daysInMonth(year: year, month: month) else {
            throw fail("day \(day) does not exist in \(year)-\(month < 10 ? "0" : "")\(month)")
        }
        var micros = PredicateDate.days(year: year, month: month, day: day) * 86_400_000_000
        if index == scalars.count { return micros }

        guard at("Tt") else { throw fail("unexpected '\(scalars[index])' after the day") }
        index += 1
        let hour = try digits(2, "hour")
        try expect(":", "between hour and minute")
        let minute = try digits(2, "minute")
        var second: Int64 = 0
        var fraction: Int64 = 0
        if at(":") {
            index += 1
            second = try digits(2, "second")
            if at(".") {
                index += 1
                var count = 0
                while at("0123456789") {
                    count += 1
                    guard count <= 6 else { throw fail("at most 6 fractional digits (the library stores microseconds)") }
                    fraction = fraction * 10 + Int64(scalars[index].value - 48)
                    index += 1
                }
                guard count > 0 else { throw fail("expected digits after '.'") }
                for _ in count..<6 { fraction *= 10 }
            }
        }
        guard hour <= 23 else { throw fail("the hour must be 00…23") }
        guard minute <= 59 else { throw fail("the minute must be 00…59") }
        guard second <= 59 else { throw fail("the second must be 00…59") }
        micros += ((hour * 60 + minute) * 60 + second) * 1_000_000 + fraction
        if index == scalars.count { return micros }

        if at("Zz") {
            index += 1
        } else if at("+-") {
            let sign: Int64 = scalars[index] == "-" ? -1 : 1
            index += 1
            let offsetHours = try digits(2, "zone hours")
            try expect(":", "in the zone offset")
            let offsetMinutes = try digits(2, "zone minutes")
            guard offsetHours <= 23, offsetMinutes <= 59 else { throw fail("the zone offset must be at most 23:59") }
            // Local time = UTC + offset, so UTC = local − offset.
            micros -= sign * (offsetHours * 60 + offsetMinutes) * 60_000_000
        } else {
            throw fail("unexpected '\(scalars[index])' after the time")
        }
        guard index == scalars.count else { throw fail("unexpected '\(scalars[index])' after the zone") }
        guard micros >= PredicateDate.minimum, micros <= PredicateDate.maximum else {
            throw fail("the instant falls outside the years 0001…9999 in UTC")
        }
        return micros
    }
}

/// Makes the errors of predicate parsing.
enum PredicateError {
    /// `invalidArgument` / `invalidPredicate` with "at column N: why".
    static func at(_ column: Int, _ why: String) -> PhotoLibError {
        PhotoLibError(.invalidArgument, "at column \(column): \(why)", reason: .invalidPredicate)
    }
}
