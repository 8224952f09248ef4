import Foundation
import PhotoLibCore

extension PhotoLibrary {
    /// How long assets stay in Recently Deleted by default: 30 days, as in Photos.
    public static let defaultTrashRetention: TimeInterval = 30 * 24 * 3600

    /// Purges, as one transaction (author `trash-purge`), every asset trashed at least
    /// `olderThan` seconds before `now`: rows and album memberships in the transaction, files
    /// after the commit. Returns `nil` when nothing was old enough.
    @discardableResult
    public func purgeExpiredTrash(olderThan retention: TimeInterval = defaultTrashRetention, now: Date = Date()) throws(PhotoLibError) -> ChangeResult? {
        guard retention.isFinite, retention >= 0 else {
            throw PhotoLibError(.invalidArgument, "trash retention \(retention) s must be a non-negative number of seconds")
        }
        let time = try Microseconds.validated(now, "purge time")
        let cutoff = time - Int64((retention * 1_000_000).rounded())
        let result = try runBatch(author: "trash-purge", now: time, usingReserve: true) { (batch) throws(PhotoLibError) in
            let expired = try batch.database.prepare(
                "SELECT local_identifier FROM asset WHERE trashed = 1 AND trashed_date <= ? ORDER BY trashed_date, id"
            ).rows([.integer(cutoff)]) { $0.text(0) }
            if !expired.isEmpty { try batch.apply(.purgeAssets(expired), checkingLimits: false) }
        }
        return result.changes.isEmpty ? nil : result
    }
}
