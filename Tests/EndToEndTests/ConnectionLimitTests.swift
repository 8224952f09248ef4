import Foundation
import PhotoLibTestSupport
import PhotoLibClient
import PhotoLibWire
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `--max-connections`: connections beyond the limit get GOAWAY `RESOURCE_EXHAUSTED`; a flood
/// of them costs the server a bounded number of threads (each open connection has a reader
/// thread, and at most 64 refusals linger with one); the server goes on serving.
final class ConnectionLimitTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: ServerProcess!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("photolib-e2e-limit")
        // One malloc arena: the smallest setting serves as well as the default.
        server = try ServerProcess.start(importing: [Paths.landscape], library: directory.file("library"), extraArguments: ["--max-connections", "2", "--malloc-arenas", "1"])
    }

    override func tearDown() {
        server?.stopGracefully()
        server = nil
        directory?.remove()
    }

    private func threadCount() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(server.pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }),
              let count = Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces))
        else { return -1 }
        return count
    }

    func testConnectionsBeyondTheLimitAreRefusedAndAFloodStaysCheap() async throws {
        let held = try (0..<2).map { _ in
            let connection = try RawConnection(port: server.port)
            _ = try connection.handshake(token: server.token)
            return connection
        }
        let third = try RawConnection(port: server.port)
        let (read, _) = third.readUntil { $0.type == .goAway }
        guard case .frame(let frame) = read, let goAway = try? Wire.GoAway(decoding: frame.payload) else {
            return XCTFail("the third connection got \(read), expected GOAWAY")
        }
        XCTAssertEqual(goAway.status?.code, .resourceExhausted)
        XCTAssertTrue(goAway.status?.message.contains("already has 2 connections") == true, goAway.status?.message ?? "")
        XCTAssertTrue(third.waitForClose(), "the refused connection is closed after its GOAWAY")

        // A flood: 300 connections at once, none reading. While they are open, the server's
        // threads stay bounded (64 lingering refusals at most, plus what it had).
        let before = threadCount()
        XCTAssertGreaterThan(before, 0, "cannot read photolibd's thread count from /proc")
        let flood = try (0..<300).map { _ in try RawConnection(port: server.port) }
        var most = before
        for _ in 0..<20 {
            most = max(most, threadCount())
            usleep(10_000)
        }
        XCTAssertLessThanOrEqual(most, before + PhotoLibServerLimits.maxLingeringRefusals + 16, "threads while 300 refused connections were open (before: \(before))")
        for (index, connection) in flood.enumerated() {
            XCTAssertTrue(connection.waitForClose(timeout: 10), "refused connection \(index) was not closed")
        }
        XCTAssertTrue(server.isRunning, "photolibd died\n\(server.log)")

        // A freed place is taken by the next client.
        held[0].close()
        let running = self.server!
        let library = try await withTimeout(20, "connect after a place was freed") { () async throws -> PhotoLibrary in
            while true {
                do {
                    return try await connectClient(running, name: "e2e-after-flood")
                } catch let error as PhotoLibError where error.code == .resourceExhausted {
                    try await Task.sleep(nanoseconds: 50_000_000)
                }
            }
        }
        defer { library.close() }
        let info = try await withTimeout(20, "libraryInfo") { try await library.libraryInfo() }
        XCTAssertEqual(info.assetCount, 1)
        held[1].close()
    }

    func testOutOfRangeLimitsAreRefusedWithAClearMessage() throws {
        for (option, value) in [("--malloc-arenas", "5000"), ("--max-connections", "0")] {
            let result = try ChildProcess.run(Paths.photolibd, ["serve", "--library", directory.file("other"), "--listen", "127.0.0.1:0", option, value], timeout: 30)
            XCTAssertFalse(result.succeeded, "\(option) \(value) was accepted")
            XCTAssertTrue(result.stderr.contains(option), "the error names \(option): \(result.stderr)")
        }
    }
}

/// The server's refusal limit, as documented (`PhotoLibServer.maxLingeringRefusals`); the
/// E2E tests do not link the server module.
private enum PhotoLibServerLimits {
    static let maxLingeringRefusals = 64
}
