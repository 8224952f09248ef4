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
/// and hands the messages to this queue a few at a time (``Chunks/handOverBytes``: one wake-up
/// of this queue per few chunks, not per chunk), which writes the data with `write(2)` straight from
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

    /// Writes the chunks in order (see ``write(_:_:stream:)``), then returns credit (see ``creditBatch``).
    private func write(_ chunks: [(payload: [UInt8], data: Range<Int>)], stream id: UInt32) {
        var bytes = 0
        for chunk in chunks {
            write(chunk.payload, chunk.data, stream: id)
            bytes += chunk.payload.count
        }
        uncredited += bytes
        let left = queued.subtract(bytes, ordering: .relaxed).newValue
        if uncredited >= Self.creditBatch || left == 0 {
            connection.consumed(uncredited, stream: id)
            uncredited = 0
        }
    }

    /// Writes the data of the chunk `payload` (at `data`), hashes it and starts writeback when due.
    private func write(_ payload: [UInt8], _ data: Range<Int>, stream id: UInt32) {
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
    /// The task waiting in ``ClientConnection/consume(_:request:timeout:_:)`` is counted as
    /// resumed only now (``ResumedTasks``), so other tasks' requests are not held while the
    /// writes finish.
    private func finish(_ error: PhotoLibError?, _ continuation: CheckedContinuation<Void, any Error>) {
        queue.async { [self] in
            connection.resumedTasks.resuming()
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
    /// Chunks go to the writer's queue once ``handOverBytes`` of them gathered, with the last
    /// chunk of the resource, or when the call ends.
    ///
    /// `@unchecked Sendable`: confined to the connection's queue (see ``ResponseConsumer``).
    private final class Chunks: ResponseConsumer, @unchecked Sendable {
        private let writer: ResourceFileWriter
        private let continuation: CheckedContinuation<Void, any Error>
        private var expected: Int
        private var stream: UInt32 = 0
        /// Chunks not handed to the writer yet, and their message bytes.
        private var gathered: [(payload: [UInt8], data: Range<Int>)] = []
        private var gatheredBytes = 0
        /// Message bytes gathered before they go to the writer: 256 KiB, or a quarter of the
        /// smaller receive window when that is less, so the server always has credit for
        /// more (what is gathered waits for the next chunk, whose arrival needs credit).
        let handOverBytes: Int

        init(writer: ResourceFileWriter, from offset: Int, continuation: CheckedContinuation<Void, any Error>) {
            self.writer = writer
            self.expected = offset
            self.continuation = continuation
            let configuration = writer.connection.configuration
            handOverBytes = min(256 << 10, configuration.initialStreamWindow / 4, configuration.initialConnectionWindow / 4)
        }

        /// Credit goes back once a chunk is written (``ResourceFileWriter/write(_:_:stream:)``).
        var returnsCreditOnReceipt: Bool { false }

        /// The writer's queue resumes the task once the chunks are written.
        var resumesInFinish: Bool { false }

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
            gathered.append((payload, chunk.data))
            gatheredBytes += payload.count
            if gatheredBytes >= handOverBytes || expected == size { handOver() }
        }

        func finish(_ error: PhotoLibError?) {
            handOver()
            writer.finish(error, continuation)
        }

        /// Hands the gathered chunks to the writer's queue.
        private func handOver() {
            guard !gathered.isEmpty else { return }
            let (writer, id, chunks) = (writer, stream, gathered)
            writer.queued.add(gatheredBytes, ordering: .relaxed)
            gathered = []
            gatheredBytes = 0
            writer.queue.async { writer.write(chunks, stream: id) }
        }
    }
}
