extension FetchResultChangeDetails {
    /// The details that turn the identifier list `before` into `after`, when only the two
    /// lists are known. Each list must hold distinct identifiers. O(n log n).
    ///
    /// Identifiers only in `before` are removed, only in `after` inserted. Of the common
    /// ones, a longest subsequence whose order both lists agree on stays stationary and
    /// every other one is a move, so there are as few moves as possible. An identifier in
    /// `changed` is reported at its after index unless it was inserted (or is not in `after`).
    public static func diff(before: [String], after: [String], changed: Set<String>) -> FetchResultChangeDetails {
        var beforeIndex: [String: Int] = [:]
        beforeIndex.reserveCapacity(before.count)
        for (index, identifier) in before.enumerated() {
            precondition(beforeIndex.updateValue(index, forKey: identifier) == nil, "FetchResultChangeDetails.diff: '\(identifier)' twice in before")
        }
        var afterSet = Set<String>(minimumCapacity: after.count)
        var inserted: [Int] = []
        var changedIndexes: [Int] = []
        var commonAfter: [Int] = []  // after indexes of common identifiers, ascending
        var commonBefore: [Int] = []  // their before indexes
        for (index, identifier) in after.enumerated() {
            precondition(afterSet.insert(identifier).inserted, "FetchResultChangeDetails.diff: '\(identifier)' twice in after")
            if let from = beforeIndex[identifier] {
                commonAfter.append(index)
                commonBefore.append(from)
                if changed.contains(identifier) { changedIndexes.append(index) }
            } else {
                inserted.append(index)
            }
        }
        var removed: [Int] = []
        for (index, identifier) in before.enumerated() where !afterSet.contains(identifier) {
            removed.append(index)
        }
        let stationary = longestIncreasingSubsequence(commonBefore)
        var moves: [IndexMove] = []
        for position in commonAfter.indices where !stationary[position] {
            moves.append(IndexMove(from: commonBefore[position], to: commonAfter[position]))
        }
        return FetchResultChangeDetails(
            countBefore: before.count, countAfter: after.count, removedIndexes: removed,
            insertedIndexes: inserted, changedIndexes: changedIndexes, moves: moves)
    }
}
