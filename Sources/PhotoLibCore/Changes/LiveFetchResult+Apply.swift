extension LiveFetchResult {
    /// One touched asset while a transaction is applied.
    private struct Touch {
        var identifier: String
        /// Its sort key before the transaction, if it was a member.
        var oldKey: AssetOrdering.Key?
        /// Its sort key after, if it is a member.
        var newKey: AssetOrdering.Key?
        /// Its rank among all members before, if it was one.
        var beforeRank: Int?
    }

    /// Applies one transaction and returns what it did to the visible result.
    ///
    /// `updates` lists every asset the transaction touched (later entries for the same
    /// identifier win). O(k log n) for k updates and n members:
    /// - a touched asset visible before and after is **changed** (at its after index), and
    ///   also **moved** when its sort values changed and it can no longer stay in place
    ///   relative to the assets whose sort values did not change (as few such moves as
    ///   possible: a longest run of in-order ones stays stationary);
    /// - a touched asset visible only before is **removed**, only after **inserted**;
    /// - with a fetch limit, untouched assets pushed beyond it are removed and those pulled
    ///   within it inserted; only the at most 2k ranks around the limit are examined.
    public func apply(_ updates: [LiveUpdate]) -> FetchResultChangeDetails {
        // The touched assets, one entry each, with their before ranks.
        var position: [String: Int] = [:]
        var touches: [Touch] = []
        for update in updates {
            var newKey: AssetOrdering.Key?
            if let asset = update.asset {
                precondition(asset.localIdentifier == update.identifier, "LiveUpdate for \(update.identifier) carries asset \(asset.localIdentifier)")
                if update.matches { newKey = AssetOrdering.Key(asset) }
            }
            if let existing = position[update.identifier] {
                touches[existing].newKey = newKey
            } else {
                position[update.identifier] = touches.count
                let oldKey = keys[update.identifier]
                touches.append(Touch(identifier: update.identifier, oldKey: oldKey, newKey: newKey, beforeRank: oldKey.flatMap { tree.rank(of: $0) }))
            }
        }
        let countBefore = count
        // Untouched members whose rank is within k of the limit may cross it.
        var boundary: [(key: AssetOrdering.Key, beforeRank: Int)] = []
        if fetchLimit > 0 {
            let lower = Swift.max(0, fetchLimit - touches.count)
            let upper = Swift.min(memberCount, fetchLimit + touches.count)
            if lower < upper {
                for (offset, key) in tree.elements(in: lower..<upper).enumerated() where position[key.identifier] == nil {
                    boundary.append((key, lower + offset))
                }
            }
        }
        // Move the touched assets in the tree.
        for touch in touches {
            if let oldKey = touch.oldKey {
                tree.remove(oldKey)
                keys[touch.identifier] = nil
            }
        }
        for touch in touches {
            if let newKey = touch.newKey {
                tree.insert(newKey)
                keys[touch.identifier] = newKey
            }
        }
        let countAfter = count
        // Classify by visibility before and after.
        var removed: [Int] = []
        var inserted: [Int] = []
        var changed: [Int] = []
        var candidates: [IndexMove] = []  // survivors whose sort values changed
        for touch in touches {
            let before = touch.beforeRank.flatMap { $0 < countBefore ? $0 : nil }
            let after = touch.newKey.flatMap { tree.rank(of: $0) }.flatMap { $0 < countAfter ? $0 : nil }
            switch (before, after) {
            case let (from?, to?):
                changed.append(to)
                if !ordering.sortValuesEqual(touch.oldKey!, touch.newKey!) {
                    candidates.append(IndexMove(from: from, to: to))
                }
            case let (from?, nil): removed.append(from)
            case let (nil, to?): inserted.append(to)
            case (nil, nil): break
            }
        }
        for (key, beforeRank) in boundary {
            let afterRank = tree.rank(of: key)!
            if beforeRank < countBefore, afterRank >= countAfter { removed.append(beforeRank) }
            if beforeRank >= countBefore, afterRank < countAfter { inserted.append(afterRank) }
        }
        removed.sort()
        inserted.sort()
        changed.sort()
        return FetchResultChangeDetails(
            countBefore: countBefore, countAfter: countAfter, removedIndexes: removed, insertedIndexes: inserted,
            changedIndexes: changed, moves: Self.moves(candidates, removed: removed, inserted: inserted))
    }

    /// The moves among `candidates` (survivors whose sort values changed, as before → after
    /// indexes), given the sorted removed and inserted indexes: every other survivor is
    /// stationary. A candidate may stay stationary only if as many stationary survivors
    /// precede it before as after; among those, a longest run whose before and after orders
    /// agree stays, the rest move. O(k log k). Sorted by `to`.
    static func moves(_ candidates: [IndexMove], removed: [Int], inserted: [Int]) -> [IndexMove] {
        if candidates.isEmpty { return [] }
        let froms = candidates.map(\.from).sorted()
        let tos = candidates.map(\.to).sorted()
        var eligible: [IndexMove] = []
        var moves: [IndexMove] = []
        for candidate in candidates {
            let fixedBefore = candidate.from - countBelow(candidate.from, removed) - countBelow(candidate.from, froms)
            let fixedAfter = candidate.to - countBelow(candidate.to, inserted) - countBelow(candidate.to, tos)
            if fixedBefore == fixedAfter { eligible.append(candidate) } else { moves.append(candidate) }
        }
        eligible.sort { $0.from < $1.from }
        let stays = longestIncreasingSubsequence(eligible.map(\.to))
        for (index, candidate) in eligible.enumerated() where !stays[index] { moves.append(candidate) }
        return moves.sorted { $0.to < $1.to }
    }

    /// How many values of the ascending `sorted` are below `value` (binary search).
    static func countBelow(_ value: Int, _ sorted: [Int]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
