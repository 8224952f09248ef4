/// A fetch result kept current in memory: every asset matching a fetch's query, in the
/// fetch's order, with the fetch limit applied on top. Updating it with what a transaction
/// touched yields the transaction's ``FetchResultChangeDetails`` in O(k log n) for k touched
/// assets among n members.
///
/// Not thread-safe: one owner mutates and reads it on one queue.
public final class LiveFetchResult {
    /// The order of the result.
    public let ordering: AssetOrdering
    /// At most this many assets are visible, the first ones in ``ordering``; 0: no limit.
    public let fetchLimit: Int
    /// Every member (not only the visible ones), by sort key.
    var tree: OrderStatisticTree<AssetOrdering.Key>
    /// Each member's current sort key, by identifier.
    var keys: [String: AssetOrdering.Key]

    /// A live result ordered by `ordering`, showing at most `fetchLimit` assets (0: all),
    /// over `members`: every asset matching the fetch's query before the limit, in any
    /// order. When an identifier occurs twice the last value wins. O(n log n).
    public init(ordering: AssetOrdering, fetchLimit: Int, members: [Asset]) {
        precondition(fetchLimit >= 0, "LiveFetchResult: fetchLimit \(fetchLimit) is negative")
        self.ordering = ordering
        self.fetchLimit = fetchLimit
        var keys: [String: AssetOrdering.Key] = [:]
        keys.reserveCapacity(members.count)
        for asset in members { keys[asset.localIdentifier] = AssetOrdering.Key(asset) }
        self.keys = keys
        let sorted = keys.values.sorted { ordering.compare($0, $1) == .orderedAscending }
        self.tree = OrderStatisticTree(sorted: sorted) { ordering.compare($0, $1) }
    }

    /// How many assets are visible: the member count, capped by the fetch limit.
    public var count: Int { visibleCount(memberCount) }

    /// How many assets match the query, the limit aside.
    public var memberCount: Int { tree.count }

    /// The identifier at visible index `index` (in `0..<count`). O(log n).
    public func identifier(at index: Int) -> String {
        precondition(index >= 0 && index < count, "LiveFetchResult.identifier(at:): index \(index) out of 0..<\(count)")
        return tree.element(at: index).identifier
    }

    /// The identifiers at `range`, clamped to the visible indexes. O(log n + range.count).
    public func identifiers(in range: Range<Int>) -> [String] {
        let upper = Swift.min(range.upperBound, count)
        return tree.elements(in: range.lowerBound..<Swift.max(range.lowerBound, upper)).map(\.identifier)
    }

    /// The visible index of `identifier`, or `nil` when it is not a member or lies beyond
    /// the fetch limit. O(log n).
    public func index(of identifier: String) -> Int? {
        guard let key = keys[identifier], let rank = tree.rank(of: key), rank < count else { return nil }
        return rank
    }

    /// Whether `identifier` matches the query (visible or beyond the limit). O(1).
    public func isMember(_ identifier: String) -> Bool { keys[identifier] != nil }

    /// Every visible identifier, in order. O(count).
    public var allIdentifiers: [String] { identifiers(in: 0..<count) }

    /// Every visible identifier, in order: exactly what a fresh fetch returns. O(count).
    public func materialize() -> [String] { allIdentifiers }

    /// How many of `members` members are visible under the fetch limit.
    func visibleCount(_ members: Int) -> Int {
        fetchLimit > 0 ? Swift.min(fetchLimit, members) : members
    }
}
