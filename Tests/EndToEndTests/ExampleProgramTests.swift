import Foundation
import XCTest

/// The README's example program (Sources/PhotoLibExample, built with the package) works
/// against a real server: it counts, writes an image, and sees its own change.
final class ExampleProgramTests: XCTestCase {
    private var fixture: LibraryFixture?

    override func tearDown() {
        fixture?.shutDown()
        fixture = nil
    }

    func testExampleProgramConnectsFetchesRequestsAnImageAndSeesItsChange() throws {
        let fixture = try LibraryFixture("example", photos: Paths.fourPhotos)
        self.fixture = fixture
        let output = NSTemporaryDirectory() + "photolib-example-\(UUID().uuidString).jpg"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try ChildProcess.run(
            try Paths.executable(Paths.binDirectory + "/photolib-example"), [fixture.server.address, fixture.server.token, output], timeout: 60)
        XCTAssertTrue(result.succeeded, "photolib-example failed: \(result)")
        XCTAssertEqual(result.stdoutLines.first, "assets: 4")
        XCTAssertTrue(result.stdoutLines.contains { $0.hasPrefix("image: ") && $0.hasSuffix(" -> \(output)") }, result.stdout)
        XCTAssertTrue(result.stdoutLines.contains { $0.hasPrefix("changed indexes: [0], favourite now: true") }, result.stdout)
        let jpeg = try XCTUnwrap(FileManager.default.contents(atPath: output))
        XCTAssertEqual(Array(jpeg.prefix(2)), [0xFF, 0xD8], "the written image is a JPEG")
    }

    func testExampleProgramExitsNonZeroWithUsage() throws {
        let result = try ChildProcess.run(try Paths.executable(Paths.binDirectory + "/photolib-example"), [], timeout: 30)
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("usage: photolib-example"), result.stderr)
    }
}
