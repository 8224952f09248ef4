/// What one transaction did to a fetch result: PhotoKit's `PHFetchResultChangeDetails`, as a
/// value a server computes and a remote client applies.
///
/// ## Applying the details
///
/// With `hasIncrementalChanges == false` only the counts are meaningful: the client discards
/// its list and takes the after list whole (``apply(to:newObject:)`` asks `newObject` for
/// every index).
///
/// Otherwise `before` (``countBefore`` objects) becomes the after list (``countAfter``
/// objects) as in a `UICollectionView` batch update:
///
/// 1. **Removed and moved-from objects leave.** ``removedIndexes`` and every move's `from`
///    are indexes in `before`, disjoint from one another. The objects of `before` at none
///    of them are the *stationary* objects; they keep their relative order.
/// 2. **The after list is built index by index**, `0..<countAfter`: an index in
///    ``insertedIndexes`` takes a new object; a move's `to` index takes `before[from]`;
///    every other index takes the next stationary object. ``insertedIndexes`` and the
///    moves' `to` indexes are disjoint indexes in the after list, so the number of
///    stationary objects is exactly `countAfter - insertedIndexes.count - moves.count`, and
///    `countAfter == countBefore - removedIndexes.count + insertedIndexes.count`.
/// 3. **Changed objects are refreshed.** Each index in ``changedIndexes`` (an after index,
///    never an inserted one, possibly a move's `to`) holds an object that is still in the
///    result but whose value changed: the client replaces it with the new value.
///
/// Removals, insertions, changes and moves are thus applied in PhotoKit's order: removals
/// first (against the before indexes), then insertions and moves (against the after
/// indexes), then changes (after indexes). A client driving a `UICollectionView` deletes
/// ``removedIndexes``, inserts ``insertedIndexes`` and performs the moves in one batch, then
/// reloads ``changedIndexes`` in a second batch, as Apple's sample code does.
///
/// All index lists are strictly ascending; ``moves`` is sorted by `to`. ``isWellFormed``
/// checks these rules.
public struct FetchResultChangeDetails: Sendable, Hashable {
    /// How many objects the fetch result had before the transaction.
    public var countBefore: Int
    /// How many objects it has after.
    public var countAfter: Int
    /// `false`: the changes are not described (a resync); only the counts are meaningful.
    public var hasIncrementalChanges: Bool
    /// Indexes, in the before list, of objects no longer in the result; ascending.
    public var removedIndexes: [Int]
    /// Indexes, in the after list, of objects new to the result; ascending.
    public var insertedIndexes: [Int]
    /// Indexes, in the after list, of objects still in the result whose value changed;
    /// ascending, disjoint from ``insertedIndexes``.
    public var changedIndexes: [Int]
    /// Objects still in the result that moved relative to the stationary ones, sorted by `to`.
    public var moves: [IndexMove]

    /// Incremental details, exactly as given (see ``isWellFormed`` for the rules they must follow).
    public init(
        countBefore: Int, countAfter: Int, removedIndexes: [Int], insertedIndexes: [Int],
        changedIndexes: [Int], moves: [IndexMove]
    ) {
        self.countBefore = countBefore
        self.countAfter = countAfter
        self.hasIncrementalChanges = true
        self.removedIndexes = removedIndexes
        self.insertedIndexes = insertedIndexes
        self.changedIndexes = changedIndexes
        self.moves = moves
    }

    /// Non-incremental details (a resync): only the counts, the client reloads everything.
    public init(nonIncrementalFrom countBefore: Int, to countAfter: Int) {
        self.countBefore = countBefore
        self.countAfter = countAfter
        self.hasIncrementalChanges = false
        self.removedIndexes = []
        self.insertedIndexes = []
        self.changedIndexes = []
        self.moves = []
    }

    /// Incremental details that change nothing in a result of `count` objects.
    public static func unchanged(count: Int) -> FetchResultChangeDetails {
        FetchResultChangeDetails(countBefore: count, countAfter: count, removedIndexes: [], insertedIndexes: [], changedIndexes: [], moves: [])
    }

    /// Whether any object moved.
    public var hasMoves: Bool { !moves.isEmpty }

    /// Whether the details describe no change at all (incremental, nothing removed,
    /// inserted, changed or moved). A resync is never empty.
    public var isEmpty: Bool {
        hasIncrementalChanges && removedIndexes.isEmpty && insertedIndexes.isEmpty
            && changedIndexes.isEmpty && moves.isEmpty
    }

    /// Calls `body(from, to)` for each move, in ``moves`` order (PhotoKit's `enumerateMoves`).
    public func enumerateMoves(_ body: (_ from: Int, _ to: Int) throws -> Void) rethrows {
        for move in moves { try body(move.from, move.to) }
    }
}

/// One moved object: its index in the before list and its index in the after list.
public struct IndexMove: Sendable, Hashable {
    /// The object's index in the before list.
    public var from: Int
    /// The object's index in the after list.
    public var to: Int

    /// A move from before index `from` to after index `to`.
    public init(from: Int, to: Int) {
        self.from = from
        self.to = to
    }
}
