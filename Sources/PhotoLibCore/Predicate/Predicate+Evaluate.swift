extension AssetPredicate {
    /// Whether `asset` satisfies the predicate: the in-memory reference semantics that the
    /// store's SQL must reproduce exactly (docs/PREDICATES.md, "Semantics").
    ///
    /// Logic is two-valued: a comparison is true or false, never unknown, so `NOT p` is
    /// exactly the complement of `p`. A comparison a parser would reject (a value of the
    /// wrong type, an ordering operator on a key without order) is false.
    public func matches(_ asset: Asset) -> Bool {
        switch self {
        case .comparison(let key, let op, let value):
            return Self.compare(key, op, value, asset)
        case .membership(let key, let values):
            return values.contains { Self.compare(key, .equal, $0, asset) }
        case .not(let operand):
            return !operand.matches(asset)
        case .and(let left, let right):
            return left.matches(asset) && right.matches(asset)
        case .or(let left, let right):
            return left.matches(asset) || right.matches(asset)
        }
    }

    /// `sign` (−1, 0, 1) tested against `op`.
    private static func holds(_ op: ComparisonOperator, _ sign: Int) -> Bool {
        switch op {
        case .equal: return sign == 0
        case .notEqual: return sign != 0
        case .less: return sign < 0
        case .lessOrEqual: return sign <= 0
        case .greater: return sign > 0
        case .greaterOrEqual: return sign >= 0
        }
    }

    private static func sign<T: Comparable>(_ a: T, _ b: T) -> Int {
        a < b ? -1 : (a == b ? 0 : 1)
    }

    /// Strings compare byte by byte in UTF-8, as SQLite's BINARY collation does.
    private static func sign(utf8 a: String, _ b: String) -> Int {
        if a.utf8.elementsEqual(b.utf8) { return 0 }
        return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
    }

    private static func compare(_ key: PredicateKey, _ op: ComparisonOperator, _ value: PredicateValue, _ asset: Asset) -> Bool {
        switch (key, value) {
        case (.creationDate, .date(let micros)):
            return holds(op, sign(PredicateDate.microseconds(asset.creationDate), micros))
        case (.modificationDate, .date(let micros)):
            return holds(op, sign(PredicateDate.microseconds(asset.modificationDate), micros))
        case (.pixelWidth, .integer(let integer)):
            return holds(op, sign(Int64(asset.pixelWidth), integer))
        case (.pixelHeight, .integer(let integer)):
            return holds(op, sign(Int64(asset.pixelHeight), integer))
        case (.duration, .double(let double)):
            // NaN (only in hand-built trees) is unordered: every comparison but != is false.
            if double.isNaN || asset.duration.isNaN { return op == .notEqual }
            return holds(op, sign(asset.duration, double))
        case (.isFavorite, .boolean(let flag)) where !op.isOrdering:
            return holds(op, asset.isFavorite == flag ? 0 : 1)
        case (.isHidden, .boolean(let flag)) where !op.isOrdering:
            return holds(op, asset.isHidden == flag ? 0 : 1)
        case (.mediaType, .mediaType(let type)) where !op.isOrdering:
            return holds(op, asset.mediaType == type ? 0 : 1)
        case (.mediaSubtypes, .mediaSubtypes(let subtypes)) where !op.isOrdering:
            // `==` means "has these subtype bits", `!=` "lacks one of them".
            return holds(op, asset.mediaSubtypes.isSuperset(of: subtypes) ? 0 : 1)
        case (.localIdentifier, .string(let text)):
            return holds(op, sign(utf8: asset.localIdentifier, text))
        case (.burstIdentifier, .string(let text)):
            // A missing burst identifier differs from every string and has no order.
            guard let burst = asset.burstIdentifier else { return op == .notEqual }
            return holds(op, sign(utf8: burst, text))
        case (.burstIdentifier, .null) where !op.isOrdering:
            return holds(op, asset.burstIdentifier == nil ? 0 : 1)
        default:
            return false
        }
    }
}
