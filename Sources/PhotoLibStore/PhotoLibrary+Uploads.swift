import Foundation
import PhotoLibCore

/// How long staged uploads live and how many may wait at once (given to ``PhotoLibrary/open(at:createIfMissing:uploadLimits:importLimits:diskReserveSize:readers:)``).
public struct UploadLimits: Sendable, Hashable {
    /// Seconds a staged upload stays usable (default one hour).
    public var lifetime: TimeInterval
    /// The most unexpired staged uploads at once (default 1,000).
    public var maximumCount: Int

    /// Creates limits.
    public init(lifetime: TimeInterval = 3600, maximumCount: Int = 1000) {
        self.lifetime = lifetime
        self.maximumCount = maximumCount
    }

    /// Throws `invalidArgument` for a non-positive lifetime or count.
    func validate() throws(PhotoLibError) {
        guard lifetime.isFinite, lifetime > 0, lifetime <= 366 * 24 * 3600 else {
            throw PhotoLibError(.invalidArgument, "upload lifetime \(lifetime) s must be more than 0 and at most a year")
        }
        guard maximumCount > 0 else {
            throw PhotoLibError(.invalidArgument, "the staged-upload limit \(maximumCount) must be at least 1")
        }
    }
}

/// A `staged_upload` row.
struct StagedUploadRecord {
    var rowID: Int64
    var uploadID: String
    var filePath: String
    var sha256: String
    var byteSize: Int
    var metadata: ImportMetadata
    var expires: Int64

    static let columns = """
        id, upload_id, file_path, sha256, byte_size, original_filename, media_type, media_subtypes, \
        pixel_width, pixel_height, orientation, creation_date, latitude, longitude, altitude, expires, uti, \
        duration, content_identifier
        """

    static func decode(_ row: Statement) throws(PhotoLibError) -> StagedUploadRecord {
        guard let mediaType = MediaType(rawValue: row.int(6)), let subtypes = UInt32(exactly: row.int64(7)) else {
            throw PhotoLibError(.dataLoss, "staged upload \(row.text(1)) has an invalid media type in the database")
        }
        var location: Location?
        if let latitude = row.optionalDouble(12), let longitude = row.optionalDouble(13) {
            location = Location(latitude: latitude, longitude: longitude, altitude: row.optionalDouble(14))
        }
        let metadata = ImportMetadata(
            originalFilename: row.text(5), pixelWidth: row.int(8), pixelHeight: row.int(9),
            creationDate: Microseconds.date(row.int64(11)), location: location, mediaType: mediaType,
            mediaSubtypes: MediaSubtypes(rawValue: subtypes), orientation: row.int(10),
            fileType: OriginalFileType(uniformTypeIdentifier: row.text(16)) ?? .jpeg, duration: row.double(17),
            contentIdentifier: row.optionalText(18))
        return StagedUploadRecord(
            rowID: row.int64(0), uploadID: row.text(1), filePath: row.text(2), sha256: row.text(3), byteSize: row.int(4),
            metadata: metadata, expires: row.int64(15))
    }
}

extension PhotoLibrary {
    /// Stores an upload's bytes until a `createAsset` request uses them.
    ///
    /// The caller (the server) has already checked that the bytes decode and read
    /// `metadata` from them; the store only checks sizes and the file type's signature. The file is
    /// written atomically to `uploads/<uploadID>` (temp file, fsync, rename) and recorded in
    /// `staged_upload`, expiring after ``UploadLimits/lifetime``. When the same bytes are
    /// already an asset, `Upload.existingAssetIdentifier` names it.
    ///
    /// Throws `invalidArgument` for empty, over-large (> ``ImportLimits/photoBytes``) bytes, bytes
    /// not of the metadata's file type, and bad metadata, `resourceExhausted` when ``UploadLimits/maximumCount``
    /// unexpired uploads are waiting already.
    public func stageUpload(_ data: [UInt8], metadata: ImportMetadata, now: Date = Date()) throws(PhotoLibError) -> Upload {
        let digest = try checkedDigest(data, metadata: metadata, what: "upload \(metadata.originalFilename)")
        return try recordUpload(digest: digest, size: data.count, metadata: metadata, now: now) { (relativePath) throws(PhotoLibError) in
            try files.writeAtomically(data, to: relativePath)
        }
    }

    /// Stages a complete spooled upload (see ``beginUpload(size:)``) like
    /// ``stageUpload(_:metadata:now:)-([UInt8],_,_)`` without copying its bytes: the spool's synced file is
    /// linked into `uploads/`. The caller has checked that the bytes decode and read
    /// `metadata` from them.
    public func stageUpload(_ spool: UploadSpool, metadata: ImportMetadata, now: Date = Date()) throws(PhotoLibError) -> Upload {
        try metadata.validate()
        let digest = try spool.finish()
        let upload = try recordUpload(digest: digest, size: spool.expectedSize, metadata: metadata, now: now) { (relativePath) throws(PhotoLibError) in
            try files.link(spool.relativePath, to: relativePath)
        }
        spool.markStaged()
        return upload
    }

    /// Checks the staged-upload limit, puts the bytes at `uploads/<id>` with `placeFile`,
    /// and records the row (removing the file again when that fails).
    private func recordUpload(
        digest: String, size: Int, metadata: ImportMetadata, now: Date,
        placeFile: (String) throws(PhotoLibError) -> Void
    ) throws(PhotoLibError) -> Upload {
        let name = metadata.originalFilename
        let created = try Microseconds.validated(now, "upload time")
        let expires = created + Int64(uploadLimits.lifetime * 1_000_000)
        let uploadID = UUID().uuidString.lowercased()
        let relativePath = FileStore.uploadPath(uploadID: uploadID)
        // Refuse early, before placing the bytes, when the limit is reached; checked again
        // under the write lock.
        let waiting = try withDatabase { (database) throws(PhotoLibError) in
            try database.prepare("SELECT count(*) FROM staged_upload WHERE expires > ?").firstRow([.integer(created)]) { $0.int(0) } ?? 0
        }
        guard waiting < uploadLimits.maximumCount else { throw uploadLimitError() }

        try placeFile(relativePath)
        let existing: String?
        do {
            existing = try write { (database) throws(PhotoLibError) in
                let waiting = try database.prepare("SELECT count(*) FROM staged_upload WHERE expires > ?")
                    .firstRow([.integer(created)]) { $0.int(0) } ?? 0
                guard waiting < uploadLimits.maximumCount else { throw uploadLimitError() }
                let location = metadata.location
                try database.prepare(
                    """
                    INSERT INTO staged_upload (upload_id, file_path, sha256, byte_size, original_filename, media_type,
                        media_subtypes, pixel_width, pixel_height, orientation, creation_date, latitude, longitude,
                        altitude, created, expires, uti, duration, content_identifier)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
                ).execute([
                    .text(uploadID), .text(relativePath), .text(digest), .int(size), .text(name),
                    .int(metadata.mediaType.rawValue), .integer(Int64(metadata.mediaSubtypes.rawValue)),
                    .int(metadata.pixelWidth), .int(metadata.pixelHeight), .int(metadata.orientation),
                    .integer(Microseconds.from(metadata.creationDate)), .optionalReal(location?.latitude),
                    .optionalReal(location?.longitude), .optionalReal(location?.altitude), .integer(created), .integer(expires),
                    .text(metadata.fileType.uniformTypeIdentifier), .real(metadata.duration), .optionalText(metadata.contentIdentifier),
                ])
                return try Self.asset(withOriginalSHA256: digest, in: database)?.localIdentifier
            }
        } catch {
            // Not recorded: the file is an orphan (recovery would remove it too).
            try? files.remove(relativePath)
            throw error
        }
        return Upload(
            uploadID: uploadID, sha256: digest, size: size, existingAssetIdentifier: existing,
            expiresAt: Microseconds.date(expires))
    }

    /// The staged upload with this id, if it exists and has not expired at `now`.
    public func stagedUpload(withID uploadID: String, now: Date = Date()) throws(PhotoLibError) -> Upload? {
        try Self.validateUploadID(uploadID)
        return try withDatabase { (database) throws(PhotoLibError) in
            guard let record = try database.prepare("SELECT \(StagedUploadRecord.columns) FROM staged_upload WHERE upload_id = ?")
                .firstRow([.text(uploadID)], StagedUploadRecord.decode), record.expires > Microseconds.from(now)
            else { return nil }
            return Upload(
                uploadID: uploadID, sha256: record.sha256, size: record.byteSize,
                existingAssetIdentifier: try Self.asset(withOriginalSHA256: record.sha256, in: database)?.localIdentifier,
                expiresAt: Microseconds.date(record.expires))
        }
    }

    /// Removes staged uploads that expired at or before `now` (rows, then files) and returns
    /// how many. A file that cannot be removed is left for recovery.
    @discardableResult
    public func purgeExpiredUploads(now: Date = Date()) throws(PhotoLibError) -> Int {
        let cutoff = Microseconds.from(now)
        let paths = try writeUsingReserveIfFull { () throws(PhotoLibError) in
            try write { (database) throws(PhotoLibError) in
                try database.prepare("DELETE FROM staged_upload WHERE expires <= ? RETURNING file_path")
                    .rows([.integer(cutoff)]) { $0.text(0) }
            }
        }
        for path in paths { try? files.remove(path) }
        return paths.count
    }

    private func uploadLimitError() -> PhotoLibError {
        PhotoLibError(
            .resourceExhausted,
            "\(uploadLimits.maximumCount) staged uploads are waiting already; use them in createAsset requests or wait for them to expire")
    }

    /// Throws `invalidArgument` unless `uploadID` looks like an upload id (printable ASCII, 1…128).
    static func validateUploadID(_ uploadID: String) throws(PhotoLibError) {
        guard !uploadID.isEmpty, uploadID.utf8.count <= 128,
            uploadID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != 0x2F })
        else {
            throw PhotoLibError(.invalidArgument, "'\(uploadID.prefix(40))' is not an upload id")
        }
    }
}
