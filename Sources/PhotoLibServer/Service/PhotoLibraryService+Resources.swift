import Foundation
import PhotoLibCore
import PhotoLibNet
import PhotoLibStore
import PhotoLibWire

extension PhotoLibraryService {
    /// Registers `GetAssetResources` and `RequestResourceData`.
    func registerResourceRoutes(in router: inout RPCRouter) {
        router.register(PhotoLibraryMethods.getAssetResources) { [self] call in try await getAssetResources(call) }
        router.register(PhotoLibraryMethods.requestResourceData) { [self] call in try await requestResourceData(call) }
    }

    /// `PHAssetResource.assetResources(for:)`: every file of the asset.
    func getAssetResources(_ call: ServerCall<Wire.AssetResourcesRequest, Wire.AssetResourcesResponse>) async throws {
        let request = try await call.singleRequest()
        let library = view(call.session), asset = request.assetIdentifier
        let records = try await libraryIO.run { () throws(PhotoLibError) in try library.resources(forAsset: asset) }
        try await call.send(Wire.AssetResourcesResponse(resources: records.map { Wire.AssetResource($0.resource) }))
    }

    /// `requestData(for:options:)`: the resource's bytes from `offset` (for `length` bytes,
    /// or to the end), in chunks of at most 64 KiB (``WireLimits/chunkSize``), each sent as
    /// flow control allows (``streamChunks(_:from:to:send:)``).
    func requestResourceData(_ call: ServerCall<Wire.ResourceDataRequest, Wire.ResourceDataChunk>) async throws {
        let wire = try await call.singleRequest()
        let request = (assetIdentifier: wire.assetIdentifier, type: try wire.type.domain(field: "ResourceDataRequest.type"))
        let library = view(call.session)
        let records = try await libraryIO.run { () throws(PhotoLibError) in try library.resources(forAsset: request.assetIdentifier) }
        guard let record = records.first(where: { $0.type == request.type }) else {
            let available = records.map(\.type.name).joined(separator: ", ")
            throw PhotoLibError(.notFound, "asset \(request.assetIdentifier) has no \(request.type.name) resource (it has: \(available))")
        }
        let total = record.byteSize
        guard wire.offset <= UInt64(total) else {
            throw PhotoLibError(.outOfRange, "offset \(wire.offset) is past the end of the \(total)-byte \(request.type.name) resource")
        }
        let start = Int(wire.offset)
        let end = wire.length == 0 ? total : start + min(total - start, Int(clamping: wire.length))
        if start == end {
            try await call.send(Wire.ResourceDataChunk(offset: UInt64(start), totalSize: UInt64(total)))
            return
        }
        if call.sendsFiles {
            try await sendFileChunks(record, from: start, to: end) { messages in try await call.send(files: messages) }
        } else {
            try await streamChunks(record, from: start, to: end) { payloads in try await call.send(encoded: payloads) }
        }
    }

    /// On plain TCP: sends bytes `start..<end` of `record`'s file as `ResourceDataChunk`s of at
    /// most 64 KiB whose data the socket sends with `sendfile(2)`, straight from the page
    /// cache to the socket: nothing is read into memory (no read-ahead budget either). Each
    /// message is its encoded first bytes (``Wire/ResourceDataChunk/prefix(offset:totalSize:dataCount:)``)
    /// and a ``FileRegion`` of the file, which the region keeps open; one hop to the
    /// connection hands it ``resourceFileBatchBytes`` of them, each sent as flow control and
    /// the socket's send queue allow (their bytes count against its bound).
    func sendFileChunks(
        _ record: AssetResourceRecord, from start: Int, to end: Int, send: ([(prefix: [UInt8], file: FileRegion)]) async throws -> Void
    ) async throws {
        let total = UInt64(record.byteSize)
        let file = try await openLibraryFile(record)
        var offset = start
        while offset < end {
            try Task.checkCancellation()
            let batchEnd = min(end, offset + Self.resourceFileBatchBytes)
            let messages = stride(from: offset, to: batchEnd, by: WireLimits.chunkSize).map { chunkStart in
                let count = min(WireLimits.chunkSize, batchEnd - chunkStart)
                return (
                    prefix: Wire.ResourceDataChunk.prefix(offset: UInt64(chunkStart), totalSize: total, dataCount: count),
                    file: FileRegion(descriptor: file.descriptor, offset: chunkStart, count: count, owner: file))
            }
            try await send(messages)
            offset = batchEnd
        }
    }

    /// Bytes of a resource one `RequestResourceData` call on plain TCP hands its connection
    /// at once as file regions (64 chunks): they cost no memory, only the hops between batches.
    static let resourceFileBatchBytes = 4 << 20

    /// Sends bytes `start..<end` of `record`'s file as encoded `ResourceDataChunk`s of at most
    /// 64 KiB, a batch of up to ``resourceBatchBytes`` (1 MiB, 16 chunks) at a time: one turn of
    /// the library I/O pool reads the batch, each chunk `pread` straight into its message
    /// payload (``Wire/ResourceDataChunk/encoded(offset:totalSize:dataCount:fill:)``, no
    /// intermediate copy), and one `send` hands all of it to the connection, which lets each
    /// chunk go as flow control allows. The next batch is read once the last one is written.
    ///
    /// Memory: a call holds one batch. A batch larger than one chunk is taken from the
    /// server-wide ``resourceBatchBudget``; when it is spent (many exports at once) the call
    /// reads one chunk at a time, as every call did before batches, so all exports together
    /// hold at most the budget plus 64 KiB each.
    func streamChunks(_ record: AssetResourceRecord, from start: Int, to end: Int, send: ([[UInt8]]) async throws -> Void) async throws {
        let total = UInt64(record.byteSize)
        let file = try await openLibraryFile(record)
        var offset = start
        while offset < end {
            try Task.checkCancellation()
            let wanted = min(Self.resourceBatchBytes, end - offset)
            let reserved = wanted > WireLimits.chunkSize && resourceBatchBudget.reserve(wanted)
            let count = reserved ? wanted : min(WireLimits.chunkSize, wanted)
            do {
                let at = offset
                let payloads = try await libraryIO.run { () throws -> [[UInt8]] in
                    try stride(from: at, to: at + count, by: WireLimits.chunkSize).map { chunkStart in
                        let length = min(WireLimits.chunkSize, at + count - chunkStart)
                        return try Wire.ResourceDataChunk.encoded(offset: UInt64(chunkStart), totalSize: total, dataCount: length) { buffer in
                            try file.read(into: buffer, at: chunkStart)
                        }
                    }
                }
                try await send(payloads)
            } catch {
                if reserved { resourceBatchBudget.release(wanted) }
                throw error
            }
            if reserved { resourceBatchBudget.release(wanted) }
            offset += count
        }
    }

    /// Bytes of a resource one `RequestResourceData` call reads and hands to its connection at
    /// once (when ``resourceBatchBudget`` allows): 16 chunks.
    static let resourceBatchBytes = 1 << 20

    /// Sends bytes `start..<end` of `record`'s file in chunks of at most 64 KiB through
    /// `send(offset, bytes)`, each as flow control allows. The file is opened, checked against
    /// the recorded size and read on the library I/O pool, one chunk per turn, so a slow
    /// client holds one chunk, not the file.
    func streamFile(
        _ record: AssetResourceRecord, from start: Int, to end: Int, send: (Int, [UInt8]) async throws -> Void
    ) async throws {
        try await streamFile(try await openLibraryFile(record), from: start, to: end, send: send)
    }

    /// ``streamFile(_:from:to:send:)`` of a file already open.
    func streamFile(_ file: LibraryFileReader, from start: Int, to end: Int, send: (Int, [UInt8]) async throws -> Void) async throws {
        var offset = start
        while offset < end {
            try Task.checkCancellation()
            let count = min(WireLimits.chunkSize, end - offset)
            try await send(offset, try await readChunk(file, count, at: offset))
            offset += count
        }
    }

    /// `count` bytes of `file` from `offset`, read on the library I/O pool.
    func readChunk(_ file: LibraryFileReader, _ count: Int, at offset: Int) async throws -> [UInt8] {
        try await libraryIO.run { () throws(PhotoLibError) -> [UInt8] in try file.bytes(count, at: offset) }
    }

    /// Opens `record`'s file on the library I/O pool and checks its size against the recorded
    /// one (a mismatch is `dataLoss`: the file was changed behind the library's back).
    func openLibraryFile(_ record: AssetResourceRecord) async throws -> LibraryFileReader {
        let path = record.path, total = record.byteSize
        let what = "the \(record.type.name) file of \(record.assetIdentifier)"
        return try await libraryIO.run { () throws(PhotoLibError) -> LibraryFileReader in
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw LibraryFileError.make(errno: errno, what) }
            let file = LibraryFileReader(descriptor: descriptor, size: total, what: what)
            var status = stat()
            guard fstat(descriptor, &status) == 0 else { throw LibraryFileError.make(errno: errno, what) }
            guard Int(status.st_size) == total else {
                throw PhotoLibError(.dataLoss, "\(what) is \(status.st_size) bytes, not the recorded \(total); restore it from a backup")
            }
            return file
        }
    }
}

/// One open library file, read with `pread(2)` at explicit offsets (so reads from any thread
/// of the library I/O pool need no shared file position). Closes the descriptor when released.
///
/// `Sendable`: its fields never change after `init`, and `pread` on one descriptor from
/// several threads is safe.
final class LibraryFileReader: Sendable {
    /// The open file (closed when the reader is released).
    let descriptor: Int32
    /// The recorded size of the file.
    let size: Int
    /// The file as errors name it ("the photo file of ID"), never its path.
    let what: String

    init(descriptor: Int32, size: Int, what: String) {
        self.descriptor = descriptor
        self.size = size
        self.what = what
    }

    deinit { close(descriptor) }

    /// `count` bytes from `offset` (blocking; see ``read(into:at:)``).
    func bytes(_ count: Int, at offset: Int) throws(PhotoLibError) -> [UInt8] {
        var failure: PhotoLibError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(PhotoLibError) {
                try read(into: UnsafeMutableRawBufferPointer(buffer), at: offset)
                initialized = count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Fills `buffer` with the bytes at `offset`; a file shorter than that is `dataLoss`, a
    /// failed read the errno's error.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(PhotoLibError) {
        var done = 0
        while done < buffer.count {
            let result = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if result < 0 {
                if errno == EINTR { continue }
                throw LibraryFileError.make(errno: errno, what)
            }
            guard result > 0 else { throw PhotoLibError(.dataLoss, "\(what) ended early at byte \(offset + done) of \(size)") }
            done += result
        }
    }
}
