import Foundation
import PhotoLibCore

extension PhotoLibrary {
    /// Marks assets as favourites (or not), in one transaction recorded in the change log
    /// (author `setFavorite`); `notFound` for an unknown asset, `failedPrecondition` for one
    /// in Recently Deleted, and then nothing changes.
    public func setFavorite(_ isFavorite: Bool, forAssets identifiers: [String]) throws(PhotoLibError) {
        try Self.validateIdentifierList(identifiers)
        _ = try applyUnattributed(identifiers.map { .setAssetProperties(.init(asset: $0, isFavorite: isFavorite)) }, author: "setFavorite")
    }

    /// Hides assets (or shows them again), in one transaction recorded in the change log
    /// (author `setHidden`); `notFound` for an unknown asset, and then nothing changes.
    public func setHidden(_ isHidden: Bool, forAssets identifiers: [String]) throws(PhotoLibError) {
        try Self.validateIdentifierList(identifiers)
        _ = try applyUnattributed(identifiers.map { .setAssetProperties(.init(asset: $0, isHidden: isHidden)) }, author: "setHidden")
    }

    /// Applies requests as one batch like ``performChanges(_:author:now:)``, for the
    /// single-purpose APIs: errors are the request's own, without the request index, and
    /// the per-request identifier limit does not apply (the caller checked its list).
    func applyUnattributed(_ requests: [ChangeRequest], author: String) throws(PhotoLibError) -> ChangeResult {
        try runBatch(author: author, now: Microseconds.now, usingReserve: requests.allSatisfy(\.freesSpace)) { (batch) throws(PhotoLibError) in
            for request in requests { try batch.apply(request, checkingLimits: false) }
        }
    }
}
