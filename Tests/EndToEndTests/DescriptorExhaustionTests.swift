import Foundation
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A server that runs out of file descriptors (its limit lowered while it runs) refuses new
/// connections with GOAWAY `UNAVAILABLE` instead of spinning in its accept loop, answers a
/// request whose file it cannot open with `UNAVAILABLE` and no server path, and recovers once
/// descriptors are free again.
final class DescriptorExhaustionTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: ServerProcess!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("photolib-e2e-emfile")
        server = try ServerProcess.start(importing: [Paths.landscape], library: directory.file("library"))
    }

    override func tearDown() {
        server?.stopGracefully()
        server = nil
        directory?.remove()
    }

    private func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.pid)/fd").count) ?? 0
    }

    private func setDescriptorLimit(_ limit: Int) throws {
        let result = try ChildProcess.run("/usr/bin/prlimit", ["--pid", "\(server.pid)", "--nofile=\(limit):"])
        guard result.succeeded else { throw E2EError("prlimit failed: \(result)") }
    }

    /// CPU seconds (user + system) the server has used.
    private func cpuSeconds() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(server.pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command: state is field 0; utime and stime are fields 11 and 12.
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func testOutOfDescriptorsRefusesClearlyWithoutSpinningAndRecovers() async throws {
        let owner = try RawConnection(port: server.port)
        _ = try owner.handshake(token: server.token)
        let asset = try XCTUnwrap(try Wire.FetchResultSnapshot(decoding: try owner.call(
            stream: 1, method: PhotoLibraryMethods.fetchAssets.path, request: Wire.FetchAssetsRequest(prefetchCount: 1).encoded()).messages[0]).assets.first?.localIdentifier)

        // Leave room for two more connections, then take them.
        try setDescriptorLimit(openDescriptors() + 2)
        var held: [RawConnection] = []
        var refusal: Wire.Status?
        for _ in 0..<6 where refusal == nil {
            let connection = try RawConnection(port: server.port)
            held.append(connection)
            connection.send(Frame(.hello, payload: Wire.Hello(protocolVersion: WireLimits.protocolVersion, token: server.token, clientName: "fd-test").encoded()))
            if case .frame(let frame) = connection.readFrame(timeout: 5), frame.type == .goAway {
                refusal = try Wire.GoAway(decoding: frame.payload).status
            }
        }
        let status = try XCTUnwrap(refusal, "no connection was refused with GOAWAY")
        XCTAssertEqual(status.code, Wire.StatusCode.unavailable, status.message)
        XCTAssertTrue(status.message.contains("too many open files"), status.message)

        // More connections wait in the backlog: the accept loop must not spin on them.
        let waiting = try (0..<4).map { _ in try RawConnection(port: server.port) }
        let before = cpuSeconds()
        try await Task.sleep(nanoseconds: 2_000_000_000)
        let used = cpuSeconds() - before
        print("server CPU over 2 s with connections waiting and no descriptors: \(String(format: "%.2f", used)) s")
        XCTAssertLessThan(used, 0.5, "the accept loop spun while out of descriptors")

        // A request that needs a file: UNAVAILABLE, and no server path in the message.
        let request = Wire.ImageRequest(assetIdentifier: asset, targetWidth: 300, targetHeight: 300, deliveryMode: .highQualityFormat)
        let image = try owner.call(stream: 3, method: PhotoLibraryMethods.requestImage.path, request: request.encoded())
        XCTAssertEqual(image.status.code, Wire.StatusCode.unavailable, image.status.message)
        XCTAssertFalse(image.status.message.contains(server.library), image.status.message)
        XCTAssertFalse(image.status.message.contains("/originals/"), image.status.message)

        // Descriptors back: new connections and the request work again.
        for connection in held + waiting { connection.close() }
        try setDescriptorLimit(4096)
        let again = try RawConnection(port: server.port)
        _ = try again.handshake(token: server.token)
        let retried = try owner.call(stream: 5, method: PhotoLibraryMethods.requestImage.path, request: request.encoded())
        XCTAssertEqual(retried.status.code, Wire.StatusCode.ok, retried.status.message)
        again.close()
        owner.close()
    }
}
