import Crypto
import Foundation
import PhotoLibCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension PhotoLibrary {
    /// The largest photo a library takes by default (``ImportLimits/photoBytes``), and the most
    /// any original handed over in memory (``addPhoto(_:metadata:pairingWith:)``,
    /// ``stageUpload(_:metadata:now:)-([UInt8],_,_)``) may have: 256 MiB. A photo is decoded
    /// from memory, so this bounds the memory one import or upload of a photo holds.
    public static let maximumImportBytes = 256 * 1024 * 1024

    /// The largest video a library takes by default (``ImportLimits/videoBytes``): 16 GiB, an
    /// iPhone's 4K video of over half an hour. A video is copied from its file in a bounded
    /// buffer (``addVideo(fileAt:metadata:pairingWith:bufferSize:)``) or spooled as it is
    /// uploaded, and inspected where it lies: never held in memory, so this bounds disk alone.
    public static let maximumVideoImportBytes = 16 * 1024 * 1024 * 1024

    /// The buffer a video is copied through by default (1 MiB).
    public static let defaultCopyBufferSize = 1 << 20

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
        let digest = try checkedDigest(data, metadata: metadata, what: name)
        if let existing = try withDatabase({ (database) throws(PhotoLibError) in try Self.asset(withOriginalSHA256: digest, in: database) }) {
            return (.alreadyPresent(existing), nil)
        }
        if let partner { try LocalIdentifier.validate(partner) }
        let original = NewOriginal(
            metadata: metadata, sha256: digest, byteSize: data.count, creationDate: Microseconds.from(metadata.creationDate),
            location: metadata.location)
        return try insertOriginal(original, pairingWith: partner) { (relativePath) throws(PhotoLibError) in
            try files.writeAtomically(data, to: relativePath)
        }
    }

    /// Adds a video from the file at `path`, never holding it in memory: the file is copied
    /// into the library `bufferSize` bytes at a time (default ``defaultCopyBufferSize``) and
    /// hashed on the way; its first bytes must say it is the metadata's file type (a movie),
    /// and it may have up to ``ImportLimits/videoBytes`` (default ``maximumVideoImportBytes``).
    /// The disk must have room for it beside the library's reserve and the uploads and imports
    /// in progress (``DiskReserve``:
    /// `resourceExhausted` "disk full" before anything is copied). The caller has inspected the
    /// movie where it lies and read `metadata` from it.
    ///
    /// Otherwise as ``addPhoto(_:metadata:pairingWith:)``: the same bytes give `.alreadyPresent`
    /// (the copy is removed unsynced), a new file is placed atomically (fsync, link, directory
    /// fsync) and recorded in one transaction, and the movie pairs with its still as a Live Photo.
    public func addVideo(
        fileAt path: String, metadata: ImportMetadata, pairingWith partner: String? = nil, bufferSize: Int = defaultCopyBufferSize
    ) throws(PhotoLibError) -> ImportOutcome {
        try addVideoRecordingChange(fileAt: path, metadata: metadata, pairingWith: partner, bufferSize: bufferSize).outcome
    }

    /// ``addVideo(fileAt:metadata:pairingWith:bufferSize:)``, also returning the change token of
    /// the import's transaction, or `nil` when the bytes were present already.
    public func addVideoRecordingChange(
        fileAt path: String, metadata: ImportMetadata, pairingWith partner: String? = nil, bufferSize: Int = defaultCopyBufferSize
    ) throws(PhotoLibError) -> (outcome: ImportOutcome, token: Int64?) {
        try metadata.validate()
        let name = metadata.originalFilename
        guard metadata.fileType.isVideo else {
            throw PhotoLibError(
                .invalidArgument, "\(name) is a \(metadata.fileType.rawValue.uppercased()) photo; photos are added from their bytes (addPhoto), only videos from a file")
        }
        guard bufferSize > 0 else { throw PhotoLibError(.invalidArgument, "a copy buffer of \(bufferSize) bytes is too small") }
        if let partner { try LocalIdentifier.validate(partner) }
        let limit = importLimits.videoBytes
        var info = stat()
        guard stat(path, &info) == 0 else { throw FileStore.error(errno, "read \(name)") }
        let size = Int(info.st_size)
        guard size > 0, size <= limit else {
            throw PhotoLibError(
                .invalidArgument, "\(name) is \(size) bytes; a video must be 1…\(limit) bytes (\(limit >> 20) MiB)", reason: .invalidImage)
        }
        let room = try diskReserve.reserveRoom(for: size, what: "this video")
        // Promised until the copy is in place or given up, whichever way this returns.
        defer { room.release() }
        let copy = try files.copyIn(from: path, bufferSize: bufferSize, maximumSize: limit) { (head) throws(PhotoLibError) in
            try Self.checkFileType(head, is: metadata.fileType, name: name)
        }
        let existing: Asset?
        do {
            existing = try withDatabase { (database) throws(PhotoLibError) in try Self.asset(withOriginalSHA256: copy.sha256, in: database) }
        } catch {
            files.discard(copy)
            throw error
        }
        if let existing {
            files.discard(copy)
            return (.alreadyPresent(existing), nil)
        }
        let original = NewOriginal(
            metadata: metadata, sha256: copy.sha256, byteSize: copy.byteSize, creationDate: Microseconds.from(metadata.creationDate),
            location: metadata.location)
        do {
            return try insertOriginal(original, pairingWith: partner) { (relativePath) throws(PhotoLibError) in
                try files.place(copy, at: relativePath)
            }
        } catch {
            files.discard(copy)
            throw error
        }
    }

    /// Places a checked, hashed, not yet present original with `placeFile` (outside the
    /// transaction: the writer is not held while it syncs) and records it in one batch;
    /// removes the file again when the batch fails, and answers `.alreadyPresent` when another
    /// process imported the same bytes in between.
    private func insertOriginal(
        _ original: NewOriginal, pairingWith partner: String?, placeFile: (String) throws(PhotoLibError) -> Void
    ) throws(PhotoLibError) -> (outcome: ImportOutcome, token: Int64?) {
        let now = Microseconds.now
        let relativePath = original.path
        try placeFile(relativePath)
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

    /// What every original handed over in memory goes through, imported or uploaded: the
    /// metadata is valid, the bytes are 1…``ImportLimits/photoBytes`` long (photos and videos
    /// alike: a larger video comes from its file, ``addVideo(fileAt:metadata:pairingWith:bufferSize:)``)
    /// and start like the metadata's file type (the caller has decoded them fully); returns
    /// their SHA-256 in hex, which deduplicates.
    func checkedDigest(_ data: [UInt8], metadata: ImportMetadata, what name: String) throws(PhotoLibError) -> String {
        try metadata.validate()
        let limit = importLimits.photoBytes
        guard !data.isEmpty, data.count <= limit else {
            throw PhotoLibError(
                .invalidArgument, "\(name) is \(data.count) bytes; an original must be 1…\(limit) bytes (\(limit >> 20) MiB)",
                reason: .invalidImage)
        }
        try Self.checkFileType(Array(data.prefix(OriginalFileType.signatureLength)), is: metadata.fileType, name: name)
        return Self.sha256Hex(data)
    }

    /// Throws `invalidArgument` unless `head` (an original's first
    /// ``OriginalFileType/signatureLength`` bytes, fewer for a shorter file) starts like `type`.
    static func checkFileType(_ head: [UInt8], is type: OriginalFileType, name: String) throws(PhotoLibError) {
        guard head.count >= 4, type.matches(head) else {
            throw PhotoLibError(
                .invalidArgument, "\(name) is not a \(type.rawValue.uppercased()) file (its first bytes do not say so)", reason: .invalidImage)
        }
    }

    /// The SHA-256 of `data` as 64 lowercase hex digits: how the library names content.
    static func sha256Hex(_ data: [UInt8]) -> String {
        SHA256.hash(data: data).map { OwnerToken.hexByte($0) }.joined()
    }

    /// The asset whose original has this SHA-256, if any.
    static func asset(withOriginalSHA256 digest: String, in database: Database) throws(PhotoLibError) -> Asset? {
        try database.prepare(
            """
            SELECT \(AssetRow.columns) FROM asset_resource r JOIN asset a ON a.id = r.asset_id
            WHERE r.sha256 = ? AND r.type IN (1, 2, 9)
            """
        ).firstRow([.text(digest)], AssetRow.decode)
    }
}
