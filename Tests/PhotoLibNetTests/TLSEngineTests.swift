import XCTest

@testable import PhotoLibNet

/// Two `TLSEngine`s talking through byte arrays alone: the handshake, data both ways in
/// pieces of every size, pinning, and peers that do not speak TLS or break it.
final class TLSEngineTests: XCTestCase {
    /// One identity for the whole class (key generation is quick, but not free).
    static let identity: TLSIdentity = try! TLSIdentity.generate(commonName: "photolibd-test")
    static let serverContext: TLSContext = try! TLSContext.server(identity: identity)
    static let clientContext: TLSContext = try! TLSContext.client()

    /// A client and a server engine joined by byte arrays; `chunk` is the largest piece
    /// either side receives at once.
    final class Link {
        let client: TLSEngine
        let server: TLSEngine
        var chunk: Int
        var clientReceived: [UInt8] = []
        var serverReceived: [UInt8] = []

        init(pin: TLSFingerprint? = TLSEngineTests.identity.fingerprint, chunk: Int = .max) throws {
            client = try TLSEngine.client(context: TLSEngineTests.clientContext, serverName: "127.0.0.1", pin: pin)
            server = try TLSEngine.server(context: TLSEngineTests.serverContext)
            self.chunk = chunk
        }

        /// Ciphertext on its way (what `send` returned joins it).
        var toServer: [UInt8] = []
        var toClient: [UInt8] = []

        /// The client encrypts `plaintext`; the records join ``toServer``.
        func clientSends(_ plaintext: [UInt8]) throws(TLSError) { toServer += try client.send(plaintext) }
        /// The server encrypts `plaintext`; the records join ``toClient``.
        func serverSends(_ plaintext: [UInt8]) throws(TLSError) { toClient += try server.send(plaintext) }

        /// Moves bytes both ways until neither side has anything to send.
        func run() throws(TLSError) {
            while true {
                let fromClient = toServer + client.takeOutput()
                let fromServer = toClient + server.takeOutput()
                toServer = []
                toClient = []
                if fromClient.isEmpty && fromServer.isEmpty { return }
                for piece in pieces(fromClient) { serverReceived += try server.receive(piece) }
                for piece in pieces(fromServer) { clientReceived += try client.receive(piece) }
            }
        }

        private func pieces(_ bytes: [UInt8]) -> [[UInt8]] {
            stride(from: 0, to: bytes.count, by: chunk).map { Array(bytes[$0..<min(bytes.count, $0 + chunk)]) }
        }
    }

    private func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    private func expectError(_ code: TLSError.Code, _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> TLSError? {
        do {
            try body()
            XCTFail("expected \(code), got no error", file: file, line: line)
            return nil
        } catch let error as TLSError {
            XCTAssertEqual(error.code, code, error.message, file: file, line: line)
            return error
        } catch {
            XCTFail("expected a TLSError, got \(error)", file: file, line: line)
            return nil
        }
    }

    func testHandshakeCompletesAndVerifiesByPin() throws {
        let link = try Link()
        XCTAssertFalse(link.client.isHandshakeComplete)
        try link.run()
        XCTAssertTrue(link.client.isHandshakeComplete)
        XCTAssertTrue(link.server.isHandshakeComplete)
        XCTAssertEqual(link.client.peerFingerprint, Self.identity.fingerprint)
        XCTAssertNil(link.server.peerFingerprint)
        XCTAssertEqual(link.client.protocolVersion, "TLSv1.3")
    }

    func testDataBothWaysInEveryChunkSize() throws {
        for chunk in [1, 2, 3, 5, 7, 13, 100, 1_000, 4_096, 16_384, 16_406, 65_536, .max] {
            let link = try Link(chunk: chunk)
            try link.run()
            let up = bytes(40_000, seed: UInt64(chunk))
            let down = bytes(50_001, seed: UInt64(chunk) &+ 1)
            // Several writes each way, of sizes around the 16 KiB record limit.
            var offset = 0
            for size in [1, 0, 16_383, 16_384, 16_385, 7_247] {
                let end = min(up.count, offset + size)
                try link.clientSends(Array(up[offset..<end]))
                offset = end
            }
            try link.clientSends(Array(up[offset...]))
            try link.server.send(encoding: { $0.append(contentsOf: down) }, into: &link.toClient)
            try link.run()
            XCTAssertEqual(link.serverReceived, up, "chunk \(chunk)")
            XCTAssertEqual(link.clientReceived, down, "chunk \(chunk)")
        }
    }

    func testRecordsSplitByteByByteAtTheStart() throws {
        // The handshake itself arrives one byte at a time on both sides.
        let link = try Link(chunk: 1)
        try link.clientSends(Array("HELLO before the handshake".utf8))
        try link.run()
        XCTAssertEqual(String(decoding: link.serverReceived, as: UTF8.self), "HELLO before the handshake")
    }

    func testPlaintextSentBeforeTheHandshakeIsHeldThenDelivered() throws {
        let link = try Link()
        let early = try link.client.send([1, 2, 3])
        // Only the ClientHello: the plaintext waits for the handshake.
        XCTAssertFalse(early.isEmpty)
        link.serverReceived += try link.server.receive(early)
        try link.run()
        XCTAssertEqual(link.serverReceived, [1, 2, 3])
    }

    func testABigMessage() throws {
        let link = try Link(chunk: 65_536)
        try link.run()
        // 8 MiB: 128 distinct rotations of one random 64 KiB block (quick to make in a debug build).
        let block = bytes(64 << 10, seed: 42)
        let big = (0..<128).flatMap { Array(block[($0 * 509)...] + block[..<($0 * 509)]) }
        try link.serverSends(big)
        try link.run()
        XCTAssertEqual(link.clientReceived.count, big.count)
        XCTAssertTrue(link.clientReceived == big)
    }

    func testWrongFingerprintIsRefusedSayingExpectedAndPresented() throws {
        var wrongBytes = Self.identity.fingerprint.bytes
        wrongBytes[0] ^= 0xFF
        let wrong = try XCTUnwrap(TLSFingerprint(bytes: wrongBytes))
        let link = try Link(pin: wrong)
        // The client refuses the server's certificate while handling the server's flight.
        let error = expectError(.fingerprintMismatch) { try link.run() }
        XCTAssertEqual(error?.expectedFingerprint, wrong)
        XCTAssertEqual(error?.presentedFingerprint, Self.identity.fingerprint)
        XCTAssertTrue(error?.message.contains(wrong.description) ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.contains(Self.identity.fingerprint.description) ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.contains("photolib tls pin") ?? false, error?.message ?? "")
        XCTAssertEqual(error?.photoLibError.code, .unauthenticated)
        XCTAssertFalse(link.client.isHandshakeComplete)
        // No application data ever leaves a refused client.
        XCTAssertThrowsError(try link.client.send([1, 2, 3]))
        // The alert reaches the server, which fails the handshake too.
        let alert = link.client.takeOutput()
        XCTAssertFalse(alert.isEmpty)
        let serverError = expectError(.handshakeRefused) { _ = try link.server.receive(alert) }
        XCTAssertTrue(serverError?.message.contains("pins another fingerprint") ?? false, serverError?.message ?? "")
        XCTAssertFalse(link.server.isHandshakeComplete)
    }

    func testSelfSignedCertificateWithoutPinIsUntrusted() throws {
        let link = try Link(pin: nil)
        let error = expectError(.untrustedCertificate) { try link.run() }
        XCTAssertEqual(error?.presentedFingerprint, Self.identity.fingerprint)
        XCTAssertTrue(error?.message.contains("self-signed") ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.contains(Self.identity.fingerprint.description) ?? false, error?.message ?? "")
    }

    func testPlaintextToATLSPortIsRefusedClearly() throws {
        let server = try TLSEngine.server(context: Self.serverContext)
        // A plaintext PhotoLib HELLO frame (docs/PROTOCOL.md 3.4), delivered byte by byte.
        let hello: [UInt8] = [0, 0, 0, 0x25, 1, 0, 0, 0, 0, 0, 8, 1, 0x12, 8]
        XCTAssertEqual(try server.receive([hello[0]]), [])
        let error = expectError(.notTLS) { _ = try server.receive(Array(hello[1...])) }
        XCTAssertTrue(error?.message.contains("plaintext PhotoLib HELLO frame") ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.contains("TLS only") ?? false, error?.message ?? "")
        XCTAssertEqual(error?.receivedBytes, hello)
        XCTAssertEqual(error?.photoLibError.code, .unavailable)
        // Final: more bytes give the same error, never a crash.
        XCTAssertEqual(expectError(.notTLS) { _ = try server.receive([1, 2, 3]) }, error)
        XCTAssertTrue(server.takeOutput().isEmpty, "nothing is said in TLS to a peer that does not speak it")

        let http = try TLSEngine.server(context: Self.serverContext)
        let httpError = expectError(.notTLS) { _ = try http.receive(Array("GET / HTTP/1.1\r\n".utf8)) }
        XCTAssertTrue(httpError?.message.contains("HTTP") ?? false, httpError?.message ?? "")
    }

    func testAPlaintextServerAnsweringATLSClientIsRefusedClearly() throws {
        let client = try TLSEngine.client(context: Self.clientContext, serverName: "nas.local", pin: Self.identity.fingerprint)
        _ = client.takeOutput()
        // A plaintext server's GOAWAY (it could not read the ClientHello as a frame).
        let goAway: [UInt8] = [0, 0, 0, 4, 9, 0, 0, 0, 0, 0, 0x12, 2, 8, 3]
        let error = expectError(.notTLS) { _ = try client.receive(goAway) }
        XCTAssertTrue(error?.message.contains("nas.local") ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.contains("GOAWAY") ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.contains("--tls") ?? false, error?.message ?? "")
        XCTAssertEqual(error?.receivedBytes, goAway)
    }

    func testGarbageAfterTheHandshakeIsRefusedWithoutACrash() throws {
        for seed in UInt64(1)...20 {
            let link = try Link()
            try link.run()
            let garbage = bytes(1 + Int(seed) * 97, seed: seed)
            // A record header that parses (application data, TLS 1.2 marker) then noise, or pure noise.
            let record: [UInt8] = seed % 2 == 0 ? [0x17, 0x03, 0x03, 0x00, UInt8(garbage.count % 200 + 17)] + garbage : garbage
            do {
                _ = try link.server.receive(record)
                // Too short for a whole record: the engine waits, which is fine.
                XCTAssertFalse(link.server.error != nil)
            } catch {
                XCTAssertEqual(error.code, .protocolViolation, "seed \(seed): \(error.message)")
                XCTAssertEqual(link.server.error, error)
                XCTAssertThrowsError(try link.server.receive([0x17]))
            }
        }
    }

    func testAFlippedBitInARecordFailsItsIntegrityCheck() throws {
        let link = try Link()
        try link.run()
        var record = try link.client.send(Array("a frame".utf8))
        record[record.count - 3] ^= 0x01
        let error = expectError(.protocolViolation) { _ = try link.server.receive(record) }
        XCTAssertTrue(error?.message.contains("not a valid TLS stream") ?? false, error?.message ?? "")
        // The server tells the client why (an alert) before closing.
        XCTAssertFalse(link.server.takeOutput().isEmpty)
    }

    func testGarbageInsteadOfAHandshakeIsRefused() throws {
        for seed in UInt64(1)...20 {
            let server = try TLSEngine.server(context: Self.serverContext)
            // Looks like a TLS handshake record for two bytes, then is noise: longer than any
            // record the header's length can announce, so the engine cannot wait for more.
            let noise: [UInt8] = [0x16, 0x03] + bytes(20_000, seed: seed)
            XCTAssertThrowsError(try server.receive(noise)) { error in
                XCTAssertTrue([.protocolViolation, .handshakeRefused].contains((error as? TLSError)?.code), "\(error)")
            }
        }
    }

    func testATruncatedRecordWaitsAndNothingIsDelivered() throws {
        let link = try Link()
        try link.run()
        let record = try link.client.send(Array(repeating: 7, count: 1_000))
        XCTAssertEqual(try link.server.receive(Array(record.dropLast())), [])
        XCTAssertNil(link.server.error)
        XCTAssertEqual(try link.server.receive([record.last!]), Array(repeating: 7, count: 1_000))
    }

    func testCloseNotifyEndsTheSession() throws {
        let link = try Link()
        try link.run()
        let goodbye = link.client.close()
        XCTAssertFalse(goodbye.isEmpty)
        XCTAssertEqual(try link.server.receive(goodbye), [])
        XCTAssertTrue(link.server.isClosedByPeer)
        XCTAssertEqual(try link.server.receive([1, 2, 3]), [])
    }

    func testTLSStreamSendsHandshakeAndSealsFrames() throws {
        var toServer: [UInt8] = []
        var toClient: [UInt8] = []
        let clientEngine = try TLSEngine.client(context: Self.clientContext, serverName: "localhost", pin: Self.identity.fingerprint)
        let client = TLSStream(engine: clientEngine) { toServer += $0 }
        let server = try TLSStream(serverContext: Self.serverContext) { toClient += $0 }
        client.start()
        client.write(encoding: { $0 += [0xAB, 0xCD] })
        var serverPlaintext: [UInt8] = []
        var clientPlaintext: [UInt8] = []
        for _ in 0..<4 {
            let up = toServer
            toServer = []
            serverPlaintext += try server.receive(up)
            let down = toClient
            toClient = []
            clientPlaintext += try client.receive(down)
        }
        server.write([1, 2, 3])
        clientPlaintext += try client.receive(toClient)
        XCTAssertEqual(serverPlaintext, [0xAB, 0xCD])
        XCTAssertEqual(clientPlaintext, [1, 2, 3])
        XCTAssertTrue(clientEngine.isHandshakeComplete)
    }

    func testEnginesRefuseTheWrongContext() {
        XCTAssertThrowsError(try TLSEngine.server(context: Self.clientContext))
        XCTAssertThrowsError(try TLSEngine.client(context: Self.serverContext, serverName: "x", pin: nil))
        // Without a pin a certificate can only be checked against a host name.
        XCTAssertThrowsError(try TLSEngine.client(context: Self.clientContext, serverName: "", pin: nil)) { error in
            XCTAssertEqual((error as? TLSError)?.code, .invalidArgument)
        }
    }
}
