import Foundation
import PhotoLibCore
import Testing

/// An asset `id` created at `day` seconds.
private func photo(_ id: String, _ day: Double, favorite: Bool = false) -> Asset {
    Asset(localIdentifier: id, pixelWidth: 10, pixelHeight: 10, creationDate: Date(timeIntervalSince1970: day),
          modificationDate: Date(timeIntervalSince1970: 0), isFavorite: favorite)
}

@Suite("LiveFetchResult: hand-made transactions")
struct LiveFetchResultTests {
    let library = [photo("C", 3), photo("A", 1), photo("E", 5), photo("B", 2), photo("D", 4)]

    @Test("initial state, lookups and ranges")
    func lookups() {
        let live = LiveFetchResult(ordering: AssetOrdering(), fetchLimit: 0, members: library)
        #expect(live.materialize() == ["A", "B", "C", "D", "E"])
        #expect(live.count == 5 && live.identifier(at: 3) == "D" && live.index(of: "C") == 2 && live.index(of: "Q") == nil)
        #expect(live.identifiers(in: 1..<3) == ["B", "C"] && live.identifiers(in: 4..<9) == ["E"])
        let limited = LiveFetchResult(ordering: AssetOrdering([AssetSortDescriptor(key: .creationDate, ascending: false)]), fetchLimit: 2, members: library)
        #expect(limited.allIdentifiers == ["E", "D"] && limited.count == 2 && limited.memberCount == 5)
        #expect(limited.index(of: "C") == nil && limited.isMember("C"))
    }

    @Test("a date change that reorders is a move and a change; a flag change is only a change")
    func moveAndChange() {
        let live = LiveFetchResult(ordering: AssetOrdering(), fetchLimit: 0, members: library)
        let details = live.apply([LiveUpdate(photo("B", 10), matches: true), LiveUpdate(photo("D", 4, favorite: true), matches: true)])
        #expect(details.moves == [IndexMove(from: 1, to: 4)])
        #expect(details.changedIndexes == [2, 4] && details.removedIndexes.isEmpty && details.insertedIndexes.isEmpty)
        #expect(live.materialize() == ["A", "C", "D", "E", "B"])
        // A date change that keeps the order is not a move.
        let still = live.apply([LiveUpdate(photo("C", 3.5), matches: true)])
        #expect(still.moves.isEmpty && still.changedIndexes == [1])
    }

    @Test("insert, delete, leave the predicate")
    func membership() {
        let live = LiveFetchResult(ordering: AssetOrdering(), fetchLimit: 0, members: library)
        let details = live.apply([LiveUpdate(photo("X", 0), matches: true), .deleted("C"), LiveUpdate(photo("E", 5), matches: false)])
        #expect(details.insertedIndexes == [0] && details.removedIndexes == [2, 4] && details.countAfter == 4)
        #expect(live.materialize() == ["X", "A", "B", "D"])
        #expect(live.apply([LiveUpdate(photo("Q", 1), matches: false)]).isEmpty)
    }

    @Test("fetch limit: items cross the boundary")
    func limit() {
        let live = LiveFetchResult(ordering: AssetOrdering(), fetchLimit: 3, members: library)
        #expect(live.materialize() == ["A", "B", "C"])
        let deleted = live.apply([.deleted("A")])
        #expect(deleted.removedIndexes == [0] && deleted.insertedIndexes == [2] && live.materialize() == ["B", "C", "D"])
        let pushed = live.apply([LiveUpdate(photo("Y", 0), matches: true), LiveUpdate(photo("Z", 0.5), matches: true)])
        #expect(pushed.insertedIndexes == [0, 1] && pushed.removedIndexes == [1, 2] && live.materialize() == ["Y", "Z", "B"])
        // A member beyond the limit that changes stays invisible: nothing to report.
        #expect(live.apply([LiveUpdate(photo("E", 6), matches: true)]).isEmpty)
    }

    @Test("the same identifier twice in one transaction: the last update wins")
    func duplicates() {
        let live = LiveFetchResult(ordering: AssetOrdering(), fetchLimit: 0, members: library)
        let details = live.apply([LiveUpdate(photo("A", 9), matches: true), .deleted("A")])
        #expect(details.removedIndexes == [0] && live.materialize() == ["B", "C", "D", "E"])
    }
}
