import Foundation
import PhotoLibClient
import XCTest

/// `photolibd import` into a library whose server is running: connected clients see the new
/// assets on their next fetch.
final class LiveImportTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: ServerProcess?

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("photolib-e2e-live")
    }

    override func tearDown() {
        server?.stopGracefully()
        server = nil
        directory?.remove()
    }

    func testConnectedClientSeesAssetsImportedWhileServing() async throws {
        let library = directory.file("library")
        let server = try ServerProcess.start(importing: [Paths.sampleBaseline], library: library)
        self.server = server
        let client = try await connectClient(server)
        defer { client.close() }
        let before = try await withTimeout(20, "fetch") { try await client.fetchAssets() }
        XCTAssertEqual(before.count, 1)

        let imported = try ServerProcess.importPhotos(library: library, [Paths.landscape, Paths.portrait])
        XCTAssertTrue(imported.succeeded, "import while the server runs: \(imported)")
        let newIDs = Set(ImportOutput(imported).added.values)
        XCTAssertEqual(newIDs.count, 2, "\(imported)")

        // The old snapshot is immutable (PhotoKit's PHFetchResult); a new fetch sees the new assets.
        XCTAssertEqual(before.count, 1)
        let after = try await fetchAllAssets(client)
        XCTAssertEqual(after.count, 3)
        XCTAssertTrue(newIDs.isSubset(of: Set(after.map(\.localIdentifier))))
        // The new assets' images are served.
        for id in newIDs {
            let image = try await fetchImage(client, id, 100, 100)
            XCTAssertNotNil(JPEGSize(jpeg: image.data))
        }
        let info = try await withTimeout(20, "libraryInfo") { try await client.libraryInfo() }
        XCTAssertEqual(info.assetCount, 3)
        // And the CLI agrees, as do the smart albums.
        XCTAssertEqual(try listAssets(server).count, 3)
        let albums = try runCLIJSON([AlbumJSON].self, ["albums", "--json"], server: server)
        XCTAssertEqual(albums.first { $0.title == "All Photos" }?.count, 3)
    }
}
