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
        // As its comment promises: at most 512 x 512.
        let size = result.stdoutLines.first { $0.hasPrefix("image: ") }?.dropFirst(7).split(separator: " ").first?.split(separator: "x").compactMap { Int($0) }
        XCTAssertEqual(size?.count, 2, result.stdout)
        XCTAssertTrue(size?.allSatisfy { $0 <= 512 } ?? false, "the image is larger than 512 x 512: \(result.stdout)")
        XCTAssertTrue(result.stdoutLines.contains { $0.hasPrefix("changed indexes: [0], favourite now: true") }, result.stdout)
        let jpeg = try XCTUnwrap(FileManager.default.contents(atPath: output))
        XCTAssertEqual(Array(jpeg.prefix(2)), [0xFF, 0xD8], "the written image is a JPEG")
    }

    /// A program that uses PhotoLibClient, and the CLI, load libjpeg and libexif for filter
    /// recipes but none of the other formats' libraries, which only the server needs
    /// (PhotoLibMedia): they would cost every client start tens of milliseconds.
    func testClientProgramsLoadNoneOfTheServersMediaLibraries() throws {
        for program in ["photolib-example", "photolib"] {
            let result = try ChildProcess.run("/usr/bin/ldd", [try Paths.executable(Paths.binDirectory + "/" + program)], timeout: 30)
            XCTAssertTrue(result.succeeded, "ldd \(program): \(result)")
            XCTAssertTrue(result.stdout.contains("libjpeg"), "\(program) renders filter recipes with libjpeg: \(result.stdout)")
            for library in ["libavcodec", "libavformat", "libswscale", "libheif", "libpng", "libwebp"] {
                XCTAssertFalse(result.stdout.contains(library), "\(program) loads \(library)")
            }
        }
    }

    func testExampleProgramExitsNonZeroWithUsage() throws {
        let result = try ChildProcess.run(try Paths.executable(Paths.binDirectory + "/photolib-example"), [], timeout: 30)
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("usage: photolib-example"), result.stderr)
    }
}
