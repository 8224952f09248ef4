import Foundation
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// Malformed input over the in-process transport (the real server code on one end of a socket
/// pair): every bad connection gets a clear answer (GOAWAY, or a STATUS for one call) and the
/// server keeps serving everybody else.
final class ProtocolErrorTests: XCTestCase {
    nonisolated(unsafe) private static var fixture: InProcessServer?
    private var server: InProcessServer { Self.fixture! }
    private static let service = "/photolib.v1.PhotoLibrary/"

    override func setUpWithError() throws {
        if Self.fixture == nil { Self.fixture = try InProcessServer(photos: [Fixtures.landscape, Fixtures.portrait]) }
    }

    override class func tearDown() {
        // Wait for the shutdown, so no connection of this suite closes during the next one.
        if let fixture {
            let stopped = DispatchSemaphore(value: 0)
            Task {
                await fixture.tearDown()
                stopped.signal()
            }
            stopped.wait()
        }
        fixture = nil
    }

    override func tearDownWithError() throws {
        // After every bad connection, a good client on a new connection still works.
        let connection = try handshaken()
        defer { connection.close() }
        let info = try connection.call(stream: 1, method: Self.service + "GetLibraryInfo")
        XCTAssertEqual(info.status.code, .ok, "a good client is still served: \(info.status.message)")
        XCTAssertEqual(try Wire.LibraryInfo(decoding: info.messages.first ?? []).assetCount, 2, "and sees the library")
    }

    private func connect() throws -> RawConnection { try server.rawConnection() }

    private func handshaken() throws -> RawConnection {
        let connection = try connect()
        _ = try connection.handshake(token: server.token)
        return connection
    }

    /// Reads the next frame, asserts it is a GOAWAY with `code` (and `reason` if given), then
    /// that the server closes the connection.
    @discardableResult
    private func expectGoAwayAndClose(_ connection: RawConnection, code: Wire.StatusCode?, reason: Wire.ErrorReason? = nil, _ what: String, file: StaticString = #filePath, line: UInt = #line) -> Wire.GoAway? {
        let (read, skipped) = connection.readUntil { $0.type == .goAway }
        XCTAssertFalse(skipped.contains { $0.type == .welcome }, "\(what): no WELCOME may be sent", file: file, line: line)
        guard case .frame(let frame) = read else {
            XCTFail("\(what): expected GOAWAY, got \(read)", file: file, line: line)
            return nil
        }
        XCTAssertEqual(frame.streamID, 0, "\(what): GOAWAY is on stream 0", file: file, line: line)
        let goAway: Wire.GoAway
        do {
            goAway = try Wire.GoAway(decoding: frame.payload)
        } catch {
            XCTFail("\(what): undecodable GOAWAY payload: \(error)", file: file, line: line)
            return nil
        }
        if let code {
            XCTAssertEqual(goAway.status?.code, code, "\(what): GOAWAY status \(goAway.status?.code ?? .ok) \(goAway.status?.message ?? "")", file: file, line: line)
        } else {
            XCTAssertNotEqual(goAway.status?.code, .ok, "\(what): GOAWAY carries an error", file: file, line: line)
        }
        if let reason {
            XCTAssertEqual(goAway.status?.reason, reason, "\(what): GOAWAY reason", file: file, line: line)
        }
        XCTAssertFalse(goAway.status?.message.isEmpty ?? true, "\(what): GOAWAY says what went wrong", file: file, line: line)
        XCTAssertTrue(connection.waitForClose(timeout: 10), "\(what): the server closes the connection after GOAWAY", file: file, line: line)
        return goAway
    }

    // MARK: (a) truncated frame

    func testTruncatedFrameThenCloseDoesNotHurtTheServer() throws {
        // Before the handshake: a HELLO header promising 100 bytes, 10 of them, close.
        let early = try connect()
        early.send(RawConnection.rawFrame(length: 100, type: 1, payload: Array(repeating: 0x08, count: 10)))
        early.close()
        // After the handshake: a MESSAGE promising 100 bytes, 10 of them, close.
        let late = try handshaken()
        late.send(RawConnection.rawFrame(length: 100, type: 4, stream: 1, payload: Array(repeating: 0, count: 10)))
        late.close()
        // A header cut in the middle.
        let cut = try connect()
        cut.send([0x00, 0x00, 0x00])
        cut.close()
    }

    func testTruncatedFrameLeftOpenIsNotAnsweredAsIfComplete() throws {
        let connection = try handshaken()
        connection.send(RawConnection.rawFrame(length: 100, type: 3, stream: 1, payload: Array(repeating: 0, count: 10)))
        // The server waits for the rest (or closes); it must not act on half a frame.
        let read = connection.readFrame(timeout: 1)
        if case .frame(let frame) = read {
            XCTAssertEqual(frame.type, .goAway, "only a GOAWAY may answer half a frame, got \(read)")
        }
    }

    // MARK: (b) oversized length

    func testOversizedLengthBeforeHandshakeGetsGoAway() throws {
        let connection = try connect()
        connection.send(RawConnection.rawFrame(length: 0x7FFF_FFFF, type: 1))
        expectGoAwayAndClose(connection, code: .resourceExhausted, "HELLO of 0x7FFFFFFF bytes")
    }

    func testHelloOver64KiBGetsGoAwayResourceExhausted() throws {
        let connection = try connect()
        connection.send(RawConnection.rawFrame(length: 70_000, type: 1))
        expectGoAwayAndClose(connection, code: .resourceExhausted, reason: .protocolViolation, "HELLO of 70000 bytes")
    }

    func testOversizedLengthAfterHandshakeGetsGoAway() throws {
        let connection = try handshaken()
        connection.send(RawConnection.rawFrame(length: 0x7FFF_FFFF, type: 4, stream: 1))
        expectGoAwayAndClose(connection, code: .resourceExhausted, reason: .protocolViolation, "MESSAGE of 0x7FFFFFFF bytes")
    }

    // MARK: (c) unknown frame type

    func testUnknownFrameTypeAfterHelloGetsGoAway() throws {
        let connection = try handshaken()
        connection.send(RawConnection.rawFrame(length: 0, type: 42))
        let goAway = expectGoAwayAndClose(connection, code: .invalidArgument, reason: .protocolViolation, "frame type 42")
        XCTAssertTrue(goAway?.status?.message.contains("42") == true, "the message names the type: \(goAway?.status?.message ?? "")")
    }

    // MARK: (d) bad handshake

    func testFirstFrameCallGetsGoAway() throws {
        let connection = try connect()
        connection.send(Frame(.call, stream: 1, payload: Wire.CallStart(method: Self.service + "GetLibraryInfo").encoded()))
        connection.send(Frame(.message, stream: 1, flags: .endStream))
        let goAway = expectGoAwayAndClose(connection, code: .invalidArgument, "CALL before HELLO")
        XCTAssertEqual(goAway?.lastStreamID, 0)
    }

    func testHelloWithGarbagePayloadGetsGoAway() throws {
        let connection = try connect()
        // A field tag of wire type 7 (invalid) followed by junk.
        connection.send(Frame(.hello, payload: [0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x13, 0x37, 0xC0, 0xDE]))
        let goAway = expectGoAwayAndClose(connection, code: .invalidArgument, "HELLO with garbage payload")
        XCTAssertEqual(goAway?.lastStreamID, 0)
    }

    func testHelloWithUnsupportedVersionGetsFailedPrecondition() throws {
        let connection = try connect()
        connection.send(Frame(.hello, payload: Wire.Hello(protocolVersion: 2, token: server.token, clientName: "e2e/v2").encoded()))
        expectGoAwayAndClose(connection, code: .failedPrecondition, "HELLO protocol_version 2")
    }

    func testHelloWithWrongTokenGetsUnauthenticated() throws {
        let connection = try connect()
        connection.send(Frame(.hello, payload: Wire.Hello(protocolVersion: WireLimits.protocolVersion, token: "wrong", clientName: "e2e").encoded()))
        expectGoAwayAndClose(connection, code: .unauthenticated, "HELLO with a wrong token")
    }

    // MARK: (e) invalid text

    /// A HELLO by hand: version 1, the owner token, and `clientName` as raw bytes.
    private func helloPayload(clientName: [UInt8]) -> [UInt8] {
        Proto.field(1, varint: 1) + Proto.field(2, bytes: Array(server.token.utf8)) + Proto.field(3, bytes: clientName)
    }

    func testHelloWithInvalidUTF8ClientNameIsRefused() throws {
        let connection = try connect()
        connection.send(Frame(.hello, payload: helloPayload(clientName: [0x65, 0x32, 0x65, 0xC3, 0x28])))
        expectGoAwayAndClose(connection, code: nil, "HELLO whose client_name is invalid UTF-8 (C3 28)")
    }

    func testHelloWithNULInClientNameIsRefused() throws {
        let connection = try connect()
        connection.send(Frame(.hello, payload: helloPayload(clientName: Array("e2e".utf8) + [0x00] + Array("x".utf8))))
        expectGoAwayAndClose(connection, code: nil, "HELLO whose client_name holds a NUL")
    }

    func testCallWithInvalidUTF8MethodFailsOnlyThatCall() throws {
        let connection = try handshaken()
        let method = Array((Self.service + "GetLibrary").utf8) + [0xC3, 0x28] + Array("Info".utf8)
        let bad = try connection.call(stream: 1, callPayload: Proto.field(1, bytes: method))
        XCTAssertEqual(bad.status.code, .invalidArgument, "invalid UTF-8 method: \(bad.status.code) \(bad.status.message)")
        let nul = try connection.call(stream: 3, callPayload: Proto.field(1, bytes: Array((Self.service + "GetLibraryInfo").utf8) + [0x00]))
        XCTAssertEqual(nul.status.code, .invalidArgument, "method with a NUL: \(nul.status.code) \(nul.status.message)")
        try assertConnectionUsable(connection, stream: 5)
    }

    func testRequestWithInvalidTextFailsWithInvalidTextAndTheConnectionGoesOn() throws {
        let connection = try handshaken()
        // FetchAssetsRequest{options: FetchOptions{predicate: "isFavorite == true\0"}}
        let nulPredicate = Proto.field(1, bytes: Proto.field(1, bytes: Array("isFavorite == true".utf8) + [0x00]))
        let first = try connection.call(stream: 1, method: Self.service + "FetchAssets", request: nulPredicate)
        XCTAssertEqual(first.status.code, .invalidArgument, "\(first.status.message)")
        XCTAssertEqual(first.status.reason, .invalidText, "NUL in a nested string: \(first.status.message)")
        // FetchAssetsRequest{options: FetchOptions{local_identifiers: ["\xC3("]}}
        let badIdentifier = Proto.field(1, bytes: Proto.field(6, bytes: [0xC3, 0x28]))
        let second = try connection.call(stream: 3, method: Self.service + "FetchAssets", request: badIdentifier)
        XCTAssertEqual(second.status.code, .invalidArgument, "\(second.status.message)")
        XCTAssertEqual(second.status.reason, .invalidText, "invalid UTF-8 in a repeated nested string: \(second.status.message)")
        // A request that is not protobuf at all.
        let garbage = try connection.call(stream: 5, method: Self.service + "FetchAssets", request: [0xFF, 0xFF, 0xFF, 0xFF, 0x0F])
        XCTAssertEqual(garbage.status.code, .invalidArgument, "undecodable request: \(garbage.status.message)")
        try assertConnectionUsable(connection, stream: 7)
    }

    // MARK: (f) unknown and unbuilt methods

    func testUnknownAndUnbuiltMethodsAreUnimplemented() throws {
        let connection = try handshaken()
        let unknown = try connection.call(stream: 1, method: Self.service + "TeleportPhotos")
        XCTAssertEqual(unknown.status.code, .unimplemented, "\(unknown.status.message)")
        let otherService = try connection.call(stream: 3, method: "/photolib.v1.Elsewhere/GetLibraryInfo")
        XCTAssertEqual(otherService.status.code, .unimplemented, "\(otherService.status.message)")
        let wrongCase = try connection.call(stream: 5, method: Self.service + "getlibraryinfo")
        XCTAssertEqual(wrongCase.status.code, .unimplemented, "method names are case-sensitive: \(wrongCase.status.message)")
        try assertConnectionUsable(connection, stream: 7)
    }

    /// The methods table of docs/PROTOCOL.md section 17: (method, shape, status column).
    private static func documentedMethods() throws -> [(name: String, shape: String, status: String)] {
        let text = try String(contentsOfFile: Fixtures.packageRoot + "/docs/PROTOCOL.md", encoding: .utf8)
        guard let start = text.range(of: "## 17. Methods") else { throw RawConnectionError("docs/PROTOCOL.md has no section '## 17. Methods'") }
        var rows: [(String, String, String)] = []
        for line in text[start.upperBound...].split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5, cells[0].hasPrefix("`") else { continue }
            rows.append((cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")), cells[1], cells[cells.count - 1]))
        }
        return rows
    }

    /// Every method the document lists as not built yet (PerformChanges, Subscribe, … at the time
    /// of writing) answers STATUS UNIMPLEMENTED with a message; every unary method listed as built
    /// answers something else; and the connection stays usable throughout.
    func testMethodsDocumentedAsUnbuiltAnswerUnimplemented() throws {
        let methods = try Self.documentedMethods()
        XCTAssertGreaterThanOrEqual(methods.count, 20, "the methods table of docs/PROTOCOL.md section 17 was not found")
        // Every method is built now; a method added to the protocol before its handler is listed here.
        let unbuilt = methods.filter { $0.status.hasPrefix("UNIMPLEMENTED") }
        let connection = try handshaken()
        var stream: UInt32 = 1
        for method in unbuilt {
            let result = try connection.call(stream: stream, method: Self.service + method.name)
            stream += 2
            XCTAssertEqual(result.status.code, .unimplemented, "\(method.name) is documented as \(method.status): \(result.status.code) \(result.status.message)")
            XCTAssertFalse(result.status.message.isEmpty, "\(method.name): the message says it is not built yet")
        }
        for method in methods where method.status.hasPrefix("built") && method.shape == "unary" {
            let result = try connection.call(stream: stream, method: Self.service + method.name)
            stream += 2
            XCTAssertNotEqual(result.status.code, .unimplemented, "\(method.name) is documented as built: \(result.status.message)")
        }
        try assertConnectionUsable(connection, stream: stream)
    }

    /// A GetLibraryInfo on the same raw connection still succeeds.
    private func assertConnectionUsable(_ connection: RawConnection, stream: UInt32, file: StaticString = #filePath, line: UInt = #line) throws {
        let info = try connection.call(stream: stream, method: Self.service + "GetLibraryInfo")
        XCTAssertEqual(info.status.code, .ok, "the connection stays usable: \(info.status.message)", file: file, line: line)
        XCTAssertEqual(info.messages.count, 1, "one Wire.LibraryInfo response", file: file, line: line)
    }

    // MARK: keepalive

    func testPingIsAnsweredWithTheSameOpaque() throws {
        let connection = try handshaken()
        connection.send(Frame(.ping, payload: Wire.Ping(opaque: 0x0807_0605_0403_0201).encoded()))
        let (read, _) = connection.readUntil(timeout: 10) { $0.type == .ping && $0.flags.contains(.ack) }
        guard case .frame(let frame) = read else { return XCTFail("no PING ACK: \(read)") }
        XCTAssertEqual(try Wire.Ping(decoding: frame.payload).opaque, 0x0807_0605_0403_0201)
    }
}
