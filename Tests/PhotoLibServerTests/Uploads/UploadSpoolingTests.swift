import Foundation
import PhotoLibCore
import PhotoLibServer
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// Uploads against the real server over the in-process transport: bytes are spooled to the
/// library's disk as they arrive (not held in memory), bad uploads fail as early as they can
/// be known to be bad, and a decode that runs too long is stopped.
final class UploadSpoolingTests: XCTestCase {
    /// A raw upload in progress: sends chunks within the flow-control windows the server
    /// grants, answering its WINDOW_UPDATEs; stops early if the call ends.
    private final class RawUpload {
        let connection: RawConnection
        let stream: UInt32
        private var streamCredit: Int
        private var connectionCredit: Int
        private(set) var status: Wire.Status?

        init(connection: RawConnection, stream: UInt32, welcome: Wire.Welcome, header: Wire.UploadHeader) {
            self.connection = connection
            self.stream = stream
            streamCredit = Int(welcome.initialStreamWindow == 0 ? UInt32(WireLimits.defaultStreamWindow) : welcome.initialStreamWindow)
            connectionCredit = Int(welcome.initialConnectionWindow == 0 ? UInt32(WireLimits.defaultConnectionWindow) : welcome.initialConnectionWindow)
            connection.send(Frame(.call, stream: stream, payload: Wire.CallStart(method: PhotoLibraryMethods.uploadAsset.path).encoded()))
            send(Wire.UploadChunk(part: .header(header)).encoded(), end: false)
        }

        /// Sends one data chunk (waiting for credit); `false` once the call has ended.
        @discardableResult
        func send(data: [UInt8], end: Bool = false) -> Bool {
            send(Wire.UploadChunk(part: .data(data)).encoded(), end: end)
        }

        @discardableResult
        private func send(_ payload: [UInt8], end: Bool) -> Bool {
            while status == nil, payload.count > min(streamCredit, connectionCredit) {
                guard read(timeout: 10) else { return false }
            }
            guard status == nil else { return false }
            connection.send(Frame(.message, stream: stream, flags: end ? .endStream : [], payload: payload))
            streamCredit -= payload.count
            connectionCredit -= payload.count
            return true
        }

        /// Reads one frame; `false` on timeout or close.
        private func read(timeout: TimeInterval) -> Bool {
            guard case .frame(let frame) = connection.readFrame(timeout: timeout) else { return false }
            switch frame.type {
            case .windowUpdate:
                let increment = Int((try? Wire.WindowUpdate(decoding: frame.payload).increment) ?? 0)
                if frame.streamID == 0 { connectionCredit += increment } else if frame.streamID == stream { streamCredit += increment }
            case .status where frame.streamID == stream:
                status = try? Wire.Status(decoding: frame.payload)
            default:
                break
            }
            return true
        }

        /// Waits for the call's STATUS.
        func finalStatus(timeout: TimeInterval = 20) -> Wire.Status? {
            let deadline = Date().addingTimeInterval(timeout)
            while status == nil, Date() < deadline, read(timeout: max(0.01, deadline.timeIntervalSinceNow)) {}
            return status
        }
    }

    private func spoolFiles(_ server: InProcessServer) -> [String: Int] {
        let tmp = server.directory.library + "/tmp"
        var sizes: [String: Int] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? [] where name.hasPrefix("upload-") {
            sizes[name] = (try? FileManager.default.attributesOfItem(atPath: tmp + "/" + name)[.size] as? Int) ?? 0
        }
        return sizes
    }

    /// Before: the bytes were appended to an array reserved at the announced size (eight idle
    /// 100 MB uploads held 800 MiB). Now they are on disk as they come.
    func testAnUnfinishedUploadIsOnDiskNotInMemory() async throws {
        let server = try InProcessServer()
        addTeardownBlock { await server.tearDown() }
        let connection = try server.rawConnection()
        let welcome = try connection.handshake(token: server.token)
        let chunk = [UInt8](repeating: 0x5A, count: 256 * 1024)
        let before = residentKiB()
        var uploads: [RawUpload] = []
        for index in 0..<4 {
            let upload = RawUpload(
                connection: connection, stream: UInt32(1 + 2 * index), welcome: welcome,
                header: Wire.UploadHeader(originalFilename: "big\(index).jpg", size: 200_000_000, uniformTypeIdentifier: "public.jpeg"))
            XCTAssertTrue(upload.send(data: [0xFF, 0xD8, 0xFF, 0xE0]))
            for _ in 0..<64 { XCTAssertTrue(upload.send(data: chunk), "upload \(index) refused: \(upload.status?.message ?? "")") }
            uploads.append(upload)
        }
        // 4 × 16 MiB sent; the server consumed (credited) all but a window's worth of it.
        try await waitUntil("the spooled bytes reach the disk") { self.spoolFiles(server).values.reduce(0, +) >= 4 * (16 << 20) - 4 * (2 << 20) }
        let growthMiB = Double(residentKiB() - before) / 1024
        print("RSS growth with 4 unfinished uploads of 16 MiB each: \(String(format: "%.1f", growthMiB)) MiB; spooled: \(spoolFiles(server).values.reduce(0, +) >> 20) MiB")
        XCTAssertLessThan(growthMiB, 24, "64 MiB of upload data must not be held in memory")
        XCTAssertEqual(spoolFiles(server).count, 4)
        // Closing the connection abandons them: their files go.
        connection.close()
        try await waitUntil("abandoned uploads' files are removed") { self.spoolFiles(server).isEmpty }
        _ = uploads
    }

    func testAnEmptyUploadIsAnInvalidArgumentNamedEmptyFile() throws {
        let server = try InProcessServer()
        addTeardownBlock { await server.tearDown() }
        let connection = try server.rawConnection()
        _ = try connection.handshake(token: server.token)
        let header = Wire.UploadChunk(part: .header(Wire.UploadHeader(originalFilename: "empty.jpg", size: 0, uniformTypeIdentifier: "public.jpeg")))
        let result = try connection.call(stream: 1, method: PhotoLibraryMethods.uploadAsset.path, request: header.encoded())
        XCTAssertEqual(result.status.code, .invalidArgument)
        XCTAssertTrue(result.status.message.contains("empty file"), result.status.message)
    }

    /// A size beyond what any upload may have is refused naming the size the client sent
    /// (2^64−1 read as 9223372036854775807 once, clamped to the largest Int).
    func testAnImpossibleSizeIsRefusedAsSent() throws {
        let server = try InProcessServer()
        addTeardownBlock { await server.tearDown() }
        let connection = try server.rawConnection()
        _ = try connection.handshake(token: server.token)
        for (index, size) in [UInt64.max, UInt64(Int.max) + 1, UInt64(Int.max)].enumerated() {
            let header = Wire.UploadChunk(part: .header(Wire.UploadHeader(originalFilename: "huge.mov", size: size, uniformTypeIdentifier: "")))
            let result = try connection.call(stream: UInt32(2 * index + 1), method: PhotoLibraryMethods.uploadAsset.path, request: header.encoded())
            XCTAssertEqual(result.status.code, .resourceExhausted)
            XCTAssertTrue(result.status.message.contains("an upload of \(size) bytes is larger than"), result.status.message)
        }
        XCTAssertTrue(spoolFiles(server).isEmpty)
    }

    /// A file modification date no date can be is refused by name, from the header alone
    /// (later it read as the photo's creation date, which the client never sent).
    func testAFileModificationDateOutsideTheYearsIsRefusedAtTheHeader() throws {
        let server = try InProcessServer()
        addTeardownBlock { await server.tearDown() }
        let connection = try server.rawConnection()
        _ = try connection.handshake(token: server.token)
        let header = Wire.UploadChunk(part: .header(Wire.UploadHeader(
            originalFilename: "x.jpg", size: 1000, uniformTypeIdentifier: "public.jpeg",
            fileModificationDate: Wire.TimestampValue(unixMs: Int64.max / 2))))
        let result = try connection.call(stream: 1, method: PhotoLibraryMethods.uploadAsset.path, request: header.encoded())
        XCTAssertEqual(result.status.code, .invalidArgument)
        XCTAssertTrue(result.status.message.contains("file_modification_date"), result.status.message)
        XCTAssertTrue(spoolFiles(server).isEmpty)
    }

    /// Before: a 10 MB file of another type was read whole before "not a JPEG"; now the first
    /// chunk decides (a GIF: PNG, HEIC and WebP are photos the library takes).
    func testAnotherFileTypeIsRefusedAtTheFirstChunk() throws {
        let server = try InProcessServer()
        addTeardownBlock { await server.tearDown() }
        let connection = try server.rawConnection()
        let welcome = try connection.handshake(token: server.token)
        let upload = RawUpload(
            connection: connection, stream: 1, welcome: welcome,
            header: Wire.UploadHeader(originalFilename: "x.gif", size: 10_000_000, uniformTypeIdentifier: ""))
        upload.send(data: Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 1000))
        let status = try XCTUnwrap(upload.finalStatus(timeout: 10), "no STATUS after the first chunk")
        XCTAssertEqual(status.code, .invalidArgument)
        XCTAssertTrue(status.message.contains("not a JPEG, HEIC, PNG, WebP, MOV or MP4 file") && status.message.contains("47 49 46 38"), status.message)
        XCTAssertTrue(spoolFiles(server).isEmpty)
    }

    /// The server's decode time limit stops an upload check that runs too long, whatever the
    /// client's deadline: the call fails DEADLINE_EXCEEDED and nothing is staged.
    func testAnUploadCheckThatRunsPastTheDecodeTimeLimitIsStopped() async throws {
        var configuration = ServerConfiguration()
        configuration.decodeTimeLimit = 0.005
        let server = try InProcessServer(configuration: configuration)
        addTeardownBlock { await server.tearDown() }
        let connection = try server.rawConnection()
        let welcome = try connection.handshake(token: server.token)
        // The 10-megapixel landscape takes well over 5 ms to decode in full.
        let bytes = try Fixtures.bytes(at: Fixtures.landscape)
        let upload = RawUpload(
            connection: connection, stream: 1, welcome: welcome,
            header: Wire.UploadHeader(originalFilename: "slow.jpg", size: UInt64(bytes.count), uniformTypeIdentifier: "public.jpeg"))
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + 64 * 1024)
            XCTAssertTrue(upload.send(data: Array(bytes[offset..<end]), end: end == bytes.count))
            offset = end
        }
        let status = try XCTUnwrap(upload.finalStatus())
        XCTAssertEqual(status.code, .deadlineExceeded, status.message)
        XCTAssertTrue(status.message.contains("limit of"), status.message)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: server.directory.library + "/uploads"), [], "nothing staged")
        try await waitUntil("its spool file is removed") { self.spoolFiles(server).isEmpty }
    }

    private func waitUntil(_ what: String, timeout: TimeInterval = 10, _ condition: @escaping () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { return XCTFail("timed out waiting until \(what)") }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }
}

/// Resident memory of this process in KiB (`VmRSS` of /proc/self/status).
func residentKiB() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
    return 0
}
