/// A token of predicate text, with the 1-based column (in Unicode scalars) where it starts.
struct PredicateToken: Sendable, Hashable {
    /// What the token is.
    enum Kind: Sendable, Hashable {
        /// A key or an enum name (`mediaType`, `screenshot`); exact spelling kept.
        case identifier(String)
        /// `AND`, `&&`.
        case and
        /// `OR`, `||`.
        case or
        /// `NOT`, `!`.
        case not
        /// `IN`.
        case `in`
        /// `true`/`YES`, `false`/`NO`.
        case boolean(Bool)
        /// `nil`/`NULL`.
        case null
        /// A number exactly as written: `-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
        case number(String)
        /// A date already converted to microseconds since 1970 (text kept in ``PredicateToken/text``).
        case date(Int64)
        /// A string literal, unescaped.
        case string(String)
        /// A comparison operator.
        case comparison(ComparisonOperator)
        /// `(`.
        case leftParenthesis
        /// `)`.
        case rightParenthesis
        /// `{`.
        case leftBrace
        /// `}`.
        case rightBrace
        /// `,`.
        case comma
        /// The end of the text.
        case end
    }

    /// What the token is.
    var kind: Kind
    /// The 1-based column of its first character.
    var column: Int
    /// The source text of the token.
    var text: String

    /// How an error message names what it found.
    var found: String {
        switch kind {
        case .identifier(let name): return "'\(name)'"
        case .number: return "number \(text)"
        case .date: return "date \(text)"
        case .string(let value):
            let shown = value.unicodeScalars.count > 40 ? String(String.UnicodeScalarView(value.unicodeScalars.prefix(40))) + "…" : value
            return "string \(PredicateValue.quoted(shown))"
        case .end: return "end of input"
        default: return "'\(text)'"
        }
    }
}
