import Foundation
import XCTest

/// The independent Python client (Tests/interop/photolib_client.py, written from
/// docs/PROTOCOL.md and Protos/ only) against a real server.
final class InteropTests: XCTestCase {
    private static let python = "/usr/bin/python3"
    private var fixture: LibraryFixture?

    override func tearDown() {
        fixture?.shutDown()
        fixture = nil
    }

    func testPythonInteropClientPassesAgainstTheServer() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw XCTSkip("\(Self.python) is not installed (Scripts install python3-protobuf)")
        }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: Self.python)
        probe.arguments = ["-c", "import google.protobuf"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        try probe.run()
        probe.waitUntilExit()
        guard probe.terminationStatus == 0 else {
            throw XCTSkip("\(Self.python) has no google.protobuf module (apt-get install python3-protobuf)")
        }
        let script = Paths.packageRoot + "/Tests/interop/photolib_client.py"
        XCTAssertTrue(FileManager.default.fileExists(atPath: script), "\(script) is missing")
        guard FileManager.default.fileExists(atPath: script) else { return }

        let fixture = try LibraryFixture("interop", photos: Paths.fourPhotos)
        self.fixture = fixture
        let server = fixture.server
        let result = try ChildProcess.run(
            Self.python, [script, "--server", server.address, "--token", server.token, "--expect-assets", "4"], timeout: 150)
        XCTAssertTrue(result.succeeded, "the interop client failed: \(result)\n--- server log ---\n\(server.log)")
        XCTAssertTrue(server.isRunning, "photolibd survived the interop client")
    }
}
