import Foundation
import PhotoLibCore

extension PhotoLibrary {
    /// Adds `count` synthetic asset rows (metadata only, no image files) for benchmarks, in
    /// transactions of `batchSize`: varied creation dates (one per minute back from
    /// `newest`), sizes, and about one favourite in ten. Returns the identifiers added.
    /// Not recorded in the change log (a benchmark library's starting state).
    @discardableResult
    public func addSyntheticAssetsForBenchmark(count: Int, newest: Date = Date(), batchSize: Int = 10_000) throws(PhotoLibError) -> Int {
        guard count >= 0, batchSize > 0 else { throw PhotoLibError(.invalidArgument, "count must not be negative and batchSize must be positive") }
        let sizes = [(4032, 3024), (3024, 4032), (5312, 2988), (2560, 3837), (4352, 2448)]
        var added = 0
        while added < count {
            let n = min(batchSize, count - added)
            let batch = (added..<(added + n)).map { i in
                let size = sizes[i % sizes.count]
                return SyntheticAsset(
                    pixelWidth: size.0, pixelHeight: size.1,
                    creationDate: newest.addingTimeInterval(-60 * Double(i)),
                    isFavorite: i % 10 == 0)
            }
            try insertSyntheticAssets(batch)
            added += n
        }
        return added
    }
}
