import Foundation
import PhotoLibCore

/// An original file entering the library in a batch: imported (`photolibd import`) or
/// uploaded and created (`createAsset`). Its bytes are already checked and hashed.
struct NewOriginal {
    /// What the file is and what its metadata says.
    var metadata: ImportMetadata
    /// SHA-256 of the bytes (hex): deduplicates.
    var sha256: String
    /// Size in bytes.
    var byteSize: Int
    /// The creation date to record (microseconds): the metadata's, or the request's override.
    var creationDate: Int64
    /// The location to record: the metadata's, or the request's override.
    var location: Location?
    /// Marks a new asset a favourite.
    var isFavorite = false
    /// Hides a new asset.
    var isHidden = false
    /// The identifier a new asset gets (chosen up front: it names the file).
    var identifier = LocalIdentifier.newAsset()

    /// Where the file goes under `originals/`: named after ``identifier``'s UUID. (When the
    /// file completes another asset's Live Photo, that UUID names no asset; it stays unique.)
    var path: String {
        FileStore.originalPath(uuid: String(identifier.prefix(while: { $0 != "/" })), fileExtension: metadata.fileType.fileExtension)
    }
}

/// What ``ChangeBatch/placeOriginal(_:partner:restoreTrashed:placeFile:)`` did.
enum OriginalPlacement: Equatable {
    /// The same bytes are an asset already (restored from Recently Deleted if asked).
    case existing(String)
    /// A new asset was inserted.
    case inserted(String)
    /// The file became the other half of an existing asset's Live Photo.
    case paired(String)

    /// The asset's identifier.
    var identifier: String {
        switch self {
        case .existing(let identifier), .inserted(let identifier), .paired(let identifier): return identifier
        }
    }
}

extension ChangeBatch {
    /// Puts a new original into the library, the one place this happens:
    ///
    /// - The same bytes (a `photo`, `video` or `pairedVideo` with this SHA-256) are that asset
    ///   already: nothing is written (a trashed one comes back when `restoreTrashed` and, in a
    ///   limited view, it is one of the client's).
    /// - **Live Photos.** A movie joins a still as its `pairedVideo` and the asset becomes
    ///   `photoLive`, when the still has no paired video yet and either is `partner` (the asset
    ///   of a file with the same base name, found by the caller) or has the same Apple content
    ///   identifier. A still whose movie came first takes that video asset over: the asset
    ///   keeps its identifier, albums and favourite, becomes an image with the still's size,
    ///   date and place, and its video becomes the `pairedVideo`. Two files whose content
    ///   identifiers both exist and differ are never paired. In a limited view only assets the
    ///   client can see are partners.
    /// - Otherwise a new image or video asset is inserted with a `photo` or `video` resource.
    ///
    /// The file is at `original.path` (or, with `placeFile`, is put there once the bytes are
    /// known to be new). Records the change (asset inserted, or updated with its albums).
    func placeOriginal(
        _ original: NewOriginal, partner: String?, restoreTrashed: Bool,
        placeFile: ((String) throws(PhotoLibError) -> Void)? = nil
    ) throws(PhotoLibError) -> OriginalPlacement {
        let relativePath = original.path
        if let (existingID, existing, trashed) = try database.prepare(
            """
            SELECT a.id, a.local_identifier, a.trashed FROM asset_resource r JOIN asset a ON a.id = r.asset_id
            WHERE r.sha256 = ? AND r.type IN (1, 2, 9)
            """
        ).firstRow([.text(original.sha256)], { (row) throws(PhotoLibError) in (row.int64(0), row.text(1), row.int(2) != 0) }) {
            // A limited client's copy restores only an asset of its selection.
            if trashed && restoreTrashed, try SelectionScope(limitedTo).contains(existing, in: database) {
                try updateTrashed(false, assetID: existingID, identifier: existing)
            }
            return .existing(existing)
        }
        try placeFile?(relativePath)
        let metadata = original.metadata
        if metadata.fileType.isVideo, let still = try livePhotoPartner(for: metadata, partner: partner, wants: .image) {
            try insertResource(.pairedVideo, of: still.id, original, at: relativePath)
            try database.prepare("UPDATE asset SET media_subtypes = media_subtypes | ?, modification_date = ? WHERE id = ?")
                .execute([.integer(Int64(MediaSubtypes.photoLive.rawValue)), .integer(now), .integer(still.id)])
            changes.record(.asset, still.identifier, .updated)
            try recordAlbums(containing: still.id)
            return .paired(still.identifier)
        }
        if !metadata.fileType.isVideo, let video = try livePhotoPartner(for: metadata, partner: partner, wants: .video) {
            let location = original.location
            try database.prepare(
                """
                UPDATE asset SET media_type = ?, media_subtypes = ?, pixel_width = ?, pixel_height = ?, orientation = ?,
                    creation_date = ?, latitude = ?, longitude = ?, altitude = ?, duration = 0,
                    favorite = max(favorite, ?), hidden = max(hidden, ?), modification_date = ?
                WHERE id = ?
                """
            ).execute([
                .int(MediaType.image.rawValue), .integer(Int64(metadata.mediaSubtypes.union(.photoLive).rawValue)),
                .int(metadata.pixelWidth), .int(metadata.pixelHeight), .int(metadata.orientation), .integer(original.creationDate),
                .optionalReal(location?.latitude), .optionalReal(location?.longitude), .optionalReal(location?.altitude),
                .bool(original.isFavorite), .bool(original.isHidden), .integer(now), .integer(video.id),
            ])
            try database.prepare("UPDATE asset_resource SET type = ? WHERE asset_id = ? AND type = ?")
                .execute([.int(AssetResourceType.pairedVideo.rawValue), .integer(video.id), .int(AssetResourceType.video.rawValue)])
            try insertResource(.photo, of: video.id, original, at: relativePath)
            changes.record(.asset, video.identifier, .updated)
            try recordAlbums(containing: video.id)
            return .paired(video.identifier)
        }
        let identifier = original.identifier
        let location = original.location
        try database.prepare(
            """
            INSERT INTO asset (local_identifier, media_type, media_subtypes, pixel_width, pixel_height, orientation,
                creation_date, modification_date, added_date, favorite, hidden, latitude, longitude, altitude, duration)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        ).execute([
            .text(identifier), .int(metadata.mediaType.rawValue), .integer(Int64(metadata.mediaSubtypes.rawValue)),
            .int(metadata.pixelWidth), .int(metadata.pixelHeight), .int(metadata.orientation),
            .integer(original.creationDate), .integer(now), .integer(now), .bool(original.isFavorite), .bool(original.isHidden),
            .optionalReal(location?.latitude), .optionalReal(location?.longitude), .optionalReal(location?.altitude),
            .real(metadata.duration),
        ])
        try insertResource(metadata.fileType.isVideo ? .video : .photo, of: database.lastInsertedRowID, original, at: relativePath)
        changes.record(.asset, identifier, .inserted)
        return .inserted(identifier)
    }

    /// The asset `metadata`'s file completes as a Live Photo, if any: an image without a
    /// paired video (`wants: .image`, for a movie) or a plain video asset (`wants: .video`, for
    /// a still), that is `partner` or whose original has the same content identifier.
    private func livePhotoPartner(
        for metadata: ImportMetadata, partner: String?, wants kind: MediaType
    ) throws(PhotoLibError) -> (id: Int64, identifier: String)? {
        let scope = SelectionScope(limitedTo)
        let originalType = kind == .image ? AssetResourceType.photo : .video
        // An add-only batch pairs only with the assets it inserted itself.
        if addsOnly && insertedAssets.isEmpty { return nil }
        let ownOnly = addsOnly ? " AND a.local_identifier IN (\(insertedAssets.map { _ in "?" }.joined(separator: ", ")))" : ""
        let free = """
            a.media_type = \(kind.rawValue) AND r.type = \(originalType.rawValue) AND NOT EXISTS (
                SELECT 1 FROM asset_resource p WHERE p.asset_id = a.id AND p.type = \(AssetResourceType.pairedVideo.rawValue))\(ownOnly)
            """
        let ownValues: [DatabaseValue] = addsOnly ? insertedAssets.map { .text($0) } : []
        let select = "SELECT a.id, a.local_identifier, r.content_identifier FROM asset a JOIN asset_resource r ON r.asset_id = a.id"
        let decode = { (row: Statement) throws(PhotoLibError) in (id: row.int64(0), identifier: row.text(1), content: row.optionalText(2)) }
        if let partner, let found = try database.prepare("\(select) WHERE a.local_identifier = ? AND \(free)\(scope.and("a.local_identifier"))")
            .firstRow([.text(partner)] + ownValues + scope.values, decode),
            // Same base name but two different content identifiers: two different moments.
            metadata.contentIdentifier == nil || found.content == nil || metadata.contentIdentifier == found.content
        {
            return (found.id, found.identifier)
        }
        guard let content = metadata.contentIdentifier else { return nil }
        return try database.prepare("\(select) WHERE r.content_identifier = ? AND \(free)\(scope.and("a.local_identifier")) ORDER BY a.id LIMIT 1")
            .firstRow([.text(content)] + ownValues + scope.values, decode).map { ($0.id, $0.identifier) }
    }

    /// Records `original`'s file as resource `type` of asset row `assetID`.
    private func insertResource(_ type: AssetResourceType, of assetID: Int64, _ original: NewOriginal, at relativePath: String) throws(PhotoLibError) {
        let metadata = original.metadata
        try database.prepare(
            """
            INSERT INTO asset_resource (asset_id, type, original_filename, uti, file_path, byte_size, sha256, content_identifier)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """
        ).execute([
            .integer(assetID), .int(type.rawValue), .text(metadata.originalFilename), .text(metadata.fileType.uniformTypeIdentifier),
            .text(relativePath), .int(original.byteSize), .text(original.sha256), .optionalText(metadata.contentIdentifier),
        ])
    }
}
