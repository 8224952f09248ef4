import PhotoLibCore

// PHFetchResultChangeDetails (PhotoLibCore) ⇄ `FetchResultChangeDetails` (observation.proto).

extension Wire.FetchResultChangeDetails {
    /// The message for `details` of the snapshot `fetchResultID` (replaced by
    /// `fetchResultAfterID`), carrying the assets at the inserted then changed indexes.
    public init(_ details: FetchResultChangeDetails, fetchResultID: String, fetchResultAfterID: String, insertedAndChangedAssets: [Asset]) {
        self.init(
            fetchResultID: fetchResultID, fetchResultAfterID: fetchResultAfterID, hasIncrementalChanges: details.hasIncrementalChanges,
            removedIndexes: details.removedIndexes.map { UInt64(max(0, $0)) }, insertedIndexes: details.insertedIndexes.map { UInt64(max(0, $0)) },
            changedIndexes: details.changedIndexes.map { UInt64(max(0, $0)) },
            moves: details.moves.map { Wire.IndexMove(fromIndex: UInt64(max(0, $0.from)), toIndex: UInt64(max(0, $0.to))) },
            countBefore: UInt64(max(0, details.countBefore)), countAfter: UInt64(max(0, details.countAfter)),
            insertedAndChangedAssets: insertedAndChangedAssets.map(Wire.Asset.init))
    }

    /// The details it carries (indexes and counts; the objects are read separately).
    public var details: FetchResultChangeDetails {
        let countBefore = Int(clamping: countBefore), countAfter = Int(clamping: countAfter)
        guard hasIncrementalChanges else { return FetchResultChangeDetails(nonIncrementalFrom: countBefore, to: countAfter) }
        return FetchResultChangeDetails(
            countBefore: countBefore, countAfter: countAfter, removedIndexes: removedIndexes.map { Int(clamping: $0) },
            insertedIndexes: insertedIndexes.map { Int(clamping: $0) }, changedIndexes: changedIndexes.map { Int(clamping: $0) },
            moves: moves.map { IndexMove(from: Int(clamping: $0.fromIndex), to: Int(clamping: $0.toIndex)) })
    }
}
