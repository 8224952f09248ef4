import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `photolibd serve` on a non-loopback address without `--tls` warns loudly on stderr.
final class PlaintextWarningTests: XCTestCase {
    func testPlainTCPBeyondLoopbackWarnsLoudly() throws {
        let directory = try TemporaryDirectory("photolib-e2e-plain")
        defer { directory.remove() }
        let child = try ChildProcess(Paths.photolibd, ["serve", "--library", directory.file("library"), "--listen", "0.0.0.0:0"])
        defer {
            child.send(SIGTERM)
            _ = child.waitForExit(timeout: 15) ?? child.killHard()
            child.cleanUp()
        }
        XCTAssertTrue(waitUntil(timeout: 20) { child.stderr.contains("PLAIN TCP") || !child.isRunning }, child.stderr)
        XCTAssertTrue(child.stderr.contains("WARNING: photolibd serves PLAIN TCP on 0.0.0.0:"), child.stderr)
        XCTAssertTrue(child.stderr.contains("--tls"), child.stderr)
        XCTAssertTrue(child.stdout.hasPrefix("listening on 0.0.0.0:"), child.stdout)
    }

    func testLoopbackServesPlainTCPWithoutAWarning() throws {
        let directory = try TemporaryDirectory("photolib-e2e-loopback")
        defer { directory.remove() }
        let server = try ServerProcess.start(library: directory.file("library"))
        XCTAssertFalse(server.log.contains("PLAIN TCP"), server.log)
        server.stopGracefully()
    }
}
