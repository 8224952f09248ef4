import Foundation
import PhotoLibClient
import PhotoLibNet
import PhotoLibServer
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import XCTest

/// `writeData` against the real server: byte for byte whether the server sends the file's
/// bytes with `sendfile` (plain sockets) or reads them, through TLS, in 1 MiB batches (its
/// read-ahead budget allows) or 64 KiB chunks (budget spent: `resourceReadAheadBytes` 0),
/// resumed from a `.partial` file, a damaged `.partial` refused by the digest, a transfer cut
/// short and resumed, and what `verify` adds: a library file damaged on the server is caught.
final class ResourceExportTests: XCTestCase {
    private static let photo = "Samples/photos/d01_seeding_5312x2988_base420_q85.jpg"

    func testExportIsExactWithAndWithoutReadAheadAndResumes() async throws {
        let original = try Fixtures.bytes(at: Fixtures.path(Self.photo))
        XCTAssertGreaterThan(original.count, 1 << 20, "the photo spans more than one 1 MiB batch")
        for (tls, readAhead) in [(false, 32 << 20), (true, 32 << 20), (true, 0)] {
            var configuration = ServerConfiguration()
            configuration.resourceReadAheadBytes = readAhead
            var client = ClientConfiguration.bulkTransfer
            if tls {
                configuration.tls = try TLSContext.server(identity: TLSConnectionTests.identity)
                client.tls = .pinned(TLSConnectionTests.identity.fingerprint)
            }
            let server = try InProcessServer(photos: [Fixtures.path(Self.photo)], configuration: configuration)
            addTeardownBlock { await server.tearDown() }
            let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token, configuration: client)
            defer { library.close() }
            let manager = AssetResourceManager(library: library), asset = try XCTUnwrap(server.assets.first)
            let directory = try TestDirectory()
            defer { directory.cleanUp() }

            let whole = directory.path + "/whole.jpg"
            let written = try await manager.writeData(for: asset, toFile: whole)
            XCTAssertEqual(written.size, original.count)
            XCTAssertEqual(try Fixtures.bytes(at: whole), original, "TLS \(tls), read-ahead \(readAhead)")

            // Resumed from an odd offset inside the second batch.
            let resumed = directory.path + "/resumed.jpg"
            try Data(original.prefix(1_234_567)).write(to: URL(fileURLWithPath: resumed + ".partial"))
            try await manager.writeData(for: asset, toFile: resumed)
            XCTAssertEqual(try Fixtures.bytes(at: resumed), original, "resumed, TLS \(tls), read-ahead \(readAhead)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: resumed + ".partial"))

            // A damaged partial file: the digest (computed as it is written) refuses it.
            var damaged = Array(original.prefix(700_000))
            damaged[10] ^= 0xFF
            let refused = directory.path + "/refused.jpg"
            try Data(damaged).write(to: URL(fileURLWithPath: refused + ".partial"))
            do {
                try await manager.writeData(for: asset, toFile: refused)
                XCTFail("a damaged partial file passed")
            } catch let error as PhotoLibError {
                XCTAssertEqual(error.code, .dataLoss)
                XCTAssertTrue(error.message.contains("SHA-256"), error.message)
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: refused + ".partial"), "removed so the next run starts over")

            // Checked on request: a fresh transfer of the intact file passes.
            let verified = directory.path + "/verified.jpg"
            try await manager.writeData(for: asset, toFile: verified, verify: true)
            XCTAssertEqual(try Fixtures.bytes(at: verified), original, "verified, TLS \(tls), read-ahead \(readAhead)")
        }
    }

    /// A transfer cut short (the connection closes while chunks are being written) fails and
    /// leaves a `.partial` file holding a prefix of the resource; the next call resumes it and,
    /// having resumed, checks the whole file's SHA-256.
    func testInterruptedExportLeavesAPrefixThatTheNextCallResumes() async throws {
        let original = try Fixtures.bytes(at: Fixtures.path(Self.photo))
        let server = try InProcessServer(photos: [Fixtures.path(Self.photo)])
        addTeardownBlock { await server.tearDown() }
        let asset = try XCTUnwrap(server.assets.first)
        let directory = try TestDirectory()
        defer { directory.cleanUp() }
        let path = directory.path + "/cut.jpg"

        // Small windows: the server is never more than 128 KiB ahead of what is written, so
        // closing at 256 KiB always cuts the transfer.
        var small = ClientConfiguration()
        small.maxFrameSize = 128 << 10
        small.initialStreamWindow = 128 << 10
        small.initialConnectionWindow = 128 << 10
        let first = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token, configuration: small)
        do {
            try await AssetResourceManager(library: first).writeData(for: asset, toFile: path) { done, _ in
                if done >= 256 << 10 { first.close() }
            }
            XCTFail("the transfer went on after its connection closed")
        } catch let error as PhotoLibError {
            XCTAssertTrue([.cancelled, .unavailable].contains(error.code), "\(error)")
        }
        let prefix = try Fixtures.bytes(at: path + ".partial")
        XCTAssertGreaterThanOrEqual(prefix.count, 256 << 10)
        XCTAssertLessThan(prefix.count, original.count)
        XCTAssertEqual(prefix, Array(original.prefix(prefix.count)), "what was written is the resource's first bytes")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))

        let second = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token, configuration: .bulkTransfer)
        defer { second.close() }
        try await AssetResourceManager(library: second).writeData(for: asset, toFile: path)
        XCTAssertEqual(try Fixtures.bytes(at: path), original)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".partial"))
    }

    /// A library file damaged on the server (same size, one byte changed): the server checks
    /// only its size, so an unchecked fresh transfer writes what the server read; `verify`
    /// catches it with the digest recorded at import and removes the file.
    func testVerifyCatchesALibraryFileDamagedOnTheServer() async throws {
        let original = try Fixtures.bytes(at: Fixtures.path(Self.photo))
        let server = try InProcessServer(photos: [Fixtures.path(Self.photo)])
        addTeardownBlock { await server.tearDown() }
        let asset = try XCTUnwrap(server.assets.first)
        let stored = try XCTUnwrap(Self.file(under: server.directory.path, equalTo: original), "the library's copy of the photo")
        var damaged = original
        damaged[original.count / 2] ^= 0x01
        // In place: the same file, one byte changed.
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: stored))
        try handle.seek(toOffset: UInt64(original.count / 2))
        try handle.write(contentsOf: [damaged[original.count / 2]])
        try handle.close()

        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token, configuration: .bulkTransfer)
        defer { library.close() }
        let manager = AssetResourceManager(library: library)
        let directory = try TestDirectory()
        defer { directory.cleanUp() }

        let checked = directory.path + "/checked.jpg"
        do {
            try await manager.writeData(for: asset, toFile: checked, verify: true)
            XCTFail("a damaged library file passed the check")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .dataLoss)
            XCTAssertTrue(error.message.contains("SHA-256"), error.message)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: checked))
        XCTAssertFalse(FileManager.default.fileExists(atPath: checked + ".partial"))

        let unchecked = directory.path + "/unchecked.jpg"
        try await manager.writeData(for: asset, toFile: unchecked)
        XCTAssertEqual(try Fixtures.bytes(at: unchecked), damaged, "without verify, the server's file as it is")
    }

    /// The file under `directory` whose bytes are `bytes`.
    private static func file(under directory: String, equalTo bytes: [UInt8]) throws -> String? {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let relative = enumerator?.nextObject() as? String {
            let path = directory + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == bytes.count
            else { continue }
            if try Fixtures.bytes(at: path) == bytes { return path }
        }
        return nil
    }
}
