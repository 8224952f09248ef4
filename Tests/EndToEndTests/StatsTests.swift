import Foundation
import PhotoLibClient
import PhotoLibTestSupport
import XCTest

/// `--max-memory-mib` is the one memory limit the budgets draw from, and `photolibd stats`
/// (over `GetLibraryInfo`, owner only) shows what each holds.
final class StatsTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: ServerProcess!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("photolib-e2e-stats")
        server = try ServerProcess.start(importing: [Paths.landscape], library: directory.file("library"), extraArguments: ["--max-memory-mib", "64"])
    }

    override func tearDown() {
        server?.stopGracefully()
        server = nil
        directory?.remove()
    }

    func testStatsShowEveryBudgetWithinTheMemoryLimit() throws {
        let result = try ChildProcess.run(Paths.photolibd, ["stats", "--library", server.library, "--server", server.address, "--json"])
        XCTAssertTrue(result.succeeded, "\(result)")
        struct Budget: Decodable {
            var name: String
            var bytesHeld: Int
            var bytesLimit: Int
            var itemsHeld: Int
            var itemsLimit: Int
        }
        let budgets = try JSONDecoder().decode([Budget].self, from: Data(result.stdout.utf8))
        let byName = Dictionary(uniqueKeysWithValues: budgets.map { ($0.name, $0) })
        XCTAssertEqual(Set(byName.keys), ["memory", "connections", "snapshots", "live-results", "image-cache", "disk-reserve"])
        XCTAssertEqual(byName["memory"]?.bytesLimit, 64 << 20)
        XCTAssertGreaterThan(byName["memory"]?.bytesHeld ?? 0, 0, "resident memory is reported")
        // Each in-memory budget is capped at a quarter of --max-memory.
        for name in ["snapshots", "image-cache", "live-results"] {
            XCTAssertEqual(byName[name]?.bytesLimit, 16 << 20, name)
        }
        XCTAssertEqual(byName["connections"]?.itemsHeld, 1, "the stats connection itself")

        let text = try ChildProcess.run(Paths.photolibd, ["stats", "--library", server.library, "--server", server.address])
        XCTAssertTrue(text.succeeded && text.stdout.contains("snapshots") && text.stdout.contains("of 16.0 MiB"), "\(text)")
        // Without --server: $PHOTOLIB_SERVER, as photolib reads it (it was ignored).
        let fromEnvironment = try ChildProcess.run(Paths.photolibd, ["stats", "--library", server.library], environment: ["PHOTOLIB_SERVER": server.address])
        XCTAssertTrue(fromEnvironment.succeeded && fromEnvironment.stdout.contains("snapshots"), "\(fromEnvironment)")
    }

    func testStatsOfAServerThatIsNotThereFailsClearly() throws {
        let result = try ChildProcess.run(Paths.photolibd, ["stats", "--library", server.library, "--server", "127.0.0.1:1"])
        XCTAssertEqual(result.status, 1, "\(result)")
        XCTAssertTrue(result.stderr.hasPrefix("photolibd stats: 127.0.0.1:1:"), "\(result)")
    }
}
