import Crypto
import Dispatch
import Foundation
import PhotoLibCore
import PhotoLibWire
import Synchronization

/// Writes one resource into its `.partial` file for
/// ``AssetResourceManager/writeData(for:type:toFile:verify:progress:)``: the file work on a
/// serial queue of its own (`photolib.client.export`, one per transfer), the call's responses
/// taken on the connection's queue by its ``consumer(_:)``, so that no task wakes per chunk.
///
/// The path of a chunk: the connection's queue checks it continues the transfer (offset,
/// size, total) with its data left in place in the message (``Wire/ResourceDataChunk/fields(of:)``)
/// and hands the message to this queue, which writes the data with `write(2)` straight from
/// the message, hashes it while it is hot in the cache (when the transfer is checked), starts
/// the writeback of every 8 MiB (``PartialFile/startWriteback()``), and only then returns the
/// chunk's flow-control credit (in batches of ``creditBatch``, or at once when nothing more
/// waits): what waits here counts against the call's receive window, so at most one stream
/// window of the resource (4 MiB with ``ClientConfiguration/bulkTransfer``) is held in memory.
///
/// `@unchecked Sendable`: its `var`s are touched only on ``queue``; ``queued`` is atomic.
final class ResourceFileWriter: @unchecked Sendable {
    /// The file work of one transfer: opening and hashing what a `.partial` holds, writes,
    /// writeback, `fsync`, the digest check and the rename. Blocking file I/O, never on the
    /// connection's queue or the cooperative pool.
    private let queue = DispatchQueue(label: "photolib.client.export", qos: .userInitiated)
    private let path: String
    private let resource: AssetResource
    private let verify: Bool
    private let connection: ClientConnection
    private let progress: (@Sendable (Int, Int) -> Void)?
    /// Message bytes handed to ``queue`` and not written yet (added on the connection's queue).
    private let queued = Atomic<Int>(0)

    private var file: PartialFile?
    /// The digest of what the file holds, when the transfer is checked.
    private var digest: SHA256?
    /// Bytes the file holds.
    private var written = 0
    /// Message bytes written whose credit has not gone back yet.
    private var uncredited = 0
    /// A failed write: the call was cancelled, and this is the transfer's error.
    private var failure: PhotoLibError?

    /// Credit goes back after this many message bytes are written, or sooner when nothing
    /// more waits (so the server never waits for credit the writer keeps).
    static let creditBatch = 512 << 10

    /// A writer of `resource` into `path` (its `.partial` file); `verify`: check the whole
    /// file's SHA-256 against the resource's even when nothing was there before.
    init(path: String, resource: AssetResource, verify: Bool, connection: ClientConnection, progress: (@Sendable (Int, Int) -> Void)?) {
        self.path = path
        self.resource = resource
        self.verify = verify
        self.connection = connection
        self.progress = progress
    }

    /// Opens the `.partial` file (see ``PartialFile``) and returns how many bytes it already
    /// holds, where the transfer resumes. Bytes an earlier run left there are hashed: such a
    /// transfer is always checked against the resource's SHA-256 at the end.
    func open() async throws -> Int {
        try await run { [self] () throws(PhotoLibError) -> Int in
            let file = try PartialFile(path: path, limit: resource.size)
            self.file = file
            var existing = SHA256()
            written = try file.hashExisting(into: &existing)
            if verify || written > 0 { digest = existing }
            progress?(written, resource.size)
            return written
        }
    }

    /// The consumer of the `RequestResourceData` call that continues the file from `offset`
    /// (what ``open()`` answered), reporting the call's end to `continuation` once every chunk
    /// it took is written.
    func consumer(from offset: Int, _ continuation: CheckedContinuation<Void, any Error>) -> any ResponseConsumer {
        Chunks(writer: self, from: offset, continuation: continuation)
    }

    /// Once the transfer is over: checks the file holds the whole resource, syncs it, checks
    /// its SHA-256 when the transfer is checked (a mismatch removes the file: a stale or
    /// damaged partial file, so the next run starts over), and renames it to `destination`.
    func complete(renamingTo destination: String) async throws {
        try await run { [self] () throws(PhotoLibError) in
            guard let file else { throw PhotoLibError(.internalError, "the transfer of \(path) was not opened") }
            defer { file.close() }
            guard written == resource.size else {
                throw PhotoLibError(.dataLoss, "the transfer of \(resource.assetIdentifier) ended at \(written) of \(resource.size) bytes; run again to resume")
            }
            file.startWriteback()
            try file.synchronize()
            if let digest {
                let hex = digest.finalize().map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
                guard hex == resource.sha256 else {
                    unlink(path)
                    throw PhotoLibError(.dataLoss, "\(path) does not match the server's SHA-256 of the \(resource.type.name) resource (a stale or damaged partial file, or a library file changed on the server); it was removed: run again")
                }
            }
            if rename(path, destination) != 0 {
                throw PhotoLibError(.failedPrecondition, "cannot rename \(path) to \(destination): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Runs `body` on ``queue`` and returns its result.
    private func run<T: Sendable>(_ body: @escaping @Sendable () throws(PhotoLibError) -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do throws(PhotoLibError) {
                    continuation.resume(returning: try body())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    // MARK: On the queue

    /// Writes the data of the chunk `payload` (at `data`), hashes it, starts writeback when
    /// due, and returns credit (see ``creditBatch``).
    private func write(_ payload: [UInt8], _ data: Range<Int>, stream id: UInt32) {
        defer {
            uncredited += payload.count
            let left = queued.subtract(payload.count, ordering: .relaxed).newValue
            if uncredited >= Self.creditBatch || left == 0 {
                connection.consumed(uncredited, stream: id)
                uncredited = 0
            }
        }
        guard failure == nil, let file else { return }
        let failed = payload.withUnsafeBytes { bytes -> PhotoLibError? in
            let chunk = UnsafeRawBufferPointer(rebasing: bytes[data])
            do throws(PhotoLibError) {
                try file.append(chunk)
            } catch {
                return error
            }
            digest?.update(bufferPointer: chunk)
            return nil
        }
        if let failed {
            failure = failed
            connection.cancel(id)
            return
        }
        written += data.count
        progress?(written, resource.size)
    }

    /// The call is over (`error`: why it failed): after every chunk taken before it is written.
    private func finish(_ error: PhotoLibError?, _ continuation: CheckedContinuation<Void, any Error>) {
        queue.async { [self] in
            if let failure = failure ?? error {
                file?.close()
                continuation.resume(throwing: failure)
            } else {
                continuation.resume()
            }
        }
    }

    /// The transfer's responses, on the connection's queue: each chunk must continue the
    /// transfer where the one before ended, within the chunk size and the resource's size.
    ///
    /// `@unchecked Sendable`: confined to the connection's queue (see ``ResponseConsumer``).
    private final class Chunks: ResponseConsumer, @unchecked Sendable {
        private let writer: ResourceFileWriter
        private let continuation: CheckedContinuation<Void, any Error>
        private var expected: Int
        private var stream: UInt32 = 0

        init(writer: ResourceFileWriter, from offset: Int, continuation: CheckedContinuation<Void, any Error>) {
            self.writer = writer
            self.expected = offset
            self.continuation = continuation
        }

        /// Credit goes back once a chunk is written (``ResourceFileWriter/write(_:_:stream:)``).
        var returnsCreditOnReceipt: Bool { false }

        func opened(stream id: UInt32) {
            stream = id
        }

        func receive(_ payload: [UInt8]) throws(PhotoLibError) {
            let chunk = try Wire.ResourceDataChunk.fields(of: payload)
            let count = chunk.data.count, size = writer.resource.size
            guard chunk.offset == UInt64(expected), count <= WireLimits.chunkSize, chunk.totalSize == UInt64(size), expected + count <= size else {
                throw PhotoLibError(
                    .internalError,
                    "a resource chunk at offset \(chunk.offset) (\(count) bytes of \(chunk.totalSize)) does not continue the transfer at \(expected) of \(size)",
                    reason: .protocolViolation)
            }
            expected += count
            writer.queued.add(payload.count, ordering: .relaxed)
            let (writer, id) = (writer, stream)
            writer.queue.async { writer.write(payload, chunk.data, stream: id) }
        }

        func finish(_ error: PhotoLibError?) {
            writer.finish(error, continuation)
        }
    }
}
