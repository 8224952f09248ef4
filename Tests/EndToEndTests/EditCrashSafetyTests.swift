import Foundation
import PhotoLibTestSupport
import XCTest

/// `kill -9` of the server while edits commit never leaves half an edit: after the restart
/// (recovery), the asset is either unedited (its original alone) or wholly edited (render and
/// recipe, readable), and no file is left that no row references.
final class EditCrashSafetyTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var library: String { directory.file("library") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("photolib-e2e-edit-crash")
    }

    override func tearDown() {
        directory?.remove()
    }

    private struct ShowJSON: Decodable {
        struct Resource: Decodable { var type: String }
        var hasAdjustments: Bool
        var resources: [Resource]
    }

    /// Regular files under `library/folder`.
    private func files(in folder: String) -> [String] {
        let root = library + "/" + folder
        return (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).filter { relative in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }

    func testServerKilledDuringEditsLeavesEachAssetWholeOrUnedited() throws {
        let imported = try ServerProcess.importPhotos(library: library, [Paths.portrait])
        XCTAssertTrue(imported.succeeded, "\(imported)")
        let id = try XCTUnwrap(ImportOutput(imported).added.values.first)
        let filters = ["noir", "sepia", "chrome", "fade", "mono", "instant"]
        var committed = 0
        for (round, filter) in filters.enumerated() {
            let server = try ServerProcess.start(library: library)
            // Half the rounds render on the server (the commit and the render happen inside
            // PerformChanges), half in the CLI (the upload, then the commit).
            var arguments = ["edit", id, "--filter", filter, "--replace"]
            if round.isMultiple(of: 2) { arguments.append("--server-render") }
            let editor = try ChildProcess(Paths.photolib, arguments, environment: server.cliEnvironment)
            // Kill at a different moment each round: early, mid-commit, after.
            usleep(UInt32(40_000 + 70_000 * round))
            server.kill9()
            let result = editor.waitForExit(timeout: 60)
            editor.cleanUp()
            if result?.succeeded == true { committed += 1 }

            // Restart: recovery runs; the asset is whole.
            let restarted = try ServerProcess.start(library: library)
            defer { restarted.kill9() }
            let shown = try runCLIJSON(ShowJSON.self, ["show", id, "--json"], server: restarted)
            let types = Set(shown.resources.map(\.type))
            if shown.hasAdjustments {
                XCTAssertEqual(types, ["photo", "fullSizePhoto", "adjustmentData"], "round \(round): a whole edit")
                let render = directory.file("render-\(round).jpg")
                let export = try runCLI(["export", id, "--resource", "fullSizePhoto", "-o", render], server: restarted)
                XCTAssertTrue(export.succeeded, "round \(round): the render is readable: \(export)")
                XCTAssertNotNil(JPEGSize(jpeg: try readBytes(render)), "round \(round): the render is a whole JPEG")
            } else {
                XCTAssertEqual(types, ["photo"], "round \(round): unedited")
            }
            if result?.succeeded == true {
                XCTAssertTrue(shown.hasAdjustments, "round \(round): an edit the CLI reported committed is there")
            }
            XCTAssertEqual(files(in: "originals").count, shown.resources.count, "round \(round): no orphan files: \(files(in: "originals"))")
            XCTAssertEqual(files(in: "tmp"), [], "round \(round): no temporary files")
            let original = directory.file("original-\(round).jpg")
            XCTAssertTrue(try runCLI(["export", id, "--resource", "photo", "-o", original], server: restarted).succeeded)
            XCTAssertEqual(try readBytes(original), try readBytes(Paths.portrait), "round \(round): the original is untouched")
        }
        print("edits committed before the kill: \(committed) of \(filters.count)")
    }
}
