extension FetchResultChangeDetails {
    /// Whether the details follow the rules of the type's documentation: counts not
    /// negative and consistent, every index list strictly ascending and in range, removed
    /// and moved-from indexes disjoint, inserted and moved-to indexes disjoint, changed
    /// indexes not inserted, moves sorted by `to`. O(countBefore + countAfter).
    /// Non-incremental details only need non-negative counts.
    public var isWellFormed: Bool {
        guard countBefore >= 0, countAfter >= 0 else { return false }
        guard hasIncrementalChanges else {
            return removedIndexes.isEmpty && insertedIndexes.isEmpty && changedIndexes.isEmpty && moves.isEmpty
        }
        func ascending(_ indexes: [Int], below limit: Int) -> Bool {
            var previous = -1
            for index in indexes {
                guard index > previous, index < limit else { return false }
                previous = index
            }
            return true
        }
        guard ascending(removedIndexes, below: countBefore), ascending(insertedIndexes, below: countAfter),
            ascending(changedIndexes, below: countAfter), ascending(moves.map(\.to), below: countAfter),
            countAfter == countBefore - removedIndexes.count + insertedIndexes.count
        else { return false }
        var leaving = [Bool](repeating: false, count: countBefore)
        for index in removedIndexes { leaving[index] = true }
        for move in moves {
            guard move.from >= 0, move.from < countBefore, !leaving[move.from] else { return false }
            leaving[move.from] = true
        }
        var arriving = [Bool](repeating: false, count: countAfter)
        for index in insertedIndexes { arriving[index] = true }
        for move in moves {
            guard !arriving[move.to] else { return false }
            arriving[move.to] = true
        }
        var insertedCursor = 0
        for index in changedIndexes {
            while insertedCursor < insertedIndexes.count, insertedIndexes[insertedCursor] < index { insertedCursor += 1 }
            if insertedCursor < insertedIndexes.count, insertedIndexes[insertedCursor] == index { return false }
        }
        return true
    }

    /// The after list: `before` with the details applied as the type's documentation
    /// specifies. `newObject(i)` supplies the object at after index `i` for each inserted
    /// and each changed index (every index, for non-incremental details).
    ///
    /// - Precondition: `before.count == countBefore` and ``isWellFormed``.
    public func apply<T>(to before: [T], newObject: (Int) throws -> T) rethrows -> [T] {
        precondition(before.count == countBefore, "FetchResultChangeDetails.apply: \(before.count) objects, expected \(countBefore)")
        guard hasIncrementalChanges else { return try (0..<countAfter).map(newObject) }
        precondition(isWellFormed, "FetchResultChangeDetails.apply: malformed details")
        var leaving = [Bool](repeating: false, count: countBefore)
        for index in removedIndexes { leaving[index] = true }
        for move in moves { leaving[move.from] = true }
        var stationary = 0  // the next before index to consider for a stationary object
        var inserted = 0  // cursor in insertedIndexes
        var moved = 0  // cursor in moves
        var after: [T] = []
        after.reserveCapacity(countAfter)
        for index in 0..<countAfter {
            if inserted < insertedIndexes.count, insertedIndexes[inserted] == index {
                after.append(try newObject(index))
                inserted += 1
            } else if moved < moves.count, moves[moved].to == index {
                after.append(before[moves[moved].from])
                moved += 1
            } else {
                while leaving[stationary] { stationary += 1 }
                after.append(before[stationary])
                stationary += 1
            }
        }
        for index in changedIndexes { after[index] = try newObject(index) }
        return after
    }
}
