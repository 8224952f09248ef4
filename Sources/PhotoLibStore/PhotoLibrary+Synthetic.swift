import Foundation
import PhotoLibCore

/// An asset row without files, for tests and benchmarks that need a large library quickly.
struct SyntheticAsset: Sendable {
    /// The local identifier.
    var identifier: String = LocalIdentifier.newAsset()
    /// Media type.
    var mediaType: MediaType = .image
    /// Subtypes.
    var mediaSubtypes: MediaSubtypes = []
    /// Width in pixels.
    var pixelWidth = 4032
    /// Height in pixels.
    var pixelHeight = 3024
    /// Creation date.
    var creationDate: Date
    /// Modification date.
    var modificationDate: Date? = nil
    /// When it was added to the library (default: now).
    var addedDate: Date? = nil
    /// Favourite flag.
    var isFavorite = false
    /// Hidden flag.
    var isHidden = false
    /// Duration in seconds.
    var duration: Double = 0
}

extension PhotoLibrary {
    /// Inserts asset rows (no files, no resources) in one transaction through one prepared
    /// statement. Only for tests and benchmarks: real imports go through ``addPhoto(_:metadata:)``.
    func insertSyntheticAssets(_ assets: [SyntheticAsset]) throws(PhotoLibError) {
        try write { (database) throws(PhotoLibError) in
            let insert = try database.prepare(
                """
                INSERT INTO asset (local_identifier, media_type, media_subtypes, pixel_width, pixel_height,
                    creation_date, modification_date, added_date, favorite, hidden, duration)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let now = Microseconds.now
            for asset in assets {
                try LocalIdentifier.validate(asset.identifier)
                try insert.execute([
                    .text(asset.identifier), .int(asset.mediaType.rawValue), .integer(Int64(asset.mediaSubtypes.rawValue)),
                    .int(asset.pixelWidth), .int(asset.pixelHeight),
                    .integer(try Microseconds.validated(asset.creationDate, "creation date")),
                    .integer(asset.modificationDate.map(Microseconds.from) ?? now),
                    .integer(asset.addedDate.map(Microseconds.from) ?? now),
                    .bool(asset.isFavorite), .bool(asset.isHidden), .real(asset.duration),
                ])
            }
        }
    }

    /// Runs SQL directly, for tests that set up states no public API creates yet (trash).
    func executeForTesting(_ sql: String) throws(PhotoLibError) {
        try write { (database) throws(PhotoLibError) in try database.execute(sql) }
    }
}
