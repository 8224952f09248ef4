import Foundation
import PhotoLibWire

/// Bytes of a resource at an offset, as ``AssetResourceManager/requestData(for:type:offset:length:)`` delivers them.
public struct AssetResourceChunk: Sendable, Hashable {
    /// Where `data` starts in the resource.
    public var offset: Int
    /// At most 64 KiB of the resource.
    public var data: [UInt8]
    /// The resource's size in bytes.
    public var totalSize: Int
}

/// PhotoKit's `PHAssetResourceManager`: lists an asset's files and streams their bytes,
/// resumably.
public struct AssetResourceManager: Sendable {
    let connection: ClientConnection

    /// The resource manager of `library`'s connection.
    public init(library: PhotoLibrary) {
        self.connection = library.connection
    }

    /// `PHAssetResource.assetResources(for:)`: every file of the asset, photo first.
    /// Throws `notFound` for an unknown asset.
    public func assetResources(for identifier: String) async throws -> [AssetResource] {
        let response = try await connection.unary(
            PhotoLibraryMethods.getAssetResources, Wire.AssetResourcesRequest(assetIdentifier: identifier))
        return try response.resources.map { (wire) throws(PhotoLibError) in try AssetResource(wire) }
    }

    /// `requestData(for:options:dataReceivedHandler:completionHandler:)` as a sequence of
    /// chunks (at most 64 KiB each, ascending, contiguous) from `offset`, for `length`
    /// bytes (0: to the end). Each chunk carries the resource's total size. Stopping the
    /// iteration cancels the transfer; starting again at the next offset resumes it.
    public func requestData(
        for identifier: String, type: AssetResourceType = .photo, offset: Int = 0, length: Int = 0
    ) async throws -> AsyncThrowingStream<AssetResourceChunk, any Error> {
        guard offset >= 0, length >= 0 else {
            throw PhotoLibError(.invalidArgument, "offset (\(offset)) and length (\(length)) must not be negative")
        }
        let chunks = try await connection.serverStreaming(
            PhotoLibraryMethods.requestResourceData,
            Wire.ResourceDataRequest(assetIdentifier: identifier, type: .init(type), offset: UInt64(offset), length: UInt64(length)))
        // Pulled by the caller, chunk by chunk: each chunk's credit goes back when it is
        // taken, so a slow reader slows the server down instead of buffering the resource.
        // Dropping the stream drops the call's responses, which cancels it.
        let reader = ResourceChunkReader(chunks.makeAsyncIterator(), from: offset)
        return AsyncThrowingStream { try await reader.next() }
    }

    /// PhotoKit's `requestAVAsset(forVideo:options:)` / `requestPlayerItem`, as bytes: the
    /// movie of a video asset (its `video` resource) or of a Live Photo (its `pairedVideo`),
    /// streamed like ``requestData(for:type:offset:length:)`` from `offset` (a player seeking
    /// reads from there). Throws `notFound` for an unknown asset, `invalidArgument` for a
    /// photo without a movie.
    public func requestVideoData(
        for identifier: String, offset: Int = 0, length: Int = 0
    ) async throws -> (resource: AssetResource, chunks: AsyncThrowingStream<AssetResourceChunk, any Error>) {
        let resources = try await assetResources(for: identifier)
        guard let movie = resources.first(where: { $0.type == .video }) ?? resources.first(where: { $0.type == .pairedVideo }) else {
            throw PhotoLibError(.invalidArgument, "asset \(identifier) has no movie: it is neither a video nor a Live Photo")
        }
        return (movie, try await requestData(for: identifier, type: movie.type, offset: offset, length: length))
    }

    /// `writeData(for:toFile:options:completionHandler:)`, resumable: bytes go to
    /// `path + ".partial"`, continuing after what an earlier, interrupted call left there,
    /// and the file is renamed to `path` once it holds the whole resource and is synced.
    /// `progress` gets (bytes on disk, total). `type` `nil` writes the asset's original,
    /// whichever it has: a photo's `photo`, a video's `video`.
    ///
    /// What is checked: every chunk continues the transfer exactly (offset, size, the
    /// resource's total), the call ends with the server's OK, and the file ends up exactly
    /// the resource's size (a transfer cut short is `dataLoss`, resumed by the next call).
    /// The whole file's SHA-256 is checked against the digest the library recorded
    /// (`AssetResource.sha256`) when `verify` is set, and always when the call resumed a
    /// `.partial` file (its first bytes came from an earlier run). A mismatch discards the
    /// file with a `dataLoss` error, so the next call starts over. Without `verify`, a fresh
    /// transfer trusts the transport (TCP's checksums; TLS's authenticated encryption) and
    /// the server's file, which the server checks only against its recorded size; `verify`
    /// also catches a library file damaged on the server, at the cost of hashing (about
    /// 0.15 s of CPU per 230 MB, beside the writes).
    ///
    /// The file work runs on a queue of its own (`photolib.client.export`, one per call): each chunk is
    /// written straight from the message that carried it, hashed while hot when checked, and
    /// its flow-control credit goes back once it is written: at most the connection's stream
    /// window of the resource is held in memory (``ClientConfiguration/bulkTransfer`` suits
    /// large resources). The writeback to disk starts as the file grows, so the final
    /// `fsync` has little left to wait for.
    ///
    /// Returns the resource written.
    @discardableResult
    public func writeData(
        for identifier: String, type: AssetResourceType? = .photo, toFile path: String, verify: Bool = false,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws -> AssetResource {
        let resources = try await assetResources(for: identifier)
        // `nil`: the original, whichever the asset has (a photo's `photo`, a video's `video`).
        let wanted: Set<AssetResourceType> = type.map { [$0] } ?? [.photo, .video]
        guard let resource = resources.first(where: { wanted.contains($0.type) }) else {
            throw PhotoLibError(.notFound, "asset \(identifier) has no \(type?.name ?? "original") resource (it has: \(resources.map(\.type.name).joined(separator: ", ")))")
        }
        // The transfer lands in PATH.partial, renamed over PATH: a device or FIFO there would be
        // replaced by a regular file (as root, /dev/null itself).
        guard !FileOutput.isSpecialFile(path) else {
            throw PhotoLibError(
                .failedPrecondition,
                "\(path) is not a regular file: a resource is written to \(path).partial and renamed into place (so an interrupted transfer resumes); give a file path")
        }
        // Nor can the file be renamed over a directory: refused before anything is sent.
        var isDirectory: ObjCBool = false
        guard !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) || !isDirectory.boolValue else {
            throw PhotoLibError(
                .failedPrecondition,
                "\(path) is a directory: give the path of the file to write, e.g. \((path as NSString).appendingPathComponent(resource.originalFilename))")
        }
        let writer = ResourceFileWriter(path: path + ".partial", resource: resource, verify: verify, connection: connection, progress: progress)
        let start = try await writer.open()
        if start < resource.size {
            let request = Wire.ResourceDataRequest(assetIdentifier: identifier, type: .init(resource.type), offset: UInt64(start), length: 0)
            // Cancelling the task cancels the call; the chunks taken before are still written.
            try await connection.consume(PhotoLibraryMethods.requestResourceData.info, request: request.encoded(), timeout: nil) {
                writer.consumer(from: start, $0)
            }
        }
        try await writer.complete(renamingTo: path)
        return resource
    }
}

/// The chunks of one `requestData` transfer, checked to continue it: ascending, contiguous,
/// within the chunk size and the total.
///
/// `@unchecked Sendable`: its iterator and `expected` are used only by the one task that
/// iterates the transfer's stream (an `AsyncThrowingStream` calls its closure once at a time).
private final class ResourceChunkReader: @unchecked Sendable {
    private var chunks: ServerStreamResponses<Wire.ResourceDataChunk>.AsyncIterator
    private var expected: Int

    init(_ chunks: ServerStreamResponses<Wire.ResourceDataChunk>.AsyncIterator, from offset: Int) {
        self.chunks = chunks
        self.expected = offset
    }

    func next() async throws -> AssetResourceChunk? {
        guard let chunk = try await chunks.next() else { return nil }
        guard chunk.offset == UInt64(expected), chunk.data.count <= WireLimits.chunkSize, chunk.totalSize <= UInt64(Int.max),
            chunk.offset + UInt64(chunk.data.count) <= chunk.totalSize
        else {
            throw PhotoLibError(.internalError, "a resource chunk at offset \(chunk.offset) (\(chunk.data.count) bytes of \(chunk.totalSize)) does not continue the transfer at \(expected)", reason: .protocolViolation)
        }
        expected += chunk.data.count
        return AssetResourceChunk(offset: Int(chunk.offset), data: chunk.data, totalSize: Int(chunk.totalSize))
    }
}
