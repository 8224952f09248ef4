import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `photolibd serve` on a non-loopback address without `--tls` warns loudly on stderr.
final class PlaintextWarningTests: XCTestCase {
    /// `photolibd serve` on 0.0.0.0 without TLS in a new directory, stopped when the test ends.
    private func serveOnAnyAddress(_ name: String) throws -> (TemporaryDirectory, ChildProcess) {
        let directory = try TemporaryDirectory(name)
        let child = try ChildProcess(Paths.photolibd, ["serve", "--library", directory.file("library"), "--listen", "0.0.0.0:0"])
        addTeardownBlock {
            child.send(SIGTERM)
            _ = child.waitForExit(timeout: 15) ?? child.killHard()
            child.cleanUp()
            directory.remove()
        }
        return (directory, child)
    }

    func testPlainTCPBeyondLoopbackWarnsLoudly() throws {
        let (_, child) = try serveOnAnyAddress("photolib-e2e-plain")
        XCTAssertTrue(waitUntil(timeout: 20) { child.stderr.contains("PLAIN TCP") || !child.isRunning }, child.stderr)
        XCTAssertTrue(child.stderr.contains("WARNING: photolibd serves PLAIN TCP on 0.0.0.0:"), child.stderr)
        XCTAssertTrue(child.stderr.contains("--tls"), child.stderr)
        XCTAssertTrue(child.stdout.hasPrefix("listening on 0.0.0.0:"), child.stdout)
    }

    /// `photolib` warns (one line, stderr) before sending its token in plain text to an
    /// address that is not loopback; loopback stays silent, and `--json` stdout stays clean.
    func testTheCLIWarnsBeforeSendingItsTokenInPlainTextBeyondLoopback() throws {
        let (directory, child) = try serveOnAnyAddress("photolib-e2e-plain-cli")
        XCTAssertTrue(waitUntil(timeout: 20) { child.stdout.contains("\n") || !child.isRunning }, child.stderr)
        let firstLine = child.stdout.split(separator: "\n").first.map(String.init) ?? ""
        let port = try XCTUnwrap(firstLine.split(separator: ":").last.flatMap { Int($0) }, firstLine)
        let token = try String(contentsOfFile: directory.file("library/owner.token"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let environment = ["PHOTOLIB_TOKEN": token, "XDG_CONFIG_HOME": directory.file("config"), "PHOTOLIB_FINGERPRINT": ""]

        // 0.0.0.0 reaches this machine, but is not a loopback address: the token would travel
        // in plain text on any other address written like it.
        let remote = try ChildProcess.run(Paths.photolib, ["info", "--json", "--server", "0.0.0.0:\(port)"], environment: environment)
        XCTAssertTrue(remote.succeeded, "\(remote)")
        let warnings = remote.stderr.split(separator: "\n").filter { $0.contains("warning") }
        XCTAssertEqual(warnings.count, 1, remote.stderr)
        let warning = String(warnings.first ?? "")
        XCTAssertTrue(warning.contains("0.0.0.0:\(port)"), warning)
        XCTAssertTrue(warning.contains("plain text"), warning)
        XCTAssertTrue(warning.contains("photolibd serve --tls"), warning)
        XCTAssertTrue(warning.contains("photolib tls pin"), warning)
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(remote.stdout.utf8)), "stdout is the JSON alone: \(remote.stdout)")
        XCTAssertFalse(remote.stdout.contains("warning"), remote.stdout)

        for server in ["127.0.0.1:\(port)", "localhost:\(port)"] {
            let local = try ChildProcess.run(Paths.photolib, ["info", "--json", "--server", server], environment: environment)
            XCTAssertTrue(local.succeeded, "\(local)")
            XCTAssertEqual(local.stderr, "", "loopback is silent: \(server)")
        }
    }

    func testLoopbackServesPlainTCPWithoutAWarning() throws {
        let directory = try TemporaryDirectory("photolib-e2e-loopback")
        defer { directory.remove() }
        let server = try ServerProcess.start(library: directory.file("library"))
        XCTAssertFalse(server.log.contains("PLAIN TCP"), server.log)
        server.stopGracefully()
    }
}
