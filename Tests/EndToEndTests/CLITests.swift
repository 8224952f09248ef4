import Foundation
import PhotoLibTestSupport
import XCTest

/// `photolib albums / ls / get` against one shared server holding the four checked-in photos
/// and a rotated copy of the landscape (EXIF orientation 6).
final class CLITests: XCTestCase {
    nonisolated(unsafe) private static var fixture: LibraryFixture?
    private static let rotatedName = "landscape-orientation-6.jpg"

    private var fixture: LibraryFixture { Self.fixture! }
    private var server: ServerProcess { fixture.server }

    override func setUpWithError() throws {
        if Self.fixture == nil {
            let rotated = ExifFixture.jpegWithExif(try readBytes(Paths.landscape), orientation: 6, dateTimeOriginal: "2030:01:01 00:00:00")
            Self.fixture = try LibraryFixture("cli", photos: Paths.fourPhotos, generated: [(Self.rotatedName, rotated)])
        }
    }

    override class func tearDown() {
        fixture?.shutDown()
        fixture = nil
    }

    private func id(_ path: String) throws -> String {
        try XCTUnwrap(fixture.identifiers[path], "no identifier for \(path)")
    }

    private var rotatedID: String { fixture.identifiers[fixture.generatedPath(Self.rotatedName)]! }

    /// The raw JSON objects a command prints.
    private func jsonObjects(_ arguments: [String]) throws -> [[String: Any]] {
        let result = try runCLI(arguments, server: server)
        XCTAssertTrue(result.succeeded, "\(result)")
        let value = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8), options: [.fragmentsAllowed])
        return try XCTUnwrap(value as? [[String: Any]], "expected a JSON array of objects: \(result.stdout)")
    }

    // MARK: albums

    func testAlbumsJSONIsAnArrayWithAllPhotosAndItsCount() throws {
        let objects = try jsonObjects(["albums", "--json"])
        XCTAssertFalse(objects.isEmpty)
        for object in objects {
            XCTAssertEqual(Set(object.keys), ["localIdentifier", "title", "type", "subtype", "count"], "\(object)")
            XCTAssertTrue(object["localIdentifier"] is String && object["title"] is String && object["type"] is String && object["subtype"] is String)
            XCTAssertNotNil(object["count"] as? Int, "count is a number: \(object)")
        }
        let albums = try runCLIJSON([AlbumJSON].self, ["albums", "--json"], server: server)
        let allPhotos = try XCTUnwrap(albums.first { $0.title == "All Photos" }, "no All Photos album in \(albums)")
        XCTAssertEqual(albums.first, allPhotos, "All Photos comes first")
        XCTAssertEqual(allPhotos.count, 5)
        XCTAssertEqual(allPhotos.type, "smartAlbum")
        XCTAssertEqual(allPhotos.subtype, "smartAlbumUserLibrary")
        XCTAssertEqual(Set(albums.map(\.localIdentifier)).count, albums.count, "album identifiers are unique")
        if let favorites = albums.first(where: { $0.subtype == "smartAlbumFavorites" }) {
            XCTAssertEqual(favorites.count, 0, "nothing is a favorite yet")
        }
        // The table form works too.
        let table = try runCLI(["albums"], server: server)
        XCTAssertTrue(table.succeeded, "\(table)")
        XCTAssertTrue(table.stdout.contains("All Photos"), "\(table)")
    }

    // MARK: ls

    func testListJSONHasPhotoKitFieldsOldestFirst() throws {
        let objects = try jsonObjects(["ls", "--json"])
        XCTAssertEqual(objects.count, 5)
        let required: Set<String> = ["localIdentifier", "mediaType", "pixelWidth", "pixelHeight", "creationDate", "isFavorite", "isHidden", "location"]
        for object in objects {
            XCTAssertTrue(required.isSubset(of: Set(object.keys)), "missing \(required.subtracting(object.keys)) in \(object)")
            XCTAssertTrue(object["location"] is NSNull, "no EXIF GPS: location is null, got \(String(describing: object["location"]))")
        }
        let assets = try listAssets(server)
        XCTAssertEqual(Set(assets.map(\.localIdentifier)), Set(fixture.identifiers.values))
        let iso8601 = try NSRegularExpression(pattern: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"#)
        for asset in assets {
            XCTAssertEqual(asset.mediaType, "image")
            XCTAssertFalse(asset.isFavorite)
            XCTAssertFalse(asset.isHidden)
            let range = NSRange(asset.creationDate.startIndex..., in: asset.creationDate)
            XCTAssertNotNil(iso8601.firstMatch(in: asset.creationDate, range: range), "creationDate \(asset.creationDate) is not ISO 8601")
            XCTAssertNotNil(parseISO8601(asset.creationDate))
        }
        let dates = assets.compactMap { parseISO8601($0.creationDate) }
        XCTAssertEqual(dates, dates.sorted(), "default order is creation date ascending")
        XCTAssertEqual(assets.last?.localIdentifier, rotatedID, "the 2030 photo is the newest")
        XCTAssertEqual(assets.last?.creationDate, "2030-01-01T00:00:00Z")
    }

    func testListSortLimitAndAlbumAreHonoured() throws {
        let all = try listAssets(server)
        let byWidth = try listAssets(server, ["--sort", "pixelWidth:desc"])
        XCTAssertEqual(byWidth.count, 5)
        XCTAssertEqual(byWidth.map(\.pixelWidth), [5312, 5312, 4352, 2560, 2448], "sorted by pixelWidth descending")
        let ascending = try listAssets(server, ["--sort", "pixelWidth:asc"])
        XCTAssertEqual(ascending.map(\.pixelWidth), [2448, 2560, 4352, 5312, 5312])
        // Ties are broken by localIdentifier in the last key's direction (docs/PROTOCOL.md 15).
        let tied = byWidth.prefix(2).map(\.localIdentifier)
        XCTAssertEqual(tied, tied.sorted(by: >))

        let firstTwo = try listAssets(server, ["--limit", "2"])
        XCTAssertEqual(firstTwo, Array(all.prefix(2)), "--limit keeps the first N of the default order")
        let widestTwo = try listAssets(server, ["--sort", "pixelWidth:desc", "--limit", "2"])
        XCTAssertEqual(widestTwo, Array(byWidth.prefix(2)))
        XCTAssertEqual(Set(widestTwo.map(\.localIdentifier)), Set([try id(Paths.sampleBaseline), try id(Paths.sampleProgressive)]))

        let albums = try runCLIJSON([AlbumJSON].self, ["albums", "--json"], server: server)
        let allPhotos = try XCTUnwrap(albums.first { $0.title == "All Photos" })
        let inAlbum = try listAssets(server, ["--album", allPhotos.localIdentifier])
        XCTAssertEqual(inAlbum, all, "All Photos holds every asset, in the same order")
        let inAlbumSorted = try listAssets(server, ["--album", allPhotos.localIdentifier, "--sort", "pixelHeight:desc", "--limit", "1"])
        XCTAssertEqual(inAlbumSorted.map(\.pixelHeight), [4352])
        XCTAssertEqual(inAlbumSorted.first?.localIdentifier, rotatedID)
    }

    func testListRejectsBadArgumentsClearly() throws {
        for arguments in [["ls", "--limit", "0"], ["ls", "--sort", "colour:desc"], ["ls", "--album", "no-such-album/L0/040"]] {
            let result = try runCLI(arguments, server: server)
            XCTAssertFalse(result.succeeded, "\(arguments) must fail: \(result)")
            XCTAssertFalse(result.signalled, "\(arguments) must not crash: \(result)")
            XCTAssertFalse(result.stderr.isEmpty, "\(arguments) must say why on stderr")
        }
    }

    // MARK: get

    private func get(_ id: String, _ size: String, _ mode: String, json: Bool = false) throws -> (JPEGSize?, [UInt8], ProcessResult) {
        let output = fixture.directory.file("get-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try runCLI(["get", id, "--size", size, "--mode", mode, "-o", output] + (json ? ["--json"] : []), server: server)
        XCTAssertTrue(result.succeeded, "photolib get \(id) \(size) \(mode): \(result)")
        let bytes = (try? readBytes(output)) ?? []
        return (JPEGSize(jpeg: bytes), bytes, result)
    }

    func testGetDeliversExactSizesForFitAndFill() throws {
        let cases: [(String, String, String, JPEGSize)] = [
            (Paths.sampleBaseline, "256x256", "fit", JPEGSize(width: 256, height: 144)),
            (Paths.sampleBaseline, "256x256", "fill", JPEGSize(width: 455, height: 256)),
            (Paths.sampleProgressive, "256x256", "fit", JPEGSize(width: 256, height: 144)),
            (Paths.portrait, "300x300", "fit", JPEGSize(width: 200, height: 300)),
            (Paths.portrait, "300x300", "fill", JPEGSize(width: 300, height: 450)),
            (Paths.landscape, "400x400", "fit", JPEGSize(width: 400, height: 225)),
        ]
        for (path, size, mode, expected) in cases {
            let (decoded, bytes, result) = try get(try id(path), size, mode)
            let name = (path as NSString).lastPathComponent
            XCTAssertTrue(startsWithSOI(bytes), "\(name) \(size) \(mode): the file starts with FFD8")
            XCTAssertEqual(decoded, expected, "\(name) \(size) \(mode): SOF size of the written JPEG")
            XCTAssertTrue(result.stdout.contains("\(expected.width)x\(expected.height)"), "\(result.stdout)")
        }
    }

    func testGetRotatedPhotoComesBackUpright() throws {
        let (fit, _, _) = try get(rotatedID, "400x400", "fit")
        XCTAssertEqual(fit, JPEGSize(width: 225, height: 400), "orientation 6 on 4352x2448: upright 2448x4352, fit 400x400")
        let (fill, _, _) = try get(rotatedID, "400x400", "fill")
        XCTAssertEqual(fill?.width, 400)
        XCTAssertEqual(fill.map { abs($0.height - 711) <= 1 }, true, "fill 400x400 of 2448x4352 is 400x711, got \(String(describing: fill))")
    }

    func testGetJSONReportsWidthHeightAndBytes() throws {
        let (decoded, bytes, result) = try get(try id(Paths.sampleBaseline), "256x256", "fill", json: true)
        let json = try JSONDecoder().decode(GetJSON.self, from: Data(result.stdout.utf8))
        XCTAssertEqual(json.width, 455)
        XCTAssertEqual(json.height, 256)
        XCTAssertEqual(json.bytes, bytes.count, "bytes is the written file's length")
        XCTAssertEqual(decoded, JPEGSize(width: json.width, height: json.height))
    }

    /// `-o` naming a FIFO (or /dev/null) is written in place: an atomic write's rename would
    /// replace it with a regular file (as root, /dev/null itself). Export refuses it clearly.
    func testGetWritesIntoAFIFOAndExportRefusesIt() throws {
        let fifo = fixture.directory.file("out-\(UUID().uuidString).fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        defer { unlink(fifo) }
        // The reader: open blocks until photolib opens the FIFO for writing.
        let read = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var received = [UInt8]()
        DispatchQueue.global().async {
            if let handle = FileHandle(forReadingAtPath: fifo) {
                received = [UInt8](handle.readDataToEndOfFile())
                try? handle.close()
            }
            read.signal()
        }
        let result = try runCLI(["get", try id(Paths.sampleBaseline), "--size", "64x64", "-o", fifo], server: server)
        XCTAssertTrue(result.succeeded, "\(result)")
        XCTAssertEqual(read.wait(timeout: .now() + 30), .success, "the reader got nothing")
        XCTAssertTrue(startsWithSOI(received), "the JPEG went through the FIFO (\(received.count) bytes)")
        var status = stat()
        XCTAssertEqual(stat(fifo, &status), 0)
        XCTAssertEqual(status.st_mode & S_IFMT, S_IFIFO, "still a FIFO, not replaced by a regular file")

        let export = try runCLI(["export", try id(Paths.sampleBaseline), "-o", fifo], server: server)
        XCTAssertFalse(export.succeeded, "\(export)")
        XCTAssertTrue(export.stderr.contains("is not a regular file"), "\(export.stderr)")
        XCTAssertEqual(stat(fifo, &status), 0)
        XCTAssertEqual(status.st_mode & S_IFMT, S_IFIFO)

        // A directory is refused before anything is sent: no FILE.partial is left behind.
        let folder = fixture.directory.file("export-into")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let intoFolder = try runCLI(["export", try id(Paths.sampleBaseline), "-o", folder], server: server)
        XCTAssertFalse(intoFolder.succeeded, "\(intoFolder)")
        XCTAssertTrue(intoFolder.stderr.contains("is a directory"), "\(intoFolder.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + ".partial"), "no partial file")
        // get, and a benchmark's chart, say so too before any work (a raw Foundation error before).
        let getIntoFolder = try runCLI(["get", try id(Paths.sampleBaseline), "--size", "64x64", "-o", folder], server: server)
        XCTAssertFalse(getIntoFolder.succeeded, "\(getIntoFolder)")
        XCTAssertTrue(getIntoFolder.stderr.contains("is a directory: give the path of the file to write"), "\(getIntoFolder.stderr)")
        let chart = try runCLI(["bench", "images", "--requests", "5", "--chart", folder + "/missing/chart.svg"], server: server)
        XCTAssertFalse(chart.succeeded, "\(chart)")
        XCTAssertTrue(chart.stderr.contains("does not exist"), "\(chart.stderr)")
        XCTAssertFalse(chart.stdout.contains("req/s"), "refused before the run: \(chart.stdout)")
    }

    func testGetUnknownAssetFailsWithNotFound() throws {
        let output = fixture.directory.file("missing.jpg")
        let result = try runCLI(["get", "00000000-0000-0000-0000-000000000000/L0/001", "--size", "64x64", "-o", output], server: server)
        XCTAssertFalse(result.succeeded, "\(result)")
        XCTAssertFalse(result.signalled, "\(result)")
        XCTAssertTrue(result.stderr.contains("NOT_FOUND"), "stderr names the code: \(result.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "no file is written for a failed request")
    }

    /// `--version` is the program's at the top and the image version in `get`: `get --help`
    /// listed a second, dead `--version` ("Show the version.") beside its own option.
    func testVersionFlagIsTheProgramsAndGetsOptionIsTheImageVersion() throws {
        let version = try runCLI(["--version"], server: nil)
        XCTAssertTrue(version.succeeded, "\(version)")
        XCTAssertEqual(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "0.1.0")
        let help = try runCLI(["get", "--help"], server: nil)
        XCTAssertTrue(help.succeeded, "\(help)")
        // Option lines are indented; the discussion above them mentions --version too.
        let lines = help.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") && $0.trimmingCharacters(in: .whitespaces).hasPrefix("--version") }
        XCTAssertEqual(lines.count, 1, "get --help lists --version once: \(help.stdout)")
        XCTAssertTrue(lines.first?.contains("current, unadjusted or original") == true, "\(lines)")
        // get's --version takes its value (the program's --version must not swallow it).
        let original = fixture.directory.file("version-original.jpg")
        let got = try runCLI(["get", try id(Paths.landscape), "--version", "original", "--size", "max", "--resize", "none", "-o", original], server: server)
        XCTAssertTrue(got.succeeded, "\(got)")
        XCTAssertEqual(try readBytes(original), try readBytes(Paths.landscape), "the original's bytes")
        let misplaced = try runCLI(["ls", "--version"], server: server)
        XCTAssertFalse(misplaced.succeeded, "ls has no --version: \(misplaced)")
        let bare = try runCLI([], server: nil)
        XCTAssertTrue(bare.succeeded, "photolib alone prints its help: \(bare)")
        XCTAssertTrue(bare.stdout.contains("SUBCOMMANDS"), "\(bare.stdout)")
    }

    /// A request for more assets is answered with picks and a change with a decision: the other
    /// answer is a usage error (--confirm on a request for more assets picked nothing and
    /// printed "confirmed").
    func testAnswersMatchTheKindOfRequest() throws {
        let confirmMore = try runCLI(["clients", "answer", "more-0000", "--confirm"], server: nil)
        XCTAssertEqual(confirmMore.status, 64, "\(confirmMore)")
        XCTAssertTrue(confirmMore.stderr.contains("asks for more assets: answer it with --pick"), "\(confirmMore)")
        let pickEdit = try runCLI(["clients", "answer", "edit-0000", "--pick", "X"], server: nil)
        XCTAssertEqual(pickEdit.status, 64, "\(pickEdit)")
        XCTAssertTrue(pickEdit.stderr.contains("is not a request for more assets"), "\(pickEdit)")
    }

    /// Each `--access` value is described (the help printed "add-only  - " with nothing after).
    func testAccessLevelsAreDescribedInHelp() throws {
        for command in [["auth", "request", "--help"], ["clients", "approve", "--help"]] {
            let help = try runCLI(command, server: nil)
            XCTAssertTrue(help.succeeded, "\(help)")
            for value in ["add-only", "read-write"] {
                let line = help.stdout.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(value + " ") }
                XCTAssertNotNil(line, "\(command): \(help.stdout)")
                XCTAssertTrue(line?.contains("PhotoKit's") == true, "\(command): \(String(describing: line))")
            }
        }
    }
}
