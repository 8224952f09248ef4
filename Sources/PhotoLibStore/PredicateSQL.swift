import PhotoLibCore

/// A ``AssetPredicate`` as a parameterized SQL condition over the `asset` table aliased `a`.
///
/// Every literal is a bound parameter; only column names, operators and constants chosen
/// here appear in the text. Every condition produced is two-valued (never NULL), so `NOT`
/// is the exact complement, as in ``AssetPredicate/matches(_:)``: the nullable
/// `burst_identifier` is guarded with `IS [NOT] NULL`. Chains of `AND`/`OR` become balanced
/// trees so that SQLite's expression depth stays logarithmic in their length.
struct PredicateSQL: Equatable {
    /// The condition, parenthesized.
    var sql: String
    /// Its parameters, in order.
    var values: [DatabaseValue]

    /// Translates `predicate`; throws `invalidArgument` / `invalidPredicate` for a tree the
    /// parser could not have produced (a value of the wrong type, `<` on a boolean, NaN…).
    init(_ predicate: AssetPredicate) throws(PhotoLibError) {
        var values: [DatabaseValue] = []
        sql = try Self.condition(predicate, depth: 0, &values)
        self.values = values
    }

    private static func invalid(_ why: String) -> PhotoLibError {
        PhotoLibError(.invalidArgument, "invalid predicate: \(why)", reason: .invalidPredicate)
    }

    /// The column a key reads.
    static func column(_ key: PredicateKey) -> String {
        switch key {
        case .mediaType: return "a.media_type"
        case .mediaSubtypes: return "a.media_subtypes"
        case .creationDate: return "a.creation_date"
        case .modificationDate: return "a.modification_date"
        case .isFavorite: return "a.favorite"
        case .isHidden: return "a.hidden"
        case .pixelWidth: return "a.pixel_width"
        case .pixelHeight: return "a.pixel_height"
        case .duration: return "a.duration"
        case .burstIdentifier: return "a.burst_identifier"
        case .localIdentifier: return "a.local_identifier"
        }
    }

    private static func sqlOperator(_ op: ComparisonOperator) -> String {
        switch op {
        case .equal: return "="
        case .notEqual: return "<>"
        case .less: return "<"
        case .lessOrEqual: return "<="
        case .greater: return ">"
        case .greaterOrEqual: return ">="
        }
    }

    /// The bound form of a non-null value of `key`'s type (NULL is handled by the callers).
    private static func parameter(_ key: PredicateKey, _ value: PredicateValue) throws(PhotoLibError) -> DatabaseValue {
        switch (key.valueType, value) {
        case (.date, .date(let micros)): return .integer(micros)
        case (.integer, .integer(let integer)): return .integer(integer)
        case (.double, .double(let double)):
            guard double.isFinite else { throw invalid("\(key.rawValue) compared with the non-finite number \(double)") }
            return .real(double)
        case (.boolean, .boolean(let flag)): return .bool(flag)
        case (.mediaType, .mediaType(let type)): return .int(type.rawValue)
        case (.mediaSubtypes, .mediaSubtypes(let subtypes)): return .integer(Int64(subtypes.rawValue))
        case (.string, .string(let text)): return .text(text)
        default: throw invalid("\(key.rawValue) takes \(key.valueType.readableName), not \(value)")
        }
    }

    /// The most nested conditions translated: a parsed predicate (at most
    /// ``AssetPredicate/maximumDepth`` parentheses and NOTs) needs fewer than half of these.
    static let maximumDepth = 4 * AssetPredicate.maximumDepth

    private static func condition(_ predicate: AssetPredicate, depth: Int, _ values: inout [DatabaseValue]) throws(PhotoLibError) -> String {
        guard depth < maximumDepth else {
            throw invalid("the predicate nests deeper than \(maximumDepth) conditions")
        }
        switch predicate {
        case .comparison(let key, let op, let value):
            return try comparison(key, op, value, &values)
        case .membership(let key, let list):
            return try membership(key, list, &values)
        case .not(let operand):
            return "(NOT \(try condition(operand, depth: depth + 1, &values)))"
        case .and:
            return try balanced(operands(of: predicate, and: true)[...], joiner: " AND ", depth: depth + 1, &values)
        case .or:
            return try balanced(operands(of: predicate, and: false)[...], joiner: " OR ", depth: depth + 1, &values)
        }
    }

    /// The operands of a chain of `AND`s (or `OR`s), left to right, without recursion.
    private static func operands(of predicate: AssetPredicate, and: Bool) -> [AssetPredicate] {
        var result: [AssetPredicate] = []
        var stack = [predicate]
        while let next = stack.popLast() {
            switch (next, and) {
            case (.and(let left, let right), true), (.or(let left, let right), false):
                stack.append(right)
                stack.append(left)
            default:
                result.append(next)
            }
        }
        return result
    }

    /// `operands` joined as a balanced tree: `((a AND b) AND (c AND d))`.
    private static func balanced(
        _ operands: ArraySlice<AssetPredicate>, joiner: String, depth: Int, _ values: inout [DatabaseValue]
    ) throws(PhotoLibError) -> String {
        if operands.count == 1 { return try condition(operands[operands.startIndex], depth: depth, &values) }
        let middle = operands.startIndex + operands.count / 2
        let left = try balanced(operands[..<middle], joiner: joiner, depth: depth, &values)
        let right = try balanced(operands[middle...], joiner: joiner, depth: depth, &values)
        return "(" + left + joiner + right + ")"
    }

    private static func comparison(
        _ key: PredicateKey, _ op: ComparisonOperator, _ value: PredicateValue, _ values: inout [DatabaseValue]
    ) throws(PhotoLibError) -> String {
        let column = column(key)
        let type = key.valueType
        if op.isOrdering, !type.isOrdered {
            throw invalid("operator \(op.rawValue) does not apply to \(key.rawValue)")
        }
        switch type {
        case .mediaSubtypes:
            // `==`: has every bit of the mask; `!=`: lacks one. A positive test repeats
            // `media_subtypes <> 0` so that the partial index asset_with_subtypes applies.
            let mask = try parameter(key, value)
            values += [mask, mask]
            if op == .equal {
                guard case .integer(let bits) = mask, bits != 0 else { return "((\(column) & ?) = ?)" }
                return "(\(column) <> 0 AND (\(column) & ?) = ?)"
            }
            return "((\(column) & ?) <> ?)"
        case .string(nullable: true):
            if value == .null {
                guard !op.isOrdering else { throw invalid("nil can only be compared with == or !=") }
                return op == .equal ? "(\(column) IS NULL)" : "(\(column) IS NOT NULL)"
            }
            values.append(try parameter(key, value))
            // NULL differs from every string and has no order: `!=` holds, the rest do not.
            if op == .notEqual { return "(\(column) IS NULL OR \(column) <> ?)" }
            return "(\(column) IS NOT NULL AND \(column) \(sqlOperator(op)) ?)"
        default:
            values.append(try parameter(key, value))
            return "(\(column) \(sqlOperator(op)) ?)"
        }
    }

    private static func membership(_ key: PredicateKey, _ list: [PredicateValue], _ values: inout [DatabaseValue]) throws(PhotoLibError) -> String {
        let column = column(key)
        switch key.valueType {
        case .mediaSubtypes:
            // Has any of the subtypes: one bit test per element.
            guard !list.isEmpty else { return "(0)" }
            var terms: [String] = []
            for value in list {
                let mask = try parameter(key, value)
                if case .integer(0) = mask { return "(1)" }
                values += [mask, mask]
                terms.append("(\(column) & ?) = ?")
            }
            return "(\(column) <> 0 AND (" + terms.joined(separator: " OR ") + "))"
        case .string(nullable: true):
            var bound: [DatabaseValue] = []
            var includesNull = false
            for value in list {
                if value == .null { includesNull = true } else { bound.append(try parameter(key, value)) }
            }
            var terms: [String] = []
            if !bound.isEmpty {
                terms.append("(\(column) IS NOT NULL AND \(column) IN (" + Array(repeating: "?", count: bound.count).joined(separator: ", ") + "))")
                values += bound
            }
            if includesNull { terms.append("\(column) IS NULL") }
            return terms.isEmpty ? "(0)" : "(" + terms.joined(separator: " OR ") + ")"
        default:
            guard !list.isEmpty else { return "(0)" }
            for value in list { values.append(try parameter(key, value)) }
            return "(\(column) IN (" + Array(repeating: "?", count: list.count).joined(separator: ", ") + "))"
        }
    }
}
