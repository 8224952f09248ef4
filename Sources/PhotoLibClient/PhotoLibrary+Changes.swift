import Foundation
import PhotoLibCore
import PhotoLibWire

/// The outcome of `PhotoLibrary.performChanges(_:)`.
public struct ChangeBatchResult: Sendable, Hashable {
    /// Placeholder label → identifier of the created (or, for a duplicate upload, existing) object.
    public var placeholders: [String: String]
    /// The persistent-change token of the transaction.
    public var changeToken: String

    /// The identifier a placeholder resolved to.
    public func localIdentifier(for placeholder: ObjectPlaceholder) -> String? {
        placeholders[placeholder.localIdentifier]
    }
}

/// Stands for an object created earlier in the same batch: PhotoKit's `PHObjectPlaceholder`.
public struct ObjectPlaceholder: Sendable, Hashable {
    /// The label (`$1`, `$2`…) that other requests of the batch use as the identifier.
    public let localIdentifier: String
}

/// The requests of one `performChanges` batch, applied as one transaction (all or nothing).
///
/// Every method that takes identifiers also takes ``ObjectPlaceholder/localIdentifier`` of
/// objects created earlier in the batch.
public final class ChangeBatch {
    /// The requests so far.
    public private(set) var requests: [ChangeRequest] = []
    private var nextPlaceholder = 1

    init() {}

    private func placeholder() -> ObjectPlaceholder {
        defer { nextPlaceholder += 1 }
        return ObjectPlaceholder(localIdentifier: "$\(nextPlaceholder)")
    }

    /// `PHAssetChangeRequest.creationRequestForAsset`: an asset from uploaded bytes.
    @discardableResult
    public func createAsset(from upload: Upload, creationDate: Date? = nil, location: LocationChange? = nil, isFavorite: Bool = false, isHidden: Bool = false) -> ObjectPlaceholder {
        let label = placeholder()
        requests.append(.createAsset(.init(uploadID: upload.uploadID, placeholder: label.localIdentifier, creationDate: creationDate, location: location, isFavorite: isFavorite, isHidden: isHidden)))
        return label
    }

    /// Moves assets to Recently Deleted.
    public func deleteAssets(_ identifiers: [String]) { requests.append(.deleteAssets(identifiers)) }
    /// Brings assets back from Recently Deleted.
    public func restoreAssets(_ identifiers: [String]) { requests.append(.restoreAssets(identifiers)) }
    /// Removes assets permanently.
    public func purgeAssets(_ identifiers: [String]) { requests.append(.purgeAssets(identifiers)) }

    /// Sets properties of an asset; `nil` leaves one unchanged.
    public func setProperties(of asset: String, isFavorite: Bool? = nil, isHidden: Bool? = nil, creationDate: Date? = nil, location: LocationChange? = nil) {
        requests.append(.setAssetProperties(.init(asset: asset, isFavorite: isFavorite, isHidden: isHidden, creationDate: creationDate, location: location)))
    }

    /// Creates a user album, optionally in a folder.
    @discardableResult
    public func createAlbum(title: String, in folder: String? = nil) -> ObjectPlaceholder {
        let label = placeholder()
        requests.append(.createAlbum(title: title, placeholder: label.localIdentifier, parentFolder: folder))
        return label
    }

    /// Creates a folder, optionally in another folder.
    @discardableResult
    public func createFolder(title: String, in folder: String? = nil) -> ObjectPlaceholder {
        let label = placeholder()
        requests.append(.createFolder(title: title, placeholder: label.localIdentifier, parentFolder: folder))
        return label
    }

    /// Renames an album or folder.
    public func rename(_ collection: String, to title: String) { requests.append(.renameCollection(collection, title: title)) }
    /// Deletes albums or folders.
    public func deleteCollections(_ identifiers: [String]) { requests.append(.deleteCollections(identifiers)) }
    /// Appends assets to an album.
    public func addAssets(_ assets: [String], to album: String) { requests.append(.addAssets(album: album, assets: assets)) }
    /// Inserts assets into an album at an index.
    public func insertAssets(_ assets: [String], in album: String, at index: Int) { requests.append(.insertAssets(album: album, assets: assets, at: index)) }
    /// Removes assets from an album.
    public func removeAssets(_ assets: [String], from album: String) { requests.append(.removeAssets(album: album, assets: assets)) }
    /// Moves the assets at `indexes` to `index` (PhotoKit's `moveAssets(at:to:)`).
    public func moveAssets(in album: String, at indexes: [Int], to index: Int) { requests.append(.moveAssets(album: album, from: indexes, to: index)) }
    /// Sets an album's key (cover) asset; `nil` restores the default.
    public func setKeyAsset(_ asset: String?, of album: String) { requests.append(.setKeyAsset(album: album, asset: asset)) }
    /// Moves albums or folders into a folder (`nil`: top level).
    public func moveCollections(_ identifiers: [String], to folder: String?) { requests.append(.moveCollections(identifiers, toFolder: folder)) }
    /// Adds an already-built request.
    public func append(_ request: ChangeRequest) { requests.append(request) }
}

extension PhotoLibrary {
    /// `PHPhotoLibrary.performChanges`: builds a batch and applies it atomically.
    ///
    /// When one request fails nothing is applied and the thrown `PhotoLibError` has
    /// `failedRequestIndex` set.
    public func performChanges(_ build: (ChangeBatch) throws -> Void) async throws -> ChangeBatchResult {
        let batch = ChangeBatch()
        try build(batch)
        return try await performChanges(batch.requests)
    }

    /// Applies prepared requests atomically.
    public func performChanges(_ requests: [ChangeRequest]) async throws -> ChangeBatchResult {
        guard !requests.isEmpty else { throw PhotoLibError(.invalidArgument, "performChanges needs at least one request") }
        let response = try await connection.unary(PhotoLibraryMethods.performChanges, Wire.PerformChangesRequest(requests))
        return ChangeBatchResult(placeholders: response.placeholderMap, changeToken: response.changeToken)
    }

    /// Uploads a photo's bytes in chunks (client-streaming, flow controlled) and stages them.
    ///
    /// `progress` receives bytes sent so far. The server validates the photo (JPEG, HEIC, PNG
    /// or WebP) and answers with the existing asset when the same bytes are already in the
    /// library. `fileModificationDate` dates a photo that carries no date of its own (no EXIF
    /// DateTimeOriginal), as `photolibd import` dates such a file; `nil`: the upload's time.
    public func upload(
        _ data: [UInt8], filename: String, fileModificationDate: Date? = nil, progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws -> Upload {
        var pieces = [data]
        return try await upload(named: filename, size: data.count, modified: fileModificationDate, progress: progress) { pieces.popLast() ?? [] }
    }

    /// Uploads the photo or video file at `path` in chunks (client-streaming, flow controlled)
    /// and stages it, like ``upload(_:filename:fileModificationDate:progress:)`` but reading the file a piece
    /// (1 MiB) at a time off the cooperative pool: a video of many GiB is never held in memory.
    /// `filename` defaults to the file's name.
    ///
    /// The server takes photos up to 256 MiB and videos up to 16 GiB by default; a file that
    /// changes size while it is sent is refused. A photo or movie that carries no date of its
    /// own is dated by the file's modification time, as `photolibd import` dates it.
    public func upload(fileAt path: String, filename: String? = nil, progress: (@Sendable (Int, Int) -> Void)? = nil) async throws -> Upload {
        let reader = try await UploadFileReader(path: path)
        return try await upload(
            named: filename ?? (path as NSString).lastPathComponent, size: reader.size, modified: reader.modificationDate, progress: progress
        ) {
            try await reader.nextPiece()
        }
    }

    /// Sends an upload of `size` bytes, the pieces `nextPiece` returns (empty at the end), in
    /// chunks after a header whose type is read from the first piece's signature
    /// (``OriginalFileType/init(signature:)``; none when it names no known type: the server
    /// reads the bytes anyway) and which carries `modified`, the file's modification time, if
    /// known. Pieces adding up to more or less than `size` fail the upload.
    private func upload(
        named name: String, size: Int, modified: Date?, progress: (@Sendable (Int, Int) -> Void)?, nextPiece: () async throws -> [UInt8]
    ) async throws -> Upload {
        let result = try await connection.clientStreaming(PhotoLibraryMethods.uploadAsset, timeout: nil) { send in
            var piece = try await nextPiece()
            let type = OriginalFileType(signature: Array(piece.prefix(OriginalFileType.signatureLength)))?.uniformTypeIdentifier ?? ""
            let header = Wire.UploadHeader(
                originalFilename: name, size: UInt64(size), uniformTypeIdentifier: type,
                fileModificationDate: modified.map { Wire.TimestampValue(unixMs: Wire.milliseconds($0)) })
            try await send(Wire.UploadChunk(part: .header(header)))
            var sent = 0
            while !piece.isEmpty {
                guard sent + piece.count <= size else {
                    throw PhotoLibError(.failedPrecondition, "\(name) grew while it was uploaded; upload it again once it is complete")
                }
                var offset = 0
                while offset < piece.count {
                    let end = min(offset + WireLimits.chunkSize, piece.count)
                    try await send(Wire.UploadChunk(part: .data(Array(piece[offset..<end]))))
                    offset = end
                    progress?(sent + offset, size)
                }
                sent += piece.count
                piece = try await nextPiece()
            }
            guard sent == size else {
                throw PhotoLibError(.failedPrecondition, "\(name) shrank while it was uploaded (\(sent) of \(size) bytes); upload it again")
            }
        }
        return try Upload(result)
    }
}
