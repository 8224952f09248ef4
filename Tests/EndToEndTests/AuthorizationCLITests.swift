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

        // Its open watch ends on the revocation (not at some later timeout), with a clear message.
        let watch = try ChildProcess(Paths.photolib, ["watch"], environment: environment)
        defer { _ = watch.killHard(); watch.cleanUp() }
        XCTAssertTrue(waitForLine(watch, containing: "watching"), "watch did not start: \(watch.stdout) \(watch.stderr)")
        _ = try owner(["clients", "revoke", client])
        let ended = try XCTUnwrap(watch.waitForExit(timeout: 5), "watch still runs 5 s after the revocation")
        XCTAssertFalse(ended.succeeded)
        XCTAssertTrue(ended.stderr.contains("revoked"), "\(ended)")
        let after = try runCLI(["ls"], server: server, environment: environment)
        XCTAssertFalse(after.succeeded, "a revoked credential opens nothing: \(after)")

        let log = try owner(["clients", "log"])
        for event in ["requested", "authorized", "revoked"] { XCTAssertTrue(log.stdout.contains("\(client)  \(event)"), "\(event) in \(log.stdout)") }
    }

    /// The issue's whole limited flow, through the CLI: ask and wait, limited to two photos,
    /// and every command of that client sees exactly those two; a third photo is exactly as
    /// unknown as a made-up one; the owner adds it and the client's watch prints the insertion;
    /// the client's upload joins its selection; revoking ends its watch.
    func testALimitedClientSeesItsSelectionEverywhere() throws {
        struct Row: Decodable { var localIdentifier: String }
        let third = try directory.write("third.jpg", DistinctPhotos.photo(3))
        _ = try owner(["upload", third])
        let all = try runCLIJSON([Row].self, ["ls", "--json"], server: server).map(\.localIdentifier)
        XCTAssertEqual(all.count, 3)
        let (given, other) = (Array(all.prefix(2)), all[2])
        let madeUp = "00000000-0000-4000-8000-000000000000/L0/001"

        let environment = clientEnvironment("limited")
        let asking = try ChildProcess(Paths.photolib, ["auth", "request", "--name", "Frame", "--access", "read-write", "--wait", "--json"], environment: environment)
        defer { _ = asking.killHard(); asking.cleanUp() }
        var pending: String?
        for _ in 0..<400 where pending == nil {
            pending = (try? JSONSerialization.jsonObject(with: Data(try owner(["clients", "--json"]).stdout.utf8)) as? [[String: Any]])?
                .first { $0["name"] as? String == "Frame" }?["clientIdentifier"] as? String
            if pending == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        let client = try XCTUnwrap(pending)
        _ = try owner(["clients", "limit", client] + given)
        let answered = try XCTUnwrap(asking.waitForExit(timeout: 10))
        XCTAssertEqual(try JSONDecoder().decode(Grant.self, from: Data(answered.stdout.utf8)).status, "limited")

        func run(_ arguments: [String]) throws -> ProcessResult { try runCLI(arguments, server: server, environment: environment) }
        XCTAssertEqual(Set(try runCLIJSON([Row].self, ["ls", "--json"], server: server, environment: environment).map(\.localIdentifier)), Set(given))
        struct Album: Decodable { var title: String; var count: Int }
        let albums = try runCLIJSON([Album].self, ["albums", "--json"], server: server, environment: environment)
        XCTAssertEqual(albums.first { $0.title == "All Photos" }?.count, 2, "\(albums)")
        let history = try run(["changes", "--json"])
        XCTAssertTrue(history.succeeded, "\(history)")
        XCTAssertFalse(history.stdout.contains(other), "history names an unselected photo")
        XCTAssertTrue(history.stdout.contains(given[0]))
        XCTAssertTrue(try run(["get", given[0], "--size", "64x64", "-o", directory.file("given.jpg")]).succeeded)
        XCTAssertTrue(try run(["export", given[1], "-o", directory.file("given-original.jpg")]).succeeded)
        for command in [["get", "ID", "--size", "64x64", "-o", directory.file("x.jpg")], ["export", "ID", "-o", directory.file("x-original.jpg")], ["show", "ID"]] {
            let hidden = try run(command.map { $0 == "ID" ? other : $0 })
            let unknown = try run(command.map { $0 == "ID" ? madeUp : $0 })
            XCTAssertFalse(hidden.succeeded, "\(command[0]) of an unselected photo: \(hidden)")
            XCTAssertEqual(
                hidden.stderr.replacingOccurrences(of: other, with: "ID"), unknown.stderr.replacingOccurrences(of: madeUp, with: "ID"),
                "\(command[0]): an unselected photo and a made-up identifier must be told apart by nothing")
            XCTAssertEqual(hidden.status, unknown.status)
        }

        // The owner adds the third photo: the client's watch prints it as an insertion.
        let watch = try ChildProcess(Paths.photolib, ["watch"], environment: environment)
        defer { _ = watch.killHard(); watch.cleanUp() }
        XCTAssertTrue(waitForLine(watch, containing: "watching 2 assets"), "watch did not start: \(watch.stdout) \(watch.stderr)")
        _ = try owner(["clients", "select", client, "--add", other])
        XCTAssertTrue(waitForLine(watch, containing: "new [\"\(other)\"], count 3"), "no insertion printed: \(watch.stdout)")

        // Its upload joins its selection.
        let mine = try directory.write("mine.jpg", DistinctPhotos.photo(8))
        XCTAssertTrue(try run(["upload", mine]).succeeded)
        XCTAssertEqual(try runCLIJSON([Row].self, ["ls", "--json"], server: server, environment: environment).count, 4)
        XCTAssertEqual(try runCLIJSON([Row].self, ["ls", "--json"], server: server).count, 4, "the owner sees the upload too")

        _ = try owner(["clients", "revoke", client])
        XCTAssertNotNil(watch.waitForExit(timeout: 5), "watch still runs 5 s after the revocation")
    }

    func testAnAddOnlyClientCanUploadAndNothingElse() throws {
        let environment = clientEnvironment("uploader")
        let asked = try runCLI(["auth", "request", "--name", "Uploader", "--access", "add-only", "--json"], server: server, environment: environment)
        XCTAssertTrue(asked.succeeded, "\(asked)")
        let grant = try JSONDecoder().decode(Grant.self, from: Data(asked.stdout.utf8))
        XCTAssertEqual(grant.status, "not determined")
        let early = try runCLI(["upload", Paths.portrait], server: server, environment: environment)
        XCTAssertFalse(early.succeeded, "not yet decided: \(early)")
        // No --access: the owner approves what the client asked for (add-only), not more.
        let approved = try owner(["clients", "approve", grant.clientIdentifier])
        XCTAssertTrue(approved.stdout.contains("add-only authorized"), "\(approved)")
        let photo = try directory.write("new/photo.jpg", DistinctPhotos.photo(7))
        let upload = try runCLI(["upload", photo], server: server, environment: environment)
        XCTAssertTrue(upload.succeeded, "\(upload)")
        XCTAssertEqual(upload.stdoutLines.last, "uploaded 1, paired 0, already present 0, refused 0", "\(upload)")
        // Into an album: refused, saying what an add-only client may not do and what to run.
        struct Collection: Decodable { var localIdentifier: String }
        let album = try runCLIJSON(Collection.self, ["album", "create", "Inbox", "--json"], server: server).localIdentifier
        let second = try directory.write("new/second.jpg", DistinctPhotos.photo(8))
        let filed = try runCLI(["upload", second, "--album", album], server: server, environment: environment)
        XCTAssertFalse(filed.succeeded, "\(filed)")
        XCTAssertTrue(filed.stderr.contains("upload without --album \(album)"), "\(filed)")
        let read = try runCLI(["ls"], server: server, environment: environment)
        XCTAssertFalse(read.succeeded)
        XCTAssertTrue(read.stderr.contains("read-write access"), "\(read)")
        XCTAssertEqual(try runCLIJSON([AnyCodable].self, ["ls", "--json"], server: server).count, 3, "the owner sees the new photo")
    }

    /// A level the server refuses by policy cannot be had: asking for it exits non-zero
    /// (it printed "restricted" and exited 0).
    func testARestrictedLevelExitsNonZero() throws {
        let restricting = try ServerProcess.start(library: directory.file("restricting"), extraArguments: ["--restrict-access", "add-only"])
        defer { restricting.stopGracefully() }
        var environment = clientEnvironment("restricted")
        environment["PHOTOLIB_SERVER"] = restricting.address
        let asked = try runCLI(["auth", "request", "--name", "Uploader", "--access", "add-only"], server: restricting, environment: environment)
        XCTAssertFalse(asked.succeeded, "\(asked)")
        XCTAssertTrue(asked.stdout.contains("add-only: restricted"), "\(asked)")
        XCTAssertTrue(asked.stderr.contains("refuses add-only access by policy"), "\(asked)")
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

    /// A change that is not safe to repeat blindly (a new album), whose connection is lost
    /// while it waits: the error says it may have been applied and what to look at, instead
    /// of reading like a plain failure (running it again would make a second album).
    func testALostConnectionDuringAChangeSaysItsOutcomeIsUnknown() throws {
        let environment = clientEnvironment("albums")
        let asked = try runCLI(["auth", "request", "--name", "Albums", "--access", "read-write", "--json"], server: server, environment: environment)
        let grant = try JSONDecoder().decode(Grant.self, from: Data(asked.stdout.utf8))
        _ = try owner(["clients", "approve", grant.clientIdentifier])
        _ = try owner(["clients", "policy", grant.clientIdentifier, "--confirm-edits", "on"])
        let create = try ChildProcess(Paths.photolib, ["album", "create", "Trips"], environment: environment)
        defer { _ = create.killHard(); create.cleanUp() }
        struct Pending: Decodable { var kind: String; var clientIdentifier: String }
        var waiting = false
        for _ in 0..<200 where !waiting {
            waiting = try runCLIJSON([Pending].self, ["clients", "pending", "--json"], server: server)
                .contains { $0.kind == "edit-confirmation" && $0.clientIdentifier == grant.clientIdentifier }
            if !waiting { Thread.sleep(forTimeInterval: 0.05) }
        }
        XCTAssertTrue(waiting, "the change never waited for confirmation")
        server.kill9()
        let result = try XCTUnwrap(create.waitForExit(timeout: 20), "photolib album create still runs after the server died")
        XCTAssertFalse(result.succeeded, "\(result)")
        XCTAssertTrue(result.stderr.contains("may have been applied"), result.stderr)
        XCTAssertTrue(result.stderr.contains("photolib albums"), result.stderr)
    }
}

/// Any JSON value (to count array elements).
private struct AnyCodable: Decodable {
    init(from decoder: any Decoder) throws {}
}
