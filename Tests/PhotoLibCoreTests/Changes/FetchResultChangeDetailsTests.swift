import PhotoLibCore
import Testing

@Suite("FetchResultChangeDetails: application and diff")
struct FetchResultChangeDetailsTests {
    /// before A B C D E: B removed, X inserted at 0, E moved to 1, C changed (now at 3).
    let example = FetchResultChangeDetails(
        countBefore: 5, countAfter: 5, removedIndexes: [1], insertedIndexes: [0], changedIndexes: [3],
        moves: [IndexMove(from: 4, to: 1)])

    @Test("PhotoKit-style example: removals, insertions, moves, then changes")
    func applyExample() {
        #expect(example.isWellFormed)
        #expect(example.hasMoves && !example.isEmpty && example.hasIncrementalChanges)
        let after = example.apply(to: ["A", "B", "C", "D", "E"]) { index in index == 0 ? "X" : "C'" }
        #expect(after == ["X", "E", "A", "C'", "D"])
        var moves: [IndexMove] = []
        example.enumerateMoves { moves.append(IndexMove(from: $0, to: $1)) }
        #expect(moves == example.moves)
    }

    @Test("diff finds the same details, keeping a longest in-order run stationary")
    func diffExample() {
        let details = FetchResultChangeDetails.diff(before: ["A", "B", "C", "D", "E"], after: ["X", "E", "A", "C", "D"], changed: ["C", "X", "B"])
        #expect(details == example)
        let swap = FetchResultChangeDetails.diff(before: ["A", "B"], after: ["B", "A"], changed: [])
        #expect(swap.moves.count == 1 && swap.apply(to: ["A", "B"]) { _ in "?" } == ["B", "A"])
        let reversed = FetchResultChangeDetails.diff(before: ["1", "2", "3", "4"], after: ["4", "3", "2", "1"], changed: [])
        #expect(reversed.moves.count == 3)
        #expect(reversed.apply(to: ["1", "2", "3", "4"]) { _ in "?" } == ["4", "3", "2", "1"])
        let same = FetchResultChangeDetails.diff(before: ["A", "B"], after: ["A", "B"], changed: [])
        #expect(same.isEmpty && same == .unchanged(count: 2))
        let fromEmpty = FetchResultChangeDetails.diff(before: [], after: ["A", "B"], changed: ["A"])
        #expect(fromEmpty.insertedIndexes == [0, 1] && fromEmpty.changedIndexes.isEmpty)
        let toEmpty = FetchResultChangeDetails.diff(before: ["A", "B"], after: [], changed: ["A"])
        #expect(toEmpty.removedIndexes == [0, 1] && toEmpty.countAfter == 0)
    }

    @Test("a move whose object also changed gets the new value")
    func movedAndChanged() {
        let details = FetchResultChangeDetails(
            countBefore: 3, countAfter: 3, removedIndexes: [], insertedIndexes: [], changedIndexes: [0],
            moves: [IndexMove(from: 2, to: 0)])
        #expect(details.apply(to: ["a", "b", "c"]) { _ in "C" } == ["C", "a", "b"])
    }

    @Test("non-incremental details reload everything")
    func nonIncremental() {
        let details = FetchResultChangeDetails(nonIncrementalFrom: 3, to: 2)
        #expect(!details.hasIncrementalChanges && !details.isEmpty && details.isWellFormed)
        #expect(details.apply(to: ["a", "b", "c"]) { "n\($0)" } == ["n0", "n1"])
    }

    @Test("malformed details are recognised")
    func malformed() {
        func details(_ before: Int, _ after: Int, removed: [Int] = [], inserted: [Int] = [], changed: [Int] = [], moves: [(Int, Int)] = []) -> FetchResultChangeDetails {
            FetchResultChangeDetails(
                countBefore: before, countAfter: after, removedIndexes: removed, insertedIndexes: inserted,
                changedIndexes: changed, moves: moves.map { IndexMove(from: $0.0, to: $0.1) })
        }
        #expect(details(3, 3, removed: [1], inserted: [0]).isWellFormed)
        #expect(!details(3, 2, removed: [1], inserted: [0]).isWellFormed)  // counts inconsistent
        #expect(!details(3, 3, removed: [2, 1], inserted: [0, 1]).isWellFormed)  // not ascending
        #expect(!details(3, 3, removed: [3], inserted: [0]).isWellFormed)  // out of range
        #expect(!details(3, 3, removed: [1], inserted: [0], moves: [(1, 2)]).isWellFormed)  // removed and moved
        #expect(!details(3, 3, moves: [(0, 1), (2, 1)]).isWellFormed)  // same destination
        #expect(!details(3, 3, removed: [0], inserted: [1], moves: [(2, 1)]).isWellFormed)  // inserted and moved-to
        #expect(!details(3, 3, removed: [0], inserted: [1], changed: [1]).isWellFormed)  // changed but inserted
        #expect(!details(3, 3, moves: [(0, 2), (2, 0)]).isWellFormed)  // moves not sorted by to
        #expect(details(3, 3, moves: [(2, 0), (0, 2)]).isWellFormed)
    }
}
