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
    /// next call starts over. `progress` gets (bytes on disk, total).
    ///
    /// Returns the resource written.
    @discardableResult
    public func writeData(
        for identifier: String, type: AssetResourceType = .photo, toFile path: String,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws -> AssetResource {
        let resources = try await assetResources(for: identifier)
        guard let resource = resources.first(where: { $0.type == type }) else {
            throw PhotoLibError(.notFound, "asset \(identifier) has no \(type.name) resource (it has: \(resources.map(\.type.name).joined(separator: ", ")))")
        }
        let partial = path + ".partial"
        let manager = FileManager.default
        if FileManager.default.fileExists(atPath: partial) {
            let size = ((try? manager.attributesOfItem(atPath: partial)[.size]) as? Int) ?? 0
            if size > resource.size { try? manager.removeItem(atPath: partial) }
        }
        if !manager.fileExists(atPath: partial) {
            guard manager.createFile(atPath: partial, contents: nil) else {
                throw PhotoLibError(.failedPrecondition, "cannot create \(partial): check that the folder exists and is writable")
            }
        }
        guard let handle = FileHandle(forUpdatingAtPath: partial) else {
            throw PhotoLibError(.failedPrecondition, "cannot open \(partial) for writing")
        }
        defer { try? handle.close() }
        let start = Int(try handle.seekToEnd())
        progress?(start, resource.size)
        if start < resource.size {
            var written = start
            for try await chunk in try await requestData(for: identifier, type: type, offset: start) {
                try handle.write(contentsOf: chunk.data)
                written += chunk.data.count
                progress?(written, resource.size)
            }
            guard written == resource.size else {
                throw PhotoLibError(.dataLoss, "the transfer of \(identifier) ended at \(written) of \(resource.size) bytes; run again to resume")
            }
        }
        try handle.synchronize()
        try handle.seek(toOffset: 0)
        var digest = SHA256Digest()
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty {
            digest.update(data)
        }
        guard digest.finalize() == resource.sha256 else {
            try? manager.removeItem(atPath: partial)
            throw PhotoLibError(.dataLoss, "\(partial) does not match the server's SHA-256 of the \(type.name) resource (a stale or damaged partial file); it was removed: run again")
        }
        if manager.fileExists(atPath: path) { try manager.removeItem(atPath: path) }
        try manager.moveItem(atPath: partial, toPath: path)
        return resource
    }
}

/// SHA-256 (FIPS 180-4), to check exported files against the server's digest without a
/// crypto dependency in the client.
struct SHA256Digest {
    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    mutating func update(_ data: Data) {
        length += UInt64(data.count)
        buffer.append(contentsOf: data)
        let blocks = buffer.count / 64
        guard blocks > 0 else { return }
        buffer.withUnsafeBufferPointer { bytes in
            for block in 0..<blocks { compress(bytes, at: block * 64) }
        }
        buffer.removeFirst(blocks * 64)
    }

    /// The digest as 64 lowercase hex digits.
    mutating func finalize() -> String {
        let bits = length &* 8
        var tail = buffer
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        tail.withUnsafeBufferPointer { bytes in
            for block in 0..<(tail.count / 64) { compress(bytes, at: block * 64) }
        }
        buffer = []
        return state.map { word in
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
    }

    private mutating func compress(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) {
        var w = [UInt32](repeating: 0, count: 64)
        for i in 0..<16 {
            let b = offset + i * 4
            w[i] = UInt32(bytes[b]) << 24 | UInt32(bytes[b + 1]) << 16 | UInt32(bytes[b + 2]) << 8 | UInt32(bytes[b + 3])
        }
        func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }
        for i in 16..<64 {
            let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
            let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        for i in 0..<64 {
            let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
            let choice = (e & f) ^ (~e & g)
            let t1 = h &+ s1 &+ choice &+ Self.k[i] &+ w[i]
            let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let t2 = s0 &+ majority
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
        }
        state[0] = state[0] &+ a
        state[1] = state[1] &+ b
        state[2] = state[2] &+ c
        state[3] = state[3] &+ d
        state[4] = state[4] &+ e
        state[5] = state[5] &+ f
        state[6] = state[6] &+ g
        state[7] = state[7] &+ h
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
