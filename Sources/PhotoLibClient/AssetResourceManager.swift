import Crypto
import Dispatch
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
    /// `path + ".partial"`, continuing after what an earlier, interrupted call left there;
    /// when complete, the whole file's SHA-256 is checked against the server's and the file
    /// is renamed to `path`. A `.partial` file that does not match (longer than the
    /// resource, or a wrong digest at the end) is discarded with a `dataLoss` error, so the
    /// next call starts over. `progress` gets (bytes on disk, total). `type` `nil` writes the
    /// asset's original, whichever it has: a photo's `photo`, a video's `video`.
    ///
    /// The digest is computed as the file is written (the bytes a `.partial` already holds
    /// are read once, first), so the finished file is not read again. Each chunk is written
    /// straight from the message that carried it, and its flow-control credit goes back once
    /// it is written and hashed: at most the connection's stream window of the resource is
    /// held in memory (``ClientConfiguration/bulkTransfer`` suits large resources).
    ///
    /// Returns the resource written.
    @discardableResult
    public func writeData(
        for identifier: String, type: AssetResourceType? = .photo, toFile path: String,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws -> AssetResource {
        let resources = try await assetResources(for: identifier)
        // `nil`: the original, whichever the asset has (a photo's `photo`, a video's `video`).
        let wanted: Set<AssetResourceType> = type.map { [$0] } ?? [.photo, .video]
        guard let resource = resources.first(where: { wanted.contains($0.type) }) else {
            throw PhotoLibError(.notFound, "asset \(identifier) has no \(type?.name ?? "original") resource (it has: \(resources.map(\.type.name).joined(separator: ", ")))")
        }
        let partial = path + ".partial"
        let manager = FileManager.default
        let file = try PartialFile(path: partial, limit: resource.size)
        var existing = SHA256()
        let start = try file.hashExisting(into: &existing)
        let digest = BackgroundDigest(existing)
        progress?(start, resource.size)
        if start < resource.size {
            let request = Wire.ResourceDataRequest(assetIdentifier: identifier, type: .init(resource.type), offset: UInt64(start), length: 0)
            let (id, payloads) = try await connection.startCall(
                PhotoLibraryMethods.requestResourceData.info, requests: [request.encoded()], endStream: true, timeout: nil)
            var written = start
            // Leaving the loop by an error drops `payloads`, which cancels the call.
            for try await payload in payloads {
                let chunk = try Wire.ResourceDataChunk.fields(of: payload)
                let count = chunk.data.count
                guard chunk.offset == UInt64(written), count <= WireLimits.chunkSize, chunk.totalSize == UInt64(resource.size),
                    written + count <= resource.size
                else {
                    throw PhotoLibError(
                        .internalError,
                        "a resource chunk at offset \(chunk.offset) (\(count) bytes of \(chunk.totalSize)) does not continue the transfer at \(written) of \(resource.size)",
                        reason: .protocolViolation)
                }
                try file.append(payload, chunk.data)
                // The chunk's credit goes back once it is hashed too: what waits for the
                // digest queue still counts against the window.
                digest.update(payload, chunk.data) { [connection] in connection.consumed(payload.count, stream: id) }
                written += count
                progress?(written, resource.size)
            }
            guard written == resource.size else {
                throw PhotoLibError(.dataLoss, "the transfer of \(identifier) ended at \(written) of \(resource.size) bytes; run again to resume")
            }
        }
        try file.synchronize()
        file.close()
        let hex = await digest.finalize()
        guard hex == resource.sha256 else {
            try? manager.removeItem(atPath: partial)
            throw PhotoLibError(.dataLoss, "\(partial) does not match the server's SHA-256 of the \(resource.type.name) resource (a stale or damaged partial file); it was removed: run again")
        }
        if manager.fileExists(atPath: path) { try manager.removeItem(atPath: path) }
        try manager.moveItem(atPath: partial, toPath: path)
        return resource
    }
}

/// The SHA-256 of a file being written, computed beside the writes on its own serial queue
/// (`photolib.client.digest`, one per transfer), so that hashing (~0.15 s for 230 MB) overlaps
/// receiving and writing instead of adding to them.
///
/// `@unchecked Sendable`: `digest` is touched only on `queue`.
private final class BackgroundDigest: @unchecked Sendable {
    private let queue = DispatchQueue(label: "photolib.client.digest", qos: .userInitiated)
    private var digest: SHA256

    /// Continues `digest` (the bytes already on disk).
    init(_ digest: SHA256) {
        self.digest = digest
    }

    /// Hashes `payload[range]` after everything given before, then runs `done` (on the queue).
    func update(_ payload: [UInt8], _ range: Range<Int>, then done: @escaping @Sendable () -> Void) {
        queue.async {
            payload.withUnsafeBytes { bytes in self.digest.update(bufferPointer: UnsafeRawBufferPointer(rebasing: bytes[range])) }
            done()
        }
    }

    /// The digest of everything given, as 64 lowercase hex digits, once it is all hashed.
    func finalize() async -> String {
        await withCheckedContinuation { continuation in
            queue.async {
                let bytes = self.digest.finalize()
                continuation.resume(returning: bytes.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined())
            }
        }
    }
}

/// The `.partial` file of ``AssetResourceManager/writeData(for:type:toFile:progress:)``:
/// opened (created if missing, discarded first when it is longer than the resource), read
/// once to hash what it already holds, then appended to with `write(2)`. Used by one task.
private final class PartialFile {
    let path: String
    private var descriptor: Int32

    /// Opens `path` for a resource of `limit` bytes.
    init(path: String, limit: Int) throws(PhotoLibError) {
        self.path = path
        var status = stat()
        if stat(path, &status) == 0, Int(status.st_size) > limit { unlink(path) }
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw PhotoLibError(.failedPrecondition, "cannot open \(path) for writing (\(String(cString: strerror(errno)))): check that the folder exists and is writable")
        }
    }

    deinit { close() }

    /// Feeds the bytes already in the file to `digest`; returns how many there are, with the
    /// file positioned after them.
    func hashExisting(into digest: inout SHA256) throws(PhotoLibError) -> Int {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var total = 0
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw failure("read") }
            if count == 0 { return total }
            digest.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            total += count
        }
    }

    /// Appends `payload[range]`, straight from the payload's storage.
    func append(_ payload: [UInt8], _ range: Range<Int>) throws(PhotoLibError) {
        let failed = payload.withUnsafeBytes { bytes -> PhotoLibError? in
            let data = UnsafeRawBufferPointer(rebasing: bytes[range])
            var done = 0
            while done < data.count {
                let count = write(descriptor, data.baseAddress! + done, data.count - done)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return failure("write") }
                done += count
            }
            return nil
        }
        if let failed { throw failed }
    }

    /// Flushes the file to disk (`fsync`).
    func synchronize() throws(PhotoLibError) {
        guard fsync(descriptor) == 0 else { throw failure("sync") }
    }

    /// Closes the file (again: nothing).
    func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    private func failure(_ operation: String) -> PhotoLibError {
        PhotoLibError(.failedPrecondition, "cannot \(operation) \(path): \(String(cString: strerror(errno)))")
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
