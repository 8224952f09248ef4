import Foundation

/// The order of a fetch result, in memory, exactly as the store's SQL `ORDER BY` sorts it.
///
/// The terms compared, first to last:
/// - each sort descriptor's key in its direction; no descriptors means `creationDate` ascending;
/// - then the local identifier, in the direction of the **last** descriptor (ascending when
///   there are none), which makes the order total. A descriptor on `localIdentifier` ends the
///   list: nothing after it can matter.
///
/// Values compare as the store keeps them: dates as whole microseconds since 1970
/// (``PredicateDate/microseconds(_:)``; stored dates are whole milliseconds, which convert
/// exactly), so dates equal in the store tie here;
/// booleans with `false` before `true`; media types by raw value; durations as doubles;
/// identifiers byte by byte in UTF-8 (SQLite's `BINARY` collation), not by Swift's
/// Unicode-aware `String` comparison.
///
/// An album fetch without sort descriptors is ordered by album position, which is not a
/// property of the asset: this type does not model it.
public struct AssetOrdering: Sendable, Hashable {
    /// The descriptors this ordering was made from, as given.
    public let descriptors: [AssetSortDescriptor]
    /// The terms actually compared, tie-break included (see the type's documentation).
    public let terms: [AssetSortDescriptor]

    /// The ordering of a fetch with `descriptors` (empty: the library default).
    public init(_ descriptors: [AssetSortDescriptor] = []) {
        self.descriptors = descriptors
        var terms: [AssetSortDescriptor] = []
        for descriptor in descriptors {
            terms.append(descriptor)
            if descriptor.key == .localIdentifier { break }
        }
        if terms.last?.key != .localIdentifier {
            if terms.isEmpty { terms.append(AssetSortDescriptor(key: .creationDate)) }
            terms.append(AssetSortDescriptor(key: .localIdentifier, ascending: descriptors.last?.ascending ?? true))
        }
        self.terms = terms
    }

    /// The snapshot of `asset` this ordering compares (see ``Key``).
    public func key(_ asset: Asset) -> Key { Key(asset) }

    /// Whether `a` comes strictly before `b`: the predicate for `sorted(by:)`.
    public func areInIncreasingOrder(_ a: Asset, _ b: Asset) -> Bool {
        compare(Key(a), Key(b)) == .orderedAscending
    }

    /// Whether `a` comes strictly before `b`, on snapshots.
    public func areInIncreasingOrder(_ a: Key, _ b: Key) -> Bool {
        compare(a, b) == .orderedAscending
    }

    /// Where `a` stands relative to `b`: `.orderedSame` only for byte-equal identifiers (or,
    /// with a `localIdentifier` descriptor, never for distinct assets).
    public func compare(_ a: Asset, _ b: Asset) -> ComparisonResult {
        compare(Key(a), Key(b))
    }

    /// Where snapshot `a` stands relative to snapshot `b`.
    public func compare(_ a: Key, _ b: Key) -> ComparisonResult {
        for term in terms {
            let order = Self.compare(a, b, term.key)
            if order != 0 {
                return (order < 0) == term.ascending ? .orderedAscending : .orderedDescending
            }
        }
        return .orderedSame
    }

    /// Whether `a` and `b` are equal in every term this ordering compares except the
    /// identifier: whether an asset whose snapshot went from `a` to `b` kept its place
    /// relative to every asset that did not change.
    public func sortValuesEqual(_ a: Key, _ b: Key) -> Bool {
        for term in terms where term.key != .localIdentifier {
            if Self.compare(a, b, term.key) != 0 { return false }
        }
        return true
    }

    /// -1, 0 or 1 as `a`'s value for `key` is below, equal to or above `b`'s, ascending.
    static func compare(_ a: Key, _ b: Key, _ key: AssetSortKey) -> Int {
        switch key {
        case .creationDate: return sign(a.creationMicroseconds, b.creationMicroseconds)
        case .modificationDate: return sign(a.modificationMicroseconds, b.modificationMicroseconds)
        case .pixelWidth: return sign(a.pixelWidth, b.pixelWidth)
        case .pixelHeight: return sign(a.pixelHeight, b.pixelHeight)
        case .duration: return sign(a.duration, b.duration)
        case .isFavorite: return sign(a.isFavorite ? 1 : 0, b.isFavorite ? 1 : 0)
        case .isHidden: return sign(a.isHidden ? 1 : 0, b.isHidden ? 1 : 0)
        case .mediaType: return sign(a.mediaType, b.mediaType)
        case .localIdentifier: return compareBytes(a.identifier, b.identifier)
        }
    }

    /// -1, 0 or 1 for `a < b`, `a == b`, `a > b`.
    @inline(__always)
    static func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (b < a ? 1 : 0) }

    /// `a` and `b` compared byte by byte in UTF-8, shorter prefix first (SQLite `BINARY`).
    static func compareBytes(_ a: String, _ b: String) -> Int {
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }
}

extension AssetOrdering {
    /// The values of an asset that any ordering compares, taken once: dates already in
    /// microseconds, identifier included. Cheap to copy; what a ranked index stores.
    public struct Key: Sendable, Hashable {
        /// The asset's local identifier (the final tie-break).
        public var identifier: String
        /// `creationDate` in whole microseconds since 1970, as stored.
        public var creationMicroseconds: Int64
        /// `modificationDate` in whole microseconds since 1970, as stored.
        public var modificationMicroseconds: Int64
        /// `pixelWidth`.
        public var pixelWidth: Int
        /// `pixelHeight`.
        public var pixelHeight: Int
        /// `duration` in seconds.
        public var duration: Double
        /// `mediaType.rawValue`.
        public var mediaType: Int
        /// `isFavorite`.
        public var isFavorite: Bool
        /// `isHidden`.
        public var isHidden: Bool

        /// The snapshot of `asset`.
        public init(_ asset: Asset) {
            identifier = asset.localIdentifier
            creationMicroseconds = PredicateDate.microseconds(asset.creationDate)
            modificationMicroseconds = PredicateDate.microseconds(asset.modificationDate)
            pixelWidth = asset.pixelWidth
            pixelHeight = asset.pixelHeight
            duration = asset.duration
            mediaType = asset.mediaType.rawValue
            isFavorite = asset.isFavorite
            isHidden = asset.isHidden
        }
    }
}
