import Foundation
import XCTest

/// `photolibd` ends every failure with status 1 and one line on stderr naming what failed;
/// usage errors keep ArgumentParser's status 64; success is 0.
final class PhotolibdExitCodeTests: XCTestCase {
    private func photolibd(_ arguments: [String], timeout: TimeInterval = 30) throws -> ProcessResult {
        try ChildProcess.run(try Paths.executable(Paths.photolibd), arguments, timeout: timeout)
    }

    private func assertFailure(_ result: ProcessResult, mentions words: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(result.signalled, "\(result)", file: file, line: line)
        XCTAssertEqual(result.status, 1, "\(result)", file: file, line: line)
        XCTAssertEqual(result.stderrLines.count, 1, "exactly one line on stderr: \(result)", file: file, line: line)
        for word in words {
            XCTAssertTrue(result.stderr.contains(word), "stderr names \(word): \(result)", file: file, line: line)
        }
    }

    func testLibraryThatCannotBeOpened() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        // A file where the library directory should be.
        let notADirectory = try temporary.write("plain-file", [1, 2, 3])
        assertFailure(try photolibd(["serve", "--library", notADirectory, "--listen", "127.0.0.1:0"]),
                      mentions: ["photolibd: cannot open library", notADirectory])
        assertFailure(try photolibd(["import", "--library", notADirectory, Paths.landscape]),
                      mentions: ["photolibd import: cannot open library", notADirectory])
        assertFailure(try photolibd(["synthesize", "--library", notADirectory, "--count", "1"]),
                      mentions: ["photolibd synthesize:", notADirectory])
    }

    func testPortInUse() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let server = try ServerProcess.start(library: temporary.file("first"))
        defer { server.stopGracefully() }
        let result = try photolibd(["serve", "--library", temporary.file("second"), "--listen", "127.0.0.1:\(server.port)"])
        assertFailure(result, mentions: ["cannot serve on 127.0.0.1:\(server.port)", "in use"])
    }

    func testImportOfMissingFileFailsAndNamesIt() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let missing = temporary.file("no-such-photo.jpg")
        let result = try photolibd(["import", "--library", temporary.file("library"), missing])
        XCTAssertEqual(result.status, 1, "\(result)")
        XCTAssertTrue(result.stdout.contains("refused 1") || result.stderr.contains(missing), "\(result)")
        let good = try photolibd(["import", "--library", temporary.file("library"), Paths.landscape])
        XCTAssertTrue(good.succeeded, "\(good)")
        XCTAssertTrue(good.stdout.contains("imported 1"), "\(good)")
    }

    func testUsageErrorsKeepTheirStatus() throws {
        let result = try photolibd(["serve", "--library", "/tmp/unused", "--no-such-option"])
        XCTAssertEqual(result.status, 64, "\(result)")
        XCTAssertTrue(result.stderr.contains("--no-such-option") || result.stderr.contains("Unknown option"), "\(result)")
        XCTAssertTrue(try photolibd(["--help"]).succeeded)
    }

    /// docs/PROTOCOL.md section 12: the maximum frame payload is 128 KiB … 16 MiB (a 64 KiB
    /// chunk message must fit); the server used to take 16 KiB.
    func testMaxFrameSizeBelowTheDocumentedFloorIsAUsageError() throws {
        let result = try photolibd(["serve", "--library", "/tmp/unused", "--max-frame-size", "16384"])
        XCTAssertEqual(result.status, 64, "\(result)")
        XCTAssertTrue(result.stderr.contains("131072"), "\(result)")
    }
}
