import Crypto
import Foundation
import PhotoLibCore

extension PhotoLibrary {
    /// The largest file ``addPhoto(_:metadata:pairingWith:)`` accepts (photo or video), in bytes.
    public static let maximumImportBytes = 256 * 1024 * 1024

    /// Adds a photo or video from its bytes.
    ///
    /// The same bytes (by SHA-256) imported before give `.alreadyPresent` with that asset and
    /// write nothing. Otherwise the file is written atomically under `originals/` (temp file,
    /// fsync, rename, directory fsync) and then recorded in one transaction; if the
    /// transaction fails the file is removed again. A movie and a still that belong together
    /// become one Live Photo asset, whichever comes first: by Apple content identifier, or
    /// with the asset `pairingWith` names (the importer's other file of the same base name).
    /// The movie joins a still that has no paired video yet; a still whose movie came first
    /// takes that video asset over (same identifier, albums and favourite).
    public func addPhoto(_ data: [UInt8], metadata: ImportMetadata, pairingWith partner: String? = nil) throws(PhotoLibError) -> ImportOutcome {
        try addPhotoRecordingChange(data, metadata: metadata, pairingWith: partner).outcome
    }

    /// ``addPhoto(_:metadata:pairingWith:)``, also returning the change token of the import's
    /// transaction (author `import`: one inserted asset, or one updated Live Photo), or `nil`
    /// when the bytes were present already and nothing was committed.
    public func addPhotoRecordingChange(
        _ data: [UInt8], metadata: ImportMetadata, pairingWith partner: String? = nil
    ) throws(PhotoLibError) -> (outcome: ImportOutcome, token: Int64?) {
        let name = metadata.originalFilename
        let digest = try Self.checkedDigest(data, metadata: metadata, what: name)
        if let existing = try withDatabase({ (database) throws(PhotoLibError) in try Self.asset(withOriginalSHA256: digest, in: database) }) {
            return (.alreadyPresent(existing), nil)
        }
        if let partner { try LocalIdentifier.validate(partner) }
        let now = Microseconds.now
        let original = NewOriginal(
            metadata: metadata, sha256: digest, byteSize: data.count, creationDate: Microseconds.from(metadata.creationDate),
            location: metadata.location)
        let relativePath = original.path
        // The file first, outside the transaction: the writer is not held while it syncs.
        try files.writeAtomically(data, to: relativePath)
        var placement: OriginalPlacement?
        let result: ChangeResult
        do {
            result = try runBatch(author: "import", now: now) { (batch) throws(PhotoLibError) in
                // Under the write lock no other process can insert: the dedupe check is final.
                // The file is not the batch's to remove on failure: a batch retried on a
                // full disk still needs it; the catch below removes it.
                placement = try batch.placeOriginal(original, partner: partner, restoreTrashed: false)
            }
        } catch {
            // Not committed: the file is an orphan now. If removing it fails too, recovery
            // removes it at the next open; the caller needs the first error.
            try? files.remove(relativePath)
            throw error
        }
        guard let placement, let asset = try withDatabase({ (database) throws(PhotoLibError) in
            try database.prepare("SELECT \(AssetRow.columns) FROM asset a WHERE a.local_identifier = ?")
                .firstRow([.text(placement.identifier)], AssetRow.decode)
        }) else {
            throw PhotoLibError(.internalError, "the imported asset vanished right after its commit")
        }
        if case .existing = placement {
            // Another process imported the same bytes between our check and our write lock.
            try? files.remove(relativePath)
            return (.alreadyPresent(asset), nil)
        }
        return (.added(asset), result.token)
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
                .invalidArgument, "\(name) is \(data.count) bytes; an original must be 1…\(Self.maximumImportBytes) bytes",
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
            WHERE r.sha256 = ? AND r.type IN (1, 2, 9)
            """
        ).firstRow([.text(digest)], AssetRow.decode)
    }
}
