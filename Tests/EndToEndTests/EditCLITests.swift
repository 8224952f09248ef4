import Foundation
import PhotoLibTestSupport
import XCTest

/// `photolib edit`, `edit-input`, `revert` against a real `photolibd`, as a user runs them.
final class EditCLITests: XCTestCase {
    private var fixture: LibraryFixture!
    private var server: ServerProcess { fixture.server }

    override func setUpWithError() throws {
        fixture = try LibraryFixture("edit", photos: [Paths.portrait])
    }

    override func tearDown() {
        fixture?.stopAndRemove()
        fixture = nil
    }

    private struct EditJSON: Decodable { var renderedBy: String; var formatIdentifier: String; var operations: Int? }
    private struct InputJSON: Decodable { var base: String; var adjustmentFormat: String?; var editingSessionID: String }
    private struct ShowJSON: Decodable {
        struct Resource: Decodable { var type: String }
        var hasAdjustments: Bool
        var resources: [Resource]
    }

    private func run(_ arguments: [String]) throws -> ProcessResult {
        let result = try runCLI(arguments, server: server, timeout: 120)
        XCTAssertTrue(result.succeeded, "photolib \(arguments.joined(separator: " ")): \(result)")
        return result
    }

    func testNoirEditReEditAndRevertFromTheCommandLine() throws {
        let id = try fixture.identifier(Paths.portrait)
        let folder = try TemporaryDirectory("photolib-edit-cli")
        defer { folder.remove() }
        let originalBytes = try readBytes(Paths.portrait)

        // A watcher, running before the edit.
        let watcher = try ChildProcess(Paths.photolib, ["watch", "--count", "1"], environment: server.cliEnvironment)
        defer { watcher.cleanUp() }
        XCTAssertTrue(waitUntil(timeout: 20) { watcher.stdout.contains("watching") }, "the watcher started: \(watcher.stdout) \(watcher.stderr)")
        let edit = try runCLIJSON(EditJSON.self, ["edit", id, "--filter", "noir", "--json"], server: server)
        XCTAssertEqual(edit.renderedBy, "client")
        XCTAssertEqual(edit.formatIdentifier, "org.photolib.filter")
        let shown = try runCLIJSON(ShowJSON.self, ["show", id, "--json"], server: server)
        XCTAssertTrue(shown.hasAdjustments)
        XCTAssertEqual(Set(shown.resources.map(\.type)), ["photo", "fullSizePhoto", "adjustmentData"])

        // The watcher saw the asset change, its content included.
        let watched = watcher.waitForExit(timeout: 20)
        XCTAssertEqual(watched?.succeeded, true, "\(String(describing: watched))")
        XCTAssertTrue(watcher.stdout.contains("content changed [\"\(id)\"]"), watcher.stdout)

        // The original stays byte for byte, by image request and by export.
        _ = try run(["get", id, "--version", "original", "--resize", "none", "-o", folder.file("original.jpg")])
        XCTAssertEqual(try readBytes(folder.file("original.jpg")), originalBytes)
        _ = try run(["export", id, "--resource", "photo", "-o", folder.file("export.jpg")])
        XCTAssertEqual(try readBytes(folder.file("export.jpg")), originalBytes)
        // The current version is the filtered image: gray.
        _ = try run(["get", id, "--version", "current", "--size", "64x64", "-o", folder.file("current.jpg")])
        XCTAssertNotEqual(try readBytes(folder.file("current.jpg")), [])

        // An editor handling the format gets the original and the recipe; another gets the render.
        let handling = try runCLIJSON(InputJSON.self, ["edit-input", id, "--can-handle", "org.photolib.filter:1", "-o", folder.file("in1.jpg"), "--json"], server: server)
        XCTAssertEqual(handling.base, "original")
        XCTAssertEqual(handling.adjustmentFormat, "org.photolib.filter")
        XCTAssertEqual(try readBytes(folder.file("in1.jpg")), originalBytes)
        let foreign = try runCLIJSON(InputJSON.self, ["edit-input", id, "-o", folder.file("in2.jpg"), "--display-size", "200", "--display-output", folder.file("small.jpg"), "--json"], server: server)
        let small = try XCTUnwrap(JPEGSize(jpeg: try readBytes(folder.file("small.jpg"))))
        XCTAssertEqual(max(small.width, small.height), 200, "the display-size image fits 200 pixels")
        XCTAssertEqual(foreign.base, "render")
        XCTAssertNil(foreign.adjustmentFormat)
        _ = try run(["export", id, "--resource", "fullSizePhoto", "-o", folder.file("render.jpg")])
        XCTAssertEqual(try readBytes(folder.file("in2.jpg")), try readBytes(folder.file("render.jpg")))

        // A re-edit keeps the earlier recipe; the server renders this one.
        let again = try runCLIJSON(EditJSON.self, ["edit", id, "--exposure", "0.5", "--server-render", "--json"], server: server)
        XCTAssertEqual(again.renderedBy, "server")
        XCTAssertEqual(again.operations, 2, "noir, then the exposure")
        // Negative values, as the help's ranges allow, without an '=' (they read as options).
        let darker = try runCLIJSON(EditJSON.self, ["edit", id, "--exposure", "-1", "--contrast", "-0.25", "--saturation", "-1", "--server-render", "--json"], server: server)
        XCTAssertEqual(darker.operations, 5, "noir, the exposure, then these three")

        // Revert: no edit left.
        _ = try run(["revert", id])
        let reverted = try runCLIJSON(ShowJSON.self, ["show", id, "--json"], server: server)
        XCTAssertFalse(reverted.hasAdjustments)
        XCTAssertEqual(reverted.resources.map(\.type), ["photo"])
    }

    func testBadEditsFailWithOneClearLine() throws {
        let id = try fixture.identifier(Paths.portrait)
        let unknown = try runCLI(["edit", id, "--filter", "vaporwave"], server: server)
        XCTAssertFalse(unknown.succeeded)
        XCTAssertTrue(unknown.stderr.contains("unknown filter 'vaporwave'"), "\(unknown)")
        // edit-input's options are checked as usage errors, with this command's usage.
        let badFormat = try runCLI(["edit-input", id, "--can-handle", "bad", "-o", "/tmp/unused.jpg"], server: server)
        XCTAssertEqual(badFormat.status, 64, "\(badFormat)")
        XCTAssertTrue(badFormat.stderr.contains("must be FORMAT:VERSION") && badFormat.stderr.contains("photolib edit-input"), "\(badFormat)")
        let tiny = try runCLI(["edit-input", id, "--display-size", "10", "--display-output", "/tmp/unused-d.jpg", "-o", "/tmp/unused.jpg"], server: server)
        XCTAssertEqual(tiny.status, 64, "\(tiny)")
        XCTAssertTrue(tiny.stderr.contains("--display-size must be within 64…4096"), "\(tiny)")
        let nothing = try runCLI(["edit", id], server: server)
        XCTAssertFalse(nothing.succeeded)
        XCTAssertTrue(nothing.stderr.contains("nothing to do"), "\(nothing)")
        let missing = try runCLI(["edit", id, "--adjustment", "com.example:1", "--data", "/nonexistent", "--rendered", "/nonexistent.jpg"], server: server)
        XCTAssertFalse(missing.succeeded)
        XCTAssertTrue(missing.stderr.contains("cannot read /nonexistent"), "\(missing)")
    }
}

/// `photolib edit`, `edit-input`, `revert` and `filter-preview` on HEIC, PNG and WebP originals,
/// against a real `photolibd`: client and server renders, the JPEG editors are given, the
/// original untouched.
final class NonJPEGEditCLITests: XCTestCase {
    private static let media = Paths.packageRoot + "/Tests/Fixtures/media"
    /// Stored 360×640 turned by `irot` (640×360 upright), 80×120 turned by EXIF (120×80), 480×270.
    private static let heic = media + "/heic_rotated_gps.heic"
    private static let png = media + "/png_exif_rotated.png"
    private static let webp = media + "/webp_photo.webp"

    private var fixture: LibraryFixture!
    private var server: ServerProcess { fixture.server }

    override func setUpWithError() throws {
        fixture = try LibraryFixture("edit-media", photos: [Self.heic, Self.png, Self.webp])
    }

    override func tearDown() {
        fixture?.stopAndRemove()
        fixture = nil
    }

    private struct EditJSON: Decodable { var renderedBy: String; var operations: Int? }
    private struct InputJSON: Decodable { var base: String; var orientation: Int; var bytes: Int }

    private func run(_ arguments: [String]) throws -> ProcessResult {
        let result = try runCLI(arguments, server: server, timeout: 120)
        XCTAssertTrue(result.succeeded, "photolib \(arguments.joined(separator: " ")): \(result)")
        return result
    }

    func testEditingHEICPNGAndWebPFromTheCommandLine() throws {
        let folder = try TemporaryDirectory("photolib-edit-media-cli")
        defer { folder.remove() }
        let heic = try fixture.identifier(Self.heic), png = try fixture.identifier(Self.png), webp = try fixture.identifier(Self.webp)

        // The client renders a HEIC's edit (it is given the HEIC's JPEG editing base).
        let clientEdit = try runCLIJSON(EditJSON.self, ["edit", heic, "--filter", "chrome", "--json"], server: server)
        XCTAssertEqual(clientEdit.renderedBy, "client")
        // The server renders a PNG's and a WebP's; the WebP's turned a quarter.
        let pngEdit = try runCLIJSON(EditJSON.self, ["edit", png, "--filter", "mono", "--server-render", "--json"], server: server)
        XCTAssertEqual(pngEdit.renderedBy, "server")
        _ = try run(["edit", webp, "--filter", "noir", "--rotate", "90", "--server-render"])
        for (id, size, name) in [(heic, JPEGSize(width: 640, height: 360), "HEIC"), (png, JPEGSize(width: 120, height: 80), "PNG"), (webp, JPEGSize(width: 270, height: 480), "WebP")] {
            let file = folder.file("\(name).jpg")
            _ = try run(["export", id, "--resource", "fullSizePhoto", "-o", file])
            XCTAssertEqual(JPEGSize(jpeg: try readBytes(file)), size, "\(name): the render is a JPEG of the upright size")
        }

        // An editor handling the format is given the HEIC's base, a JPEG, with the recipe.
        let input = try runCLIJSON(InputJSON.self, ["edit-input", heic, "--can-handle", "org.photolib.filter:1", "-o", folder.file("base.jpg"), "--json"], server: server)
        XCTAssertEqual(input.base, "original")
        XCTAssertEqual(input.orientation, 1)
        XCTAssertEqual(JPEGSize(jpeg: try readBytes(folder.file("base.jpg"))), JPEGSize(width: 640, height: 360))
        // A re-edit on the server keeps the client's recipe.
        let again = try runCLIJSON(EditJSON.self, ["edit", heic, "--exposure", "0.3", "--server-render", "--json"], server: server)
        XCTAssertEqual(again.operations, 2)

        // Revert: every original byte for byte.
        _ = try run(["revert", heic, png, webp])
        for (id, path) in [(heic, Self.heic), (png, Self.png), (webp, Self.webp)] {
            let file = folder.file("original-" + (path as NSString).lastPathComponent)
            _ = try run(["export", id, "--resource", "photo", "-o", file])
            XCTAssertEqual(try readBytes(file), try readBytes(path), "\(path) is untouched")
        }
    }

    func testFilterPreviewOfHEICPNGAndWebP() throws {
        let folder = try TemporaryDirectory("photolib-filter-preview-media")
        defer { folder.remove() }
        for path in [Self.heic, Self.png, Self.webp] {
            let sheet = folder.file((path as NSString).lastPathComponent + ".jpg")
            let result = try runCLI(["filter-preview", path, "--cell", "64", "-o", sheet], server: nil)
            XCTAssertTrue(result.succeeded, "\(path): \(result)")
            XCTAssertTrue(result.stdout.contains("10 images"), result.stdout)
            XCTAssertNotNil(JPEGSize(jpeg: try readBytes(sheet)), "\(path): the sheet is a JPEG")
        }
        // The base filter-preview starts from is photolibd's, byte for byte what the server gives editors.
        let base = try ChildProcess.run(try Paths.executable(Paths.photolibd), ["edit-base", Self.heic, "-o", folder.file("heic-base.jpg")], timeout: 60)
        XCTAssertTrue(base.succeeded, "\(base)")
        XCTAssertEqual(JPEGSize(jpeg: try readBytes(folder.file("heic-base.jpg"))), JPEGSize(width: 640, height: 360))

        let gif = try folder.write("not-a-photo.gif", Array("GIF89a not a photo".utf8))
        let refused = try runCLI(["filter-preview", gif, "-o", folder.file("gif.jpg")], server: nil)
        XCTAssertFalse(refused.succeeded)
        XCTAssertTrue(refused.stderr.contains("unsupported file type: GIF"), "\(refused)")

        // Something that is not a regular file is refused before it is read (/dev/zero was
        // read without end).
        let endless = try ChildProcess.run(try Paths.executable(Paths.photolibd), ["edit-base", "/dev/zero", "-o", folder.file("zero.jpg")], timeout: 60)
        XCTAssertFalse(endless.succeeded)
        XCTAssertTrue(endless.stderr.contains("not a regular file"), "\(endless)")
        let endlessPreview = try runCLI(["filter-preview", "/dev/zero", "-o", folder.file("zero-sheet.jpg")], server: nil)
        XCTAssertFalse(endlessPreview.succeeded)
        XCTAssertTrue(endlessPreview.stderr.contains("not a regular file"), "\(endlessPreview)")
    }
}
