import Foundation
import PhotoLibClient
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `photolibd serve --tls` end to end: the generated identity, pinning by the CLI
/// (PHOTOLIB_FINGERPRINT, `photolib tls pin`) and by `PhotoLibClient`, a wrong fingerprint
/// refused, and plaintext to the TLS port refused clearly. (The warning for plain TCP
/// beyond loopback is `PlaintextWarningTests`.)
final class TLSEndToEndTests: XCTestCase {
    nonisolated(unsafe) private static var fixture: LibraryFixture?
    private var server: ServerProcess { Self.fixture!.server }
    /// A private config directory, so that no pin of the user's own is read or written.
    private var config: TemporaryDirectory!

    override func setUpWithError() throws {
        if Self.fixture == nil { Self.fixture = try LibraryFixture("tls", photos: [Paths.portrait], serverArguments: ["--tls"]) }
        config = try TemporaryDirectory("photolib-e2e-tls-config")
    }

    override func tearDown() {
        config?.remove()
    }

    override class func tearDown() {
        fixture?.shutDown()
        fixture = nil
    }

    /// The fingerprint from `TLS fingerprint SHA256:…`, the server's second stdout line.
    private func printedFingerprint() throws -> String {
        let lines = server.child.stdout.split(separator: "\n").map(String.init)
        guard lines.count >= 2, lines[1].hasPrefix("TLS fingerprint SHA256:") else {
            throw E2EError("expected a second stdout line 'TLS fingerprint SHA256:…', got \(lines)")
        }
        return String(lines[1].dropFirst("TLS fingerprint ".count))
    }

    private func cli(_ arguments: [String], _ environment: [String: String] = [:]) throws -> ProcessResult {
        var env = ["XDG_CONFIG_HOME": config.path, "PHOTOLIB_FINGERPRINT": ""]
        env.merge(environment) { _, new in new }
        return try runCLI(arguments, server: server, environment: env)
    }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0, path)
        return info.st_mode & 0o777
    }

    func testFirstStartGeneratesAPrivateIdentityAndPrintsItsFingerprint() throws {
        let fingerprint = try printedFingerprint()
        XCTAssertEqual(mode(server.library + "/tls"), 0o700)
        XCTAssertEqual(mode(server.library + "/tls/key.pem"), 0o600)
        XCTAssertEqual(mode(server.library + "/tls/cert.pem"), 0o600)
        // The fingerprint is the certificate's, as OpenSSL computes it.
        let show = try cli(["tls", "show", "--json"])
        XCTAssertTrue(show.succeeded, "\(show)")
        XCTAssertTrue(show.stdout.contains(fingerprint), show.stdout)
    }

    func testCLIWithThePinnedFingerprintWorksOverTLS() throws {
        let fingerprint = try printedFingerprint()
        let list = try cli(["ls", "--json"], ["PHOTOLIB_FINGERPRINT": fingerprint])
        XCTAssertTrue(list.succeeded, "\(list)")
        let id = try XCTUnwrap(try JSONDecoder().decode([AssetJSON].self, from: Data(list.stdout.utf8)).first?.localIdentifier)
        // An image's bytes, many records, over TLS.
        let output = config.file("image.jpg")
        let get = try cli(["get", id, "--size", "1024x1024", "-o", output], ["PHOTOLIB_FINGERPRINT": fingerprint])
        XCTAssertTrue(get.succeeded, "\(get)")
        XCTAssertGreaterThan((try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0, 10_000)
    }

    func testAWrongFingerprintIsRefusedSayingBothAndHowToRepin() throws {
        let fingerprint = try printedFingerprint()
        let wrong = "SHA256:" + String(repeating: "A", count: 43)
        let result = try cli(["ls", "--json"], ["PHOTOLIB_FINGERPRINT": wrong])
        XCTAssertFalse(result.succeeded, "\(result)")
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(result.stderr.contains("UNAUTHENTICATED"), result.stderr)
        XCTAssertTrue(result.stderr.contains(fingerprint), "names the presented fingerprint: \(result.stderr)")
        XCTAssertTrue(result.stderr.contains(wrong), "names the pinned fingerprint: \(result.stderr)")
        XCTAssertTrue(result.stderr.contains("photolib tls pin"), result.stderr)
        // The server is fine afterwards.
        XCTAssertTrue(try cli(["ls", "--json"], ["PHOTOLIB_FINGERPRINT": fingerprint]).succeeded)
    }

    func testPlaintextToTheTLSPortIsRefusedClearly() throws {
        let result = try cli(["ls", "--json"])
        XCTAssertFalse(result.succeeded, "\(result)")
        XCTAssertTrue(result.stderr.contains("accepts TLS connections only"), result.stderr)
        XCTAssertTrue(result.stderr.contains("FAILED_PRECONDITION"), result.stderr)
        XCTAssertTrue(server.log.contains("instead of a TLS handshake"), server.log)
    }

    /// The benchmarks connect as every command does: with the pin (or --tls), to a TLS port.
    /// Before, they took the options and connected in plain text, refused by the TLS port.
    func testBenchmarksConnectOverTLSWithThePin() throws {
        let fingerprint = try printedFingerprint()
        for arguments in [["bench", "images", "--requests", "20", "--json"], ["bench", "fetch", "--json"]] {
            let result = try cli(arguments, ["PHOTOLIB_FINGERPRINT": fingerprint])
            XCTAssertTrue(result.succeeded, "photolib \(arguments.joined(separator: " ")): \(result)")
            XCTAssertFalse(result.stderr.contains("accepts TLS connections only"), result.stderr)
        }
    }

    func testPinStoredWithTrustOnFirstUseIsUsedAndEnforced() throws {
        let fingerprint = try printedFingerprint()
        XCTAssertFalse(try cli(["tls", "pin"]).succeeded, "a pin needs a fingerprint or --trust-on-first-use")
        let mismatch = try cli(["tls", "pin", "SHA256:" + String(repeating: "B", count: 43)])
        XCTAssertFalse(mismatch.succeeded)
        XCTAssertTrue(mismatch.stderr.contains("nothing was pinned"), mismatch.stderr)

        let pinned = try cli(["tls", "pin", "--trust-on-first-use"])
        XCTAssertTrue(pinned.succeeded, "\(pinned)")
        XCTAssertTrue(pinned.stdout.contains(fingerprint), pinned.stdout)
        XCTAssertEqual(mode(config.file("photolib/known_servers")), 0o600)
        // Later commands use the stored pin: no flag, no environment.
        XCTAssertTrue(try cli(["ls", "--json"]).succeeded)
        // An explicit pin of the right fingerprint (as printed) is accepted too.
        XCTAssertTrue(try cli(["tls", "pin", fingerprint]).succeeded)
        XCTAssertTrue(try cli(["tls", "forget"]).succeeded)
        XCTAssertFalse(try cli(["ls", "--json"]).succeeded, "no pin, no TLS: plaintext is refused")
    }

    func testAuthRequestOverAPinnedConnectionKeepsThePinWithTheToken() throws {
        let fingerprint = try printedFingerprint()
        let asked = try cli(
            ["auth", "request", "--name", "Kitchen frame", "--access", "read-write", "--json"], ["PHOTOLIB_FINGERPRINT": fingerprint, "PHOTOLIB_TOKEN": ""])
        XCTAssertTrue(asked.succeeded, "\(asked)")
        struct Grant: Decodable {
            var token: String
            var pinnedFingerprint: String?
        }
        let grant = try JSONDecoder().decode(Grant.self, from: Data(asked.stdout.utf8))
        XCTAssertEqual(grant.pinnedFingerprint, fingerprint)
        // Stored as `photolib tls pin` stores it: known_servers, HOST:PORT → SHA256:…, 0600.
        XCTAssertEqual(mode(config.file("photolib/known_servers")), 0o600)
        let known = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: URL(fileURLWithPath: config.file("photolib/known_servers"))))
        XCTAssertEqual(known, [server.address: fingerprint])
        let show = try cli(["tls", "show", "--json"])
        XCTAssertTrue(show.stdout.contains("\"matches\" : true"), "\(show)")
        // The next command, with neither the variable nor a token given, finds the stored
        // token and the stored pin: TLS before the token (in plain text the server refused it).
        let status = try cli(["auth", "status", "--json"], ["PHOTOLIB_TOKEN": ""])
        XCTAssertTrue(status.succeeded, "\(status)")
        XCTAssertTrue(status.stdout.contains("not determined"), status.stdout)
        XCTAssertFalse(status.stderr.contains("accepts TLS connections only"), status.stderr)
    }

    func testPhotoLibClientPinsTheFingerprint() async throws {
        let fingerprint = try TLSFingerprint(parsing: try printedFingerprint())
        var configuration = ClientConfiguration()
        configuration.tls = .pinned(fingerprint)
        let library = try await connectClient(server, configuration: configuration)
        let info = try await library.libraryInfo()
        XCTAssertEqual(info.assetCount, 1)
        library.close()

        var wrongBytes = fingerprint.bytes
        wrongBytes[31] ^= 1
        configuration.tls = .pinned(try XCTUnwrap(TLSFingerprint(bytes: wrongBytes)))
        do {
            let refused = try await connectClient(server, configuration: configuration)
            refused.close()
            XCTFail("a wrong pin connected")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .unauthenticated, "\(error)")
        }
        let presented = try await PhotoLibrary.serverFingerprint(of: server.address)
        XCTAssertEqual(presented, fingerprint)
    }

    func testThePythonInteropClientSpeaksTLSFromTheProtocolDocument() throws {
        let python = "/usr/bin/python3"
        let script = Paths.packageRoot + "/Tests/interop/photolib_client.py"
        guard FileManager.default.isExecutableFile(atPath: python),
            (try? ChildProcess.run(python, ["-c", "import google.protobuf"]))?.succeeded == true
        else {
            throw XCTSkip("\(python) with google.protobuf is needed (apt-get install python3-protobuf)")
        }
        let fingerprint = try printedFingerprint()
        let result = try ChildProcess.run(
            python, [script, "--server", server.address, "--token", server.token, "--fingerprint", fingerprint, "--expect-assets", "1", "--quick"],
            timeout: 150)
        XCTAssertTrue(result.succeeded, "the interop client failed over TLS: \(result)\n--- server log ---\n\(server.log)")
        // And it refuses a server whose certificate is not the pinned one.
        let wrong = try ChildProcess.run(
            python, [script, "--server", server.address, "--token", server.token, "--fingerprint", "SHA256:" + String(repeating: "A", count: 43), "--quick"],
            timeout: 60)
        XCTAssertFalse(wrong.succeeded, "\(wrong)")
        XCTAssertTrue((wrong.stdout + wrong.stderr).contains(fingerprint), "\(wrong)")
    }
}
