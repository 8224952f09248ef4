import Foundation
import PhotoLibClient
import XCTest

/// Committed data survives `kill -9` of the server and of an importer, and recovery leaves
/// no orphan files behind.
final class CrashSafetyTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var servers: [ServerProcess] = []
    private var children: [ChildProcess] = []

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("photolib-e2e-crash")
    }

    override func tearDown() {
        for server in servers where server.isRunning { server.kill9() }
        for child in children {
            child.killHard()
            child.cleanUp()
        }
        servers = []
        children = []
        directory?.remove()
    }

    private var library: String { directory.file("library") }

    private func serve() throws -> ServerProcess {
        let server = try ServerProcess.start(library: library)
        servers.append(server)
        return server
    }

    /// Regular files under `DIR/originals` and `DIR/tmp`.
    private func files(in folder: String) -> [String] {
        let root = library + "/" + folder
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var found: [String] = []
        while let relative = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(relative)
            }
        }
        return found
    }

    /// Fetches every asset's image at a small size through one client; returns the identifiers.
    private func fetchEveryImage(_ server: ServerProcess) async throws -> [String] {
        let library = try await connectClient(server)
        defer { library.close() }
        let assets = try await fetchAllAssets(library)
        for asset in assets {
            let image = try await fetchImage(library, asset.localIdentifier, 64, 64)
            XCTAssertTrue(startsWithSOI(image.data), "image of \(asset.localIdentifier)")
            XCTAssertNotNil(JPEGSize(jpeg: image.data), "image of \(asset.localIdentifier) has a frame header")
        }
        return assets.map(\.localIdentifier)
    }

    func testServerKilledWithSIGKILLRestartsWithEveryImportedAsset() async throws {
        let imported = try ServerProcess.importPhotos(library: library, Paths.fourPhotos)
        XCTAssertTrue(imported.succeeded, "\(imported)")
        let ids = Set(ImportOutput(imported).added.values)
        XCTAssertEqual(ids.count, 4)

        let first = try serve()
        // A client is connected and busy when the server dies.
        let client = try await connectClient(first)
        let seen = try await fetchAllAssets(client)
        XCTAssertEqual(Set(seen.map(\.localIdentifier)), ids)
        first.kill9()
        XCTAssertFalse(first.isRunning)
        do {
            _ = try await withTimeout(20, "fetch after the server died") { try await client.fetchAssets().count }
            XCTFail("a fetch on a connection to a dead server must fail")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .unavailable, "\(error)")
        }
        client.close()

        let second = try serve()
        XCTAssertEqual(Set(try listAssets(second).map(\.localIdentifier)), ids, "every imported asset is still listed")
        let fetched = try await fetchEveryImage(second)
        XCTAssertEqual(Set(fetched), ids)
        XCTAssertEqual(files(in: "originals").count, 4)
        second.stopGracefully()
    }

    /// Writes `count` copies of the baseline photo with distinct bytes (a COM segment each: same
    /// pixels, different SHA-256) into a folder, starts `photolibd import` on it and kills it
    /// with SIGKILL once a few photos are in (watching `originals/` grow).
    private func importAndKillMidway(count: Int) throws -> (killed: ProcessResult, folder: String) {
        let base = try readBytes(Paths.sampleBaseline)
        let folder = try directory.folder("copies")
        for index in 0..<count {
            try directory.write("copies/copy-\(String(format: "%02d", index)).jpg", PhotoVariants.withComment(base, "e2e copy \(index)"))
        }
        let importer = try ChildProcess(Paths.photolibd, ["import", "--library", library, folder])
        children.append(importer)
        let sawProgress = waitUntil(timeout: 60) { files(in: "originals").count >= 4 || !importer.isRunning }
        importer.send(SIGKILL)
        guard let killed = importer.waitForExit(timeout: 10) else { throw E2EError("the importer did not die") }
        XCTAssertTrue(sawProgress, "the importer made no progress within 60 s")
        if !killed.signalled {
            print("note: the importer finished before it could be killed; the test still checks consistency")
        }
        print("importer \(killed.signalled ? "killed" : "finished") with \(files(in: "originals").count) originals on disk and \(ImportOutput(killed).addedOrder.count) 'added' lines printed")
        return (killed, folder)
    }

    func testImporterKilledMidwayLeavesAConsistentLibraryThatAReimportCompletes() async throws {
        let count = 20
        let (killed, folder) = try importAndKillMidway(count: count)
        let addedBeforeKill = ImportOutput(killed).addedOrder

        // Restart: recovery runs, every listed asset is whole.
        let server = try serve()
        let listed = try listAssets(server)
        XCTAssertGreaterThanOrEqual(listed.count, addedBeforeKill.count, "every 'added' line printed before the kill is committed")
        XCTAssertTrue(Set(addedBeforeKill).isSubset(of: Set(listed.map(\.localIdentifier))), "the assets reported added are listed")
        XCTAssertLessThanOrEqual(listed.count, count)
        XCTAssertEqual(Set(listed.map(\.localIdentifier)).count, listed.count, "no duplicates")
        let fetched = try await fetchEveryImage(server)
        XCTAssertEqual(fetched.count, listed.count, "every listed asset's image can be fetched")
        XCTAssertEqual(files(in: "originals").count, listed.count, "no orphan originals after recovery: \(files(in: "originals"))")
        XCTAssertEqual(files(in: "tmp"), [], "no temporary files left after recovery")

        // A fresh import of the same folder, while the server runs, completes the set.
        let again = try ServerProcess.importPhotos(library: library, [folder])
        XCTAssertTrue(again.succeeded, "\(again)")
        let output = ImportOutput(again)
        XCTAssertEqual(output.added.count + output.alreadyPresent.count, count, "\(again)")
        XCTAssertEqual(output.alreadyPresent.count, listed.count, "what was committed is recognised: \(again)")
        XCTAssertEqual(Set(output.alreadyPresent.values), Set(listed.map(\.localIdentifier)))

        let complete = try listAssets(server)
        XCTAssertEqual(complete.count, count, "the set is complete")
        XCTAssertEqual(Set(complete.map(\.localIdentifier)).count, count, "no duplicates")
        XCTAssertEqual(files(in: "originals").count, count)
        server.stopGracefully()
    }

    /// The importer reports each photo as soon as it is committed (stdout flushed per line), so a
    /// log of an interrupted import says what is in the library: at most the one photo being
    /// committed at the moment of the kill may be missing from the log.
    func testImporterKilledMidwayHasPrintedALineForEveryCommittedPhoto() throws {
        let (killed, _) = try importAndKillMidway(count: 12)
        guard killed.signalled else { throw XCTSkip("the importer finished before it could be killed") }
        let printed = ImportOutput(killed).addedOrder
        let server = try serve()
        let listed = try listAssets(server)
        XCTAssertTrue(Set(printed).isSubset(of: Set(listed.map(\.localIdentifier))), "a photo reported added is committed")
        XCTAssertLessThanOrEqual(
            listed.count - printed.count, 1,
            "\(listed.count) photos are committed but only \(printed.count) 'added' lines reached stdout before the kill: photolibd import does not flush stdout per line when it is not a terminal")
        server.stopGracefully()
    }
}
