import Foundation
import PhotoLibCore

/// An edited asset whose recorded size may still be its original's: edited before schema 9,
/// when the asset kept the original's size (see `Schema.version9`).
public struct UnsizedEdit: Sendable, Hashable {
    /// The asset.
    public var assetIdentifier: String
    /// The absolute path of its current render (the `fullSizePhoto`), if it has one.
    public var renderPath: String?
}

extension PhotoLibrary {
    /// At most `limit` edited assets whose size is not known to be their render's, oldest
    /// first: for ``recordEditedSizes(_:now:)``, once the caller has read each render's size.
    public func unsizedEdits(limit: Int) throws(PhotoLibError) -> [UnsizedEdit] {
        try read { (database) throws(PhotoLibError) in
            try database.prepare(
                """
                SELECT a.local_identifier, r.file_path FROM asset_adjustment j JOIN asset a ON a.id = j.asset_id
                LEFT JOIN asset_resource r ON r.asset_id = a.id AND r.type = \(AssetResourceType.fullSizePhoto.rawValue)
                WHERE j.sized = 0 ORDER BY j.asset_id LIMIT ?
                """
            ).rows([.int(max(0, limit))]) { (row) throws(PhotoLibError) in
                UnsizedEdit(assetIdentifier: row.text(0), renderPath: row.optionalText(1).map(files.absolutePath))
            }
        }
    }

    /// Records each asset's current size (its render's, `nil`: unknown, the size stays) and
    /// that it is known, in one transaction whose changed assets reach the change feed; `nil`
    /// when no size changed. An asset edited again or reverted meanwhile is left as it is.
    public func recordEditedSizes(_ sizes: [(assetIdentifier: String, size: PixelSize?)], now: Date = Date()) throws(PhotoLibError) -> ChangeResult? {
        let time = try Microseconds.validated(now, "the time")
        let result = try runBatch(author: "maintenance", now: time) { (batch) throws(PhotoLibError) in
            let mark = try batch.database.prepare(
                "UPDATE asset_adjustment SET sized = 1 WHERE sized = 0 AND asset_id = (SELECT id FROM asset WHERE local_identifier = ?)")
            let resize = try batch.database.prepare(
                "UPDATE asset SET pixel_width = ?, pixel_height = ? WHERE local_identifier = ? AND (pixel_width != ? OR pixel_height != ?)")
            for (identifier, size) in sizes {
                try mark.execute([.text(identifier)])
                guard batch.database.changes > 0, let size, size.width > 0, size.height > 0 else { continue }
                try resize.execute([.int(size.width), .int(size.height), .text(identifier), .int(size.width), .int(size.height)])
                if batch.database.changes > 0 { batch.changes.record(.asset, identifier, .updated) }
            }
        }
        return result.changes.isEmpty ? nil : result
    }
}
