import Foundation
import PhotoLibTestSupport
import XCTest

/// PhotoKit's permission flow through the CLI against a real photolibd: a client asks and
/// waits, the owner approves, the client works with its stored credential; an add-only client
/// uploads and nothing else; revoking ends the client's open watch at once.
final class AuthorizationCLITests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: ServerProcess!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("photolib-e2e-auth")
        server = try ServerProcess.start(importing: [Paths.landscape, Paths.portrait], library: directory.file("library"))
    }

    override func tearDown() {
        server?.stopGracefully()
        server = nil
        directory?.remove()
    }

    /// The environment of a program other than the owner: the server, no token, its own
    /// credentials file.
    private func clientEnvironment(_ name: String) -> [String: String] {
        ["PHOTOLIB_SERVER": server.address, "PHOTOLIB_TOKEN": "", "XDG_CONFIG_HOME": directory.file("config-\(name)")]
    }

    private func owner(_ arguments: [String]) throws -> ProcessResult {
        let result = try runCLI(arguments, server: server)
        XCTAssertTrue(result.succeeded, "photolib \(arguments.joined(separator: " ")): \(result)")
        return result
    }

    private struct Grant: Decodable {
        var clientIdentifier: String
        var status: String
        var token: String
    }

    private func waitForLine(_ child: ChildProcess, containing text: String, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if child.stdout.contains(text) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    func testAskWaitApproveThenUseTheStoredCredentialThenRevoke() throws {
        let environment = clientEnvironment("frame")
        let asking = try ChildProcess(Paths.photolib, ["auth", "request", "--name", "Kitchen frame", "--access", "read-write", "--wait", "--json"], environment: environment)
        defer { _ = asking.killHard(); asking.cleanUp() }
        // The owner sees it waiting.
        var pending: String?
        let deadline = Date().addingTimeInterval(20)
        while pending == nil, Date() < deadline {
            let list = try owner(["clients", "--json"])
            pending = (try? JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])?
                .first { $0["name"] as? String == "Kitchen frame" && $0["readWrite"] as? String == "not determined" }?["clientIdentifier"] as? String
            if pending == nil { Thread.sleep(forTimeInterval: 0.1) }
        }
        let client = try XCTUnwrap(pending, "the owner never saw the request")
        XCTAssertTrue(asking.isRunning, "it waits for the decision")
        _ = try owner(["clients", "approve", client])
        let result = try XCTUnwrap(asking.waitForExit(timeout: 10), "auth request --wait did not return after the approval")
        XCTAssertTrue(result.succeeded, "\(result)")
        let grant = try JSONDecoder().decode(Grant.self, from: Data(result.stdout.utf8))
        XCTAssertEqual(grant.clientIdentifier, client)
        XCTAssertEqual(grant.status, "authorized")
        // The credential is stored privately and used without PHOTOLIB_TOKEN.
        let file = directory.file("config-frame") + "/photolib/credentials"
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o777, 0o600)
        let listed = try runCLI(["ls", "--json"], server: server, environment: environment)
        XCTAssertTrue(listed.succeeded, "\(listed)")
        let status = try runCLI(["auth", "status"], server: server, environment: environment)
        XCTAssertTrue(status.stdout.contains("read-write  authorized"), "\(status)")

        // Its open watch ends within a second of the revocation, with a clear message.
        let watch = try ChildProcess(Paths.photolib, ["watch"], environment: environment)
        defer { _ = watch.killHard(); watch.cleanUp() }
        XCTAssertTrue(waitForLine(watch, containing: "watching"), "watch did not start: \(watch.stdout) \(watch.stderr)")
        let revoked = Date()
        _ = try owner(["clients", "revoke", client])
        let ended = try XCTUnwrap(watch.waitForExit(timeout: 5), "watch still runs after the revocation")
        XCTAssertLessThan(Date().timeIntervalSince(revoked), 2, "ended promptly")
        XCTAssertFalse(ended.succeeded)
        XCTAssertTrue(ended.stderr.contains("revoked"), "\(ended)")
        let after = try runCLI(["ls"], server: server, environment: environment)
        XCTAssertFalse(after.succeeded, "a revoked credential opens nothing: \(after)")

        let log = try owner(["clients", "log"])
        for event in ["requested", "authorized", "revoked"] { XCTAssertTrue(log.stdout.contains("\(client)  \(event)"), "\(event) in \(log.stdout)") }
    }

    func testAnAddOnlyClientCanUploadAndNothingElse() throws {
        let environment = clientEnvironment("uploader")
        let asked = try runCLI(["auth", "request", "--name", "Uploader", "--access", "add-only", "--json"], server: server, environment: environment)
        XCTAssertTrue(asked.succeeded, "\(asked)")
        let grant = try JSONDecoder().decode(Grant.self, from: Data(asked.stdout.utf8))
        XCTAssertEqual(grant.status, "not determined")
        let early = try runCLI(["upload", Paths.portrait], server: server, environment: environment)
        XCTAssertFalse(early.succeeded, "not yet decided: \(early)")
        _ = try owner(["clients", "approve", grant.clientIdentifier, "--access", "add-only"])
        let photo = try directory.write("new/photo.jpg", DistinctPhotos.photo(7))
        let upload = try runCLI(["upload", photo], server: server, environment: environment)
        XCTAssertTrue(upload.succeeded, "\(upload)")
        let read = try runCLI(["ls"], server: server, environment: environment)
        XCTAssertFalse(read.succeeded)
        XCTAssertTrue(read.stderr.contains("read-write access"), "\(read)")
        XCTAssertEqual(try runCLIJSON([AnyCodable].self, ["ls", "--json"], server: server).count, 3, "the owner sees the new photo")
    }

    func testEditConfirmationThroughTheCLI() throws {
        let environment = clientEnvironment("tagger")
        let asked = try runCLI(["auth", "request", "--name", "Tagger", "--access", "read-write", "--json"], server: server, environment: environment)
        let grant = try JSONDecoder().decode(Grant.self, from: Data(asked.stdout.utf8))
        _ = try owner(["clients", "approve", grant.clientIdentifier])
        _ = try owner(["clients", "policy", grant.clientIdentifier, "--confirm-edits", "on"])
        struct Row: Decodable { var localIdentifier: String }
        let asset = try XCTUnwrap(try runCLIJSON([Row].self, ["ls", "--json"], server: server).first?.localIdentifier)
        let favorite = try ChildProcess(Paths.photolib, ["favorite", asset], environment: environment)
        defer { _ = favorite.killHard(); favorite.cleanUp() }
        struct Pending: Decodable { var request: String; var kind: String; var clientIdentifier: String }
        var request: String?
        for _ in 0..<200 where request == nil {
            request = try runCLIJSON([Pending].self, ["clients", "pending", "--json"], server: server)
                .first { $0.kind == "edit-confirmation" && $0.clientIdentifier == grant.clientIdentifier }?.request
            if request == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        let id = try XCTUnwrap(request, "the change never waited for confirmation")
        XCTAssertTrue(favorite.isRunning, "the client waits")
        _ = try owner(["clients", "answer", id, "--confirm"])
        let result = try XCTUnwrap(favorite.waitForExit(timeout: 10))
        XCTAssertTrue(result.succeeded, "\(result)")
        let log = try owner(["clients", "log"])
        XCTAssertTrue(log.stdout.contains("\(grant.clientIdentifier)  confirmed"), log.stdout)
    }
}

/// Any JSON value (to count array elements).
private struct AnyCodable: Decodable {
    init(from decoder: Decoder) throws {}
}
