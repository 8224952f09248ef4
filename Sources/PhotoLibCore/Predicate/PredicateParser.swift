extension AssetPredicate {
    /// Parses predicate text (docs/PREDICATES.md). Throws `invalidArgument` with reason
    /// `invalidPredicate` and a message "at column N: what was expected, what was found"
    /// (columns are 1-based and count Unicode scalars), also for text longer than
    /// ``maximumLength`` UTF-8 bytes or nested deeper than ``maximumDepth``.
    public init(parsing text: String) throws(PhotoLibError) {
        let length = text.utf8.count
        guard length <= Self.maximumLength else {
            throw PhotoLibError(
                .invalidArgument,
                "predicate is \(length) UTF-8 bytes long; the limit is \(Self.maximumLength) bytes (use IN lists or several fetches)",
                reason: .invalidPredicate)
        }
        var parser = PredicateParser(tokens: try PredicateLexer.tokens(text))
        self = try parser.parse()
    }
}

/// A recursive-descent parser with precedence NOT > AND > OR:
///
///     predicate  = or-expr END
///     or-expr    = and-expr { OR and-expr }
///     and-expr   = unary { AND unary }
///     unary      = NOT unary | primary
///     primary    = "(" or-expr ")" | comparison
///     comparison = KEY compare-op literal | KEY IN "{" [ literal { "," literal } ] "}"
///
/// Each `(` and `NOT` opens one nesting level; at most ``AssetPredicate/maximumDepth``.
struct PredicateParser {
    private let tokens: [PredicateToken]
    private var position = 0
    private var depth = 0

    init(tokens: [PredicateToken]) {
        self.tokens = tokens
    }

    private var current: PredicateToken { tokens[position] }

    private mutating func advance() {
        if position < tokens.count - 1 { position += 1 }
    }

    private func fail(_ expected: String, _ token: PredicateToken? = nil) -> PhotoLibError {
        let token = token ?? current
        return PredicateError.at(token.column, "expected \(expected), found \(token.found)")
    }

    mutating func parse() throws(PhotoLibError) -> AssetPredicate {
        let predicate = try orExpression()
        guard current.kind == .end else {
            if current.kind == .rightParenthesis { throw fail("AND, OR or the end of the predicate (this ')' closes nothing)") }
            throw fail("AND, OR or the end of the predicate")
        }
        return predicate
    }

    private mutating func orExpression() throws(PhotoLibError) -> AssetPredicate {
        var left = try andExpression()
        while current.kind == .or {
            advance()
            left = .or(left, try andExpression())
        }
        return left
    }

    private mutating func andExpression() throws(PhotoLibError) -> AssetPredicate {
        var left = try unary()
        while current.kind == .and {
            advance()
            left = .and(left, try unary())
        }
        return left
    }

    private mutating func enter(_ token: PredicateToken) throws(PhotoLibError) {
        depth += 1
        guard depth <= AssetPredicate.maximumDepth else {
            throw PredicateError.at(
                token.column, "the predicate nests deeper than \(AssetPredicate.maximumDepth) levels (each '(' and NOT opens one); simplify it")
        }
    }

    private mutating func unary() throws(PhotoLibError) -> AssetPredicate {
        guard current.kind == .not else { return try primary() }
        try enter(current)
        advance()
        let operand = try unary()
        depth -= 1
        return .not(operand)
    }

    private mutating func primary() throws(PhotoLibError) -> AssetPredicate {
        switch current.kind {
        case .leftParenthesis:
            let open = current
            try enter(open)
            advance()
            let inner = try orExpression()
            guard current.kind == .rightParenthesis else {
                throw fail("AND, OR or ')' to close the '(' at column \(open.column)")
            }
            advance()
            depth -= 1
            return inner
        case .identifier(let name):
            guard let key = PredicateKey(rawValue: name) else {
                let keys = PredicateKey.allCases.map(\.rawValue).joined(separator: ", ")
                let hint = PredicateKey.allCases.first { $0.rawValue.lowercased() == name.lowercased() }
                    .map { " (keys are case-sensitive: did you mean '\($0.rawValue)'?)" } ?? ""
                throw PredicateError.at(current.column, "unknown key '\(name)'\(hint); keys are: \(keys)")
            }
            advance()
            return try comparison(key)
        default:
            throw fail("a key, NOT or '('")
        }
    }

    private mutating func comparison(_ key: PredicateKey) throws(PhotoLibError) -> AssetPredicate {
        let type = key.valueType
        switch current.kind {
        case .comparison(let op):
            if op.isOrdering, !type.isOrdered {
                throw PredicateError.at(
                    current.column, "operator \(current.text) does not apply to \(key.rawValue), which takes \(type.readableName); use ==, != or IN")
            }
            advance()
            return .comparison(key, op, try literal(for: key, op: op))
        case .in:
            advance()
            guard current.kind == .leftBrace else { throw fail("'{' to open the IN list of \(key.rawValue)") }
            advance()
            var values: [PredicateValue] = []
            if current.kind == .rightBrace {
                advance()
                return .membership(key, values)
            }
            while true {
                values.append(try literal(for: key, op: nil))
                switch current.kind {
                case .comma: advance()
                case .rightBrace:
                    advance()
                    return .membership(key, values)
                default: throw fail("',' or '}' in the IN list of \(key.rawValue)")
                }
            }
        default:
            throw fail("an operator (==, !=, <, <=, >, >=, IN) after \(key.rawValue)")
        }
    }

    /// A literal of `key`'s type; `op` is nil inside an IN list.
    private mutating func literal(for key: PredicateKey, op: ComparisonOperator?) throws(PhotoLibError) -> PredicateValue {
        let token = current
        let type = key.valueType
        let mismatch = fail("\(type.readableName) for \(key.rawValue)", token)
        let value: PredicateValue
        switch (type, token.kind) {
        case (.date, .date(let micros)):
            value = .date(microsecondsSince1970: micros)
        case (.integer, .number(let text)):
            guard !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else { throw mismatch }
            guard let integer = Int64(text) else {
                throw PredicateError.at(token.column, "integer \(text) is out of range for \(key.rawValue)")
            }
            value = .integer(integer)
        case (.double, .number(let text)):
            guard let double = Double(text), double.isFinite else {
                throw PredicateError.at(token.column, "number \(text) is out of range for \(key.rawValue)")
            }
            value = .double(double)
        case (.boolean, .boolean(let flag)):
            value = .boolean(flag)
        case (.mediaType, .identifier(let name)):
            guard let mediaType = MediaType(name: name) else {
                let names = MediaType.allCases.map(\.name).joined(separator: ", ")
                throw PredicateError.at(token.column, "unknown media type '\(name)'; media types are: \(names)")
            }
            value = .mediaType(mediaType)
        case (.mediaSubtypes, .identifier(let name)):
            guard let subtype = MediaSubtypes.named.first(where: { $0.name == name }) else {
                let names = MediaSubtypes.named.map(\.name).joined(separator: ", ")
                throw PredicateError.at(token.column, "unknown media subtype '\(name)'; media subtypes are: \(names)")
            }
            value = .mediaSubtypes(subtype.value)
        case (.string, .string(let text)):
            value = .string(text)
        case (.string(nullable: true), .null):
            if let op, op.isOrdering {
                throw PredicateError.at(token.column, "nil can only be compared with == or !=, not \(op.rawValue)")
            }
            value = .null
        default:
            throw mismatch
        }
        advance()
        return value
    }
}
