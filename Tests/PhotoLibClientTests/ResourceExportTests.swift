import Foundation
import PhotoLibClient
import PhotoLibServer
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import XCTest

/// `writeData` against the real server: byte for byte whether the server reads 1 MiB batches
/// (its read-ahead budget allows) or 64 KiB chunks (budget spent: `resourceReadAheadBytes` 0),
/// resumed from a `.partial` file, and a damaged `.partial` refused by the digest.
final class ResourceExportTests: XCTestCase {
    private static let photo = "Samples/photos/d01_seeding_5312x2988_base420_q85.jpg"

    func testExportIsExactWithAndWithoutReadAheadAndResumes() async throws {
        let original = try Fixtures.bytes(at: Fixtures.path(Self.photo))
        XCTAssertGreaterThan(original.count, 1 << 20, "the photo spans more than one 1 MiB batch")
        for readAhead in [32 << 20, 0] {
            var configuration = ServerConfiguration()
            configuration.resourceReadAheadBytes = readAhead
            let server = try InProcessServer(photos: [Fixtures.path(Self.photo)], configuration: configuration)
            addTeardownBlock { await server.tearDown() }
            let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token, configuration: .bulkTransfer)
            defer { library.close() }
            let manager = AssetResourceManager(library: library), asset = try XCTUnwrap(server.assets.first)
            let directory = try TestDirectory()
            defer { directory.cleanUp() }

            let whole = directory.path + "/whole.jpg"
            let written = try await manager.writeData(for: asset, toFile: whole)
            XCTAssertEqual(written.size, original.count)
            XCTAssertEqual(try Fixtures.bytes(at: whole), original, "read-ahead \(readAhead)")

            // Resumed from an odd offset inside the second batch.
            let resumed = directory.path + "/resumed.jpg"
            try Data(original.prefix(1_234_567)).write(to: URL(fileURLWithPath: resumed + ".partial"))
            try await manager.writeData(for: asset, toFile: resumed)
            XCTAssertEqual(try Fixtures.bytes(at: resumed), original, "resumed, read-ahead \(readAhead)")
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
        }
    }
}
