import Crypto
import Foundation
import PhotoLibCore

extension PhotoLibrary {
    /// The largest file ``addPhoto(_:metadata:)`` accepts, in bytes.
    public static let maximumImportBytes = 256 * 1024 * 1024

    /// Adds a photo from its JPEG bytes.
    ///
    /// The same bytes (by SHA-256) imported before give `.alreadyPresent` with that asset and
    /// write nothing. Otherwise the file is written atomically under `originals/` (temp file,
    /// fsync, rename, directory fsync) and then the asset and its resource are committed in
    /// one transaction; if the transaction fails the file is removed again.
    public func addPhoto(_ data: [UInt8], metadata: ImportMetadata) throws(PhotoLibError) -> ImportOutcome {
        try addPhotoRecordingChange(data, metadata: metadata).outcome
    }

    /// ``addPhoto(_:metadata:)``, also returning the change token of the import's transaction
    /// (author `import`, one inserted asset), or `nil` when the bytes were present already
    /// and nothing was committed.
    public func addPhotoRecordingChange(_ data: [UInt8], metadata: ImportMetadata) throws(PhotoLibError) -> (outcome: ImportOutcome, token: Int64?) {
        let name = metadata.originalFilename
        let digest = try Self.checkedDigest(data, metadata: metadata, what: name)
        if let existing = try withDatabase({ (database) throws(PhotoLibError) in try Self.asset(withOriginalSHA256: digest, in: database) }) {
            return (.alreadyPresent(existing), nil)
        }

        let identifier = LocalIdentifier.newAsset()
        let uuid = String(identifier.prefix(while: { $0 != "/" }))
        let relativePath = FileStore.originalPath(uuid: uuid, fileExtension: metadata.fileType.fileExtension)
        // The file first, outside the lock: other callers keep reading while it syncs.
        try files.writeAtomically(data, to: relativePath)
        let outcome: ImportOutcome
        let token: Int64?
        do {
            (outcome, token) = try write { (database) throws(PhotoLibError) -> (ImportOutcome, Int64?) in
                // Under the write lock no other process can insert: this check is final.
                if let existing = try Self.asset(withOriginalSHA256: digest, in: database) {
                    return (.alreadyPresent(existing), nil)
                }
                let now = Microseconds.now
                try database.prepare(
                    """
                    INSERT INTO asset (local_identifier, media_type, media_subtypes, pixel_width, pixel_height,
                        orientation, creation_date, modification_date, added_date, latitude, longitude, altitude)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
                ).execute([
                    .text(identifier), .int(metadata.mediaType.rawValue), .integer(Int64(metadata.mediaSubtypes.rawValue)),
                    .int(metadata.pixelWidth), .int(metadata.pixelHeight), .int(metadata.orientation),
                    .integer(Microseconds.from(metadata.creationDate)), .integer(now), .integer(now),
                    .optionalReal(metadata.location?.latitude), .optionalReal(metadata.location?.longitude),
                    .optionalReal(metadata.location?.altitude),
                ])
                let assetID = database.lastInsertedRowID
                try database.prepare(
                    """
                    INSERT INTO asset_resource (asset_id, type, original_filename, uti, file_path, byte_size, sha256)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """
                ).execute([
                    .integer(assetID), .int(AssetResourceType.photo.rawValue), .text(name), .text(metadata.fileType.uniformTypeIdentifier),
                    .text(relativePath), .int(data.count), .text(digest),
                ])
                guard let asset = try database.prepare("SELECT \(AssetRow.columns) FROM asset a WHERE a.id = ?")
                    .firstRow([.integer(assetID)], AssetRow.decode)
                else {
                    throw PhotoLibError(.internalError, "asset \(identifier) vanished inside its own transaction")
                }
                var changes = ChangeSet()
                changes.record(.asset, identifier, .inserted)
                let token = try ChangeLog.append(changes, author: "import", committedAt: now, in: database)
                return (.added(asset), token)
            }
        } catch {
            // Not committed: the file is an orphan now. If removing it fails too, recovery
            // removes it at the next open; the caller needs the first error.
            try? files.remove(relativePath)
            throw error
        }
        if case .alreadyPresent = outcome {
            // Another process imported the same bytes between our check and our write lock.
            try? files.remove(relativePath)
        }
        return (outcome, token)
    }

    /// The asset whose original has this SHA-256, if any.
    /// What every photo entering the library goes through, imported or uploaded: the
    /// metadata is valid, the bytes are 1…``maximumImportBytes`` long and start like the
    /// metadata's file type (the caller has decoded them fully); returns their SHA-256 in hex,
    /// which deduplicates.
    static func checkedDigest(_ data: [UInt8], metadata: ImportMetadata, what name: String) throws(PhotoLibError) -> String {
        try metadata.validate()
        guard !data.isEmpty, data.count <= Self.maximumImportBytes else {
            throw PhotoLibError(
                .invalidArgument, "\(name) is \(data.count) bytes; a photo must be 1…\(Self.maximumImportBytes) bytes",
                reason: .invalidImage)
        }
        guard data.count >= 4, metadata.fileType.matches(Array(data.prefix(OriginalFileType.signatureLength))) else {
            throw PhotoLibError(
                .invalidArgument, "\(name) is not a \(metadata.fileType.rawValue.uppercased()) file (its first bytes do not say so)", reason: .invalidImage)
        }
        return sha256Hex(data)
    }

    /// The SHA-256 of `data` as 64 lowercase hex digits: how the library names content.
    static func sha256Hex(_ data: [UInt8]) -> String {
        SHA256.hash(data: data).map { OwnerToken.hexByte($0) }.joined()
    }

    static func asset(withOriginalSHA256 digest: String, in database: Database) throws(PhotoLibError) -> Asset? {
        try database.prepare(
            """
            SELECT \(AssetRow.columns) FROM asset_resource r JOIN asset a ON a.id = r.asset_id
            WHERE r.sha256 = ? AND r.type IN (1, 2)
            """
        ).firstRow([.text(digest)], AssetRow.decode)
    }
}
