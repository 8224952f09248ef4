import Foundation
import PhotoLibClient
import PhotoLibTestSupport
import XCTest

/// Every library command of `photolib`, end to end with `--json`, against one server: `ls`
/// options, `show`, `albums`, favourite / hide, delete / restore / purge, set-date /
/// set-location, albums and folders, `upload` with dedupe, `apply` with placeholders, and the
/// error paths. Each test makes its own assets, so the tests do not depend on each other.
final class LibraryCLITests: XCTestCase {
    nonisolated(unsafe) private static var fixture: UploadLibrary?
    nonisolated(unsafe) private static var base: [UInt8] = []
    nonisolated(unsafe) private static var counter = 0

    private var fixture: UploadLibrary { Self.fixture! }
    private var server: ServerProcess { fixture.server }

    override func setUp() async throws {
        if Self.fixture == nil {
            let fixture = try UploadLibrary("library-cli")
            Self.fixture = fixture
            let library = try await connectClient(fixture.server)
            defer { library.close() }
            Self.base = try await fixture.smallBases(library)[0]
        }
    }

    override class func tearDown() {
        fixture?.shutDown()
        fixture = nil
    }

    // MARK: JSON the CLI prints

    private struct ChangeReport: Decodable { var operation: String; var localIdentifiers: [String]; var changeToken: String }
    private struct Created: Decodable { var localIdentifier: String; var title: String; var type: String; var changeToken: String }
    private struct Row: Decodable, Hashable { var localIdentifier: String; var title: String; var type: String; var subtype: String?; var count: Int; var folder: String? }
    private struct UploadReport: Decodable, Hashable { var path: String; var status: String; var localIdentifier: String?; var error: String? }
    private struct Applied: Decodable { var requests: Int; var changeToken: String; var placeholders: [String: String] }
    private struct Shown: Decodable {
        struct Album: Decodable, Hashable { var localIdentifier: String; var title: String }
        struct Resource: Decodable { var type: String; var originalFilename: String; var uniformTypeIdentifier: String; var size: Int }
        var asset: AssetJSON
        var isInRecentlyDeleted: Bool
        var hasAdjustments: Bool
        var albums: [Album]
        var resources: [Resource]
    }

    private func json<T: Decodable>(_ type: T.Type, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> T {
        try runCLIJSON(type, arguments + ["--json"], server: server, file: file, line: line)
    }

    /// `ls --json` identifiers.
    private func ls(_ arguments: [String] = []) throws -> [String] {
        try listAssets(server, arguments).map(\.localIdentifier)
    }

    private func albums() throws -> [Row] { try json([Row].self, ["albums"]) }

    private func row(_ id: String) throws -> Row? { try albums().first { $0.localIdentifier == id } }

    /// Distinct small photo bytes, never used before in this run.
    private func freshPhoto(_ label: String) -> [UInt8] {
        Self.counter += 1
        return photoVariant(Self.base, tag: "cli \(label) \(Self.counter)")
    }

    /// `count` new assets through the client, created one hour apart from `start`.
    private func newAssets(_ count: Int, start: Date = Date(timeIntervalSince1970: 2_240_000_000)) async throws -> [String] {
        let library = try await connectClient(server)
        defer { library.close() }
        let photos = (0..<count).map { index in
            PhotoToCreate(bytes: freshPhoto("asset"), filename: "n\(index).jpg", creationDate: start.addingTimeInterval(Double(index) * 3600))
        }
        return try await createAssets(library, photos)
    }

    /// The original file holding exactly `bytes`, if any.
    private func original(holding bytes: [UInt8]) throws -> String? {
        try fixture.originals().first { try readBytes(fixture.libraryPath + "/originals/" + $0) == bytes }
    }

    // MARK: ls

    func testListWhereSortIncludeHiddenAlbumAndLimit() async throws {
        // Six assets on 2042-11-19 (nothing else in the library is), one hour apart from 08:53:20Z.
        let a = try await newAssets(6, start: Date(timeIntervalSince1970: 2_300_000_000))
        let range = "creationDate >= 2042-11-19 AND creationDate < 2042-11-20T00:00:00+00:00"
        _ = try json(ChangeReport.self, ["favorite", a[1], a[3]])
        _ = try json(ChangeReport.self, ["hide", a[4]])

        XCTAssertEqual(try ls(["--where", range]), [a[0], a[1], a[2], a[3], a[5]], "oldest first, hidden left out")
        XCTAssertEqual(try ls(["--where", range, "--include-hidden"]), a)
        XCTAssertEqual(try ls(["--where", range, "--sort", "isFavorite:desc,creationDate:desc"]), [a[3], a[1], a[5], a[2], a[0]])
        XCTAssertEqual(try ls(["--where", range, "--sort", "isFavorite,creationDate:desc", "--include-hidden"]), [a[5], a[4], a[2], a[0], a[3], a[1]])
        XCTAssertEqual(try ls(["--where", range, "--sort", "creationDate:desc", "--limit", "2"]), [a[5], a[3]])
        XCTAssertEqual(try ls(["--where", "\(range) AND (isFavorite == true OR localIdentifier == \"\(a[2])\")"]), [a[1], a[2], a[3]])
        XCTAssertEqual(try ls(["--where", "\(range) AND NOT isHidden == false", "--include-hidden"]), [a[4]])
        XCTAssertEqual(try ls(["--where", "localIdentifier IN {\"\(a[0])\", \"\(a[5])\"}", "--sort", "localIdentifier"]), [a[0], a[5]].sorted())

        // Smart albums.
        XCTAssertEqual(try ls(["--album", LocalIdentifier.smartAlbum(.smartAlbumFavorites), "--where", range]), [a[1], a[3]])
        XCTAssertEqual(try ls(["--album", LocalIdentifier.smartAlbum(.smartAlbumAllHidden), "--where", range]), [a[4]])
        XCTAssertEqual(try ls(["--album", LocalIdentifier.smartAlbum(.smartAlbumUserLibrary), "--where", range, "--limit", "1", "--sort", "creationDate:desc"]), [a[5]])

        // A user album: album order without --sort, the sort with it.
        let album = try json(Created.self, ["album", "create", "ls album"]).localIdentifier
        _ = try json(ChangeReport.self, ["album", "add", album, a[5], a[0], a[2], a[1]])
        XCTAssertEqual(try ls(["--album", album]), [a[5], a[0], a[2], a[1]])
        XCTAssertEqual(try ls(["--album", album, "--sort", "creationDate"]), [a[0], a[1], a[2], a[5]])
        XCTAssertEqual(try ls(["--album", album, "--where", "isFavorite == false"]), [a[5], a[0], a[2]])
        XCTAssertEqual(try ls(["--album", album, "--limit", "2"]), [a[5], a[0]])

        // Fields as PhotoKit names them.
        let listed = try listAssets(server, ["--where", "localIdentifier == \"\(a[1])\""])
        XCTAssertEqual(listed.count, 1)
        XCTAssertEqual(listed.first?.isFavorite, true)
        XCTAssertEqual(listed.first?.mediaType, "image")
        XCTAssertEqual(listed.first?.creationDate, "2042-11-19T09:53:20Z")
        // The table form works too.
        let table = try runCLI(["ls", "--where", range], server: server)
        XCTAssertTrue(table.succeeded, "\(table)")
        XCTAssertTrue(table.stdout.contains(a[3]) && !table.stdout.contains(a[4]), table.stdout)
    }

    // MARK: favorite, hide, set-date, set-location, show

    func testFavoriteHideSetDateSetLocationAndShow() async throws {
        let ids = try await newAssets(2)
        let (x, y) = (ids[0], ids[1])
        func asset(_ id: String) throws -> AssetJSON { try json(Shown.self, ["show", id]).asset }

        let favorited = try json(ChangeReport.self, ["favorite", x, y])
        XCTAssertEqual(favorited.operation, "favorite")
        XCTAssertEqual(favorited.localIdentifiers, [x, y])
        XCTAssertFalse(favorited.changeToken.isEmpty)
        XCTAssertTrue(try asset(x).isFavorite && asset(y).isFavorite)
        let unfavorited = try json(ChangeReport.self, ["favorite", "--off", x])
        XCTAssertEqual(unfavorited.operation, "unfavorite")
        XCTAssertNotEqual(unfavorited.changeToken, favorited.changeToken)
        XCTAssertFalse(try asset(x).isFavorite)
        XCTAssertTrue(try asset(y).isFavorite)

        _ = try json(ChangeReport.self, ["hide", y])
        XCTAssertTrue(try asset(y).isHidden, "show finds hidden assets")
        XCTAssertFalse(try ls().contains(y))
        XCTAssertTrue(try ls(["--include-hidden"]).contains(y))
        XCTAssertTrue(try ls(["--album", LocalIdentifier.smartAlbum(.smartAlbumAllHidden)]).contains(y))
        let unhidden = try json(ChangeReport.self, ["hide", "--off", y])
        XCTAssertEqual(unhidden.operation, "unhide")
        XCTAssertFalse(try asset(y).isHidden)
        XCTAssertTrue(try ls().contains(y))

        _ = try json(ChangeReport.self, ["set-date", x, "2024-05-17T14:30:00+02:00"])
        XCTAssertEqual(try asset(x).creationDate, "2024-05-17T12:30:00Z")
        _ = try json(ChangeReport.self, ["set-date", x, "2023-01-02"])
        XCTAssertEqual(try asset(x).creationDate, "2023-01-02T00:00:00Z")
        _ = try json(ChangeReport.self, ["set-date", x, "2024-05-17T14:30:00.250Z"])
        XCTAssertEqual(parseISO8601(try asset(x).creationDate)?.timeIntervalSince1970 ?? 0, 1_715_956_200, accuracy: 1, "fractional seconds accepted")
        XCTAssertEqual(try ls(["--where", "creationDate == 2024-05-17T14:30:00.25Z"]), [x], "stored to the millisecond")

        _ = try json(ChangeReport.self, ["set-location", x, "48.8584,2.2945"])
        let located = try XCTUnwrap(try asset(x).location)
        XCTAssertEqual(located.latitude, 48.8584, accuracy: 1e-9)
        XCTAssertEqual(located.longitude, 2.2945, accuracy: 1e-9)
        _ = try json(ChangeReport.self, ["set-location", x, "-33.8568,151.2153"])
        XCTAssertEqual(try asset(x).location?.latitude ?? 0, -33.8568, accuracy: 1e-9)
        _ = try json(ChangeReport.self, ["set-location", x, "--clear"])
        XCTAssertNil(try asset(x).location)

        // show: metadata, resources, albums holding the asset.
        let album = try json(Created.self, ["album", "create", "Shown in"]).localIdentifier
        _ = try json(ChangeReport.self, ["album", "add", album, x])
        let shown = try json(Shown.self, ["show", x])
        XCTAssertEqual(shown.asset.localIdentifier, x)
        XCTAssertEqual(shown.albums, [Shown.Album(localIdentifier: album, title: "Shown in")])
        XCTAssertEqual(shown.resources.count, 1)
        XCTAssertEqual(shown.resources.first?.originalFilename, "n0.jpg")
        XCTAssertEqual(shown.resources.first?.uniformTypeIdentifier, "public.jpeg")
        XCTAssertGreaterThan(shown.resources.first?.size ?? 0, 100)
        XCTAssertFalse(shown.hasAdjustments)
        let text = try runCLI(["show", x], server: server)
        XCTAssertTrue(text.succeeded && text.stdout.contains("Shown in") && text.stdout.contains("n0.jpg"), "\(text)")
    }

    // MARK: delete, restore, purge

    /// `restore` of more identifiers than one predicate holds (4096 bytes, about 85 of them):
    /// it asks Recently Deleted in pieces (one predicate of them all was refused).
    func testRestoreOfManyAssetsCountsThemAll() async throws {
        let ids = try await newAssets(120)
        _ = try json(ChangeReport.self, ["delete"] + ids)
        let restored = try runCLI(["restore"] + ids, server: server)
        XCTAssertTrue(restored.succeeded, "\(restored)")
        XCTAssertTrue(restored.stdout.hasPrefix("restore: 120 assets back from Recently Deleted"), "\(restored)")
        XCTAssertTrue(Set(try ls()).isSuperset(of: ids))
    }

    func testDeleteRestoreAndPurgeRemovesTheFile() async throws {
        let library = try await connectClient(server)
        let photos = [freshPhoto("p"), freshPhoto("q")]
        let ids = try await createAssets(library, photos.enumerated().map { PhotoToCreate(bytes: $0.element, filename: "trash\($0.offset).jpg") })
        library.close()
        let (p, q) = (ids[0], ids[1])
        let trash = LocalIdentifier.smartAlbum(.smartAlbumRecentlyDeleted)
        let pFile = try XCTUnwrap(try original(holding: photos[0]), "p's original is in originals/")
        let qFile = try XCTUnwrap(try original(holding: photos[1]), "q's original is in originals/")
        let trashBefore = try XCTUnwrap(try row(trash)).count

        let deleted = try json(ChangeReport.self, ["delete", p, q])
        XCTAssertEqual(deleted.operation, "delete")
        let listed = try ls(["--include-hidden"])
        XCTAssertFalse(listed.contains(p) || listed.contains(q), "deleted assets leave the library's fetches")
        XCTAssertTrue(Set(try ls(["--album", trash])).isSuperset(of: [p, q]), "they are in Recently Deleted")
        XCTAssertEqual(try row(trash)?.count, trashBefore + 2)
        XCTAssertEqual(try row(trash)?.title, "Recently Deleted")
        XCTAssertTrue(FileManager.default.fileExists(atPath: fixture.libraryPath + "/originals/" + qFile), "the file stays while in the trash")
        // `show` finds an asset in Recently Deleted (as `ls --album` and `get` do) and says so.
        let trashed = try json(Shown.self, ["show", p])
        XCTAssertEqual(trashed.asset.localIdentifier, p)
        XCTAssertTrue(trashed.isInRecentlyDeleted)
        let trashedText = try runCLI(["show", p], server: server)
        XCTAssertTrue(trashedText.succeeded, "\(trashedText)")
        XCTAssertTrue(trashedText.stdout.contains("recentlyDeleted  yes"), trashedText.stdout)

        let restoredText = try runCLI(["restore", p], server: server)
        XCTAssertTrue(restoredText.stdout.hasPrefix("restore: 1 asset back from Recently Deleted"), "\(restoredText)")
        XCTAssertFalse(try json(Shown.self, ["show", p]).isInRecentlyDeleted)
        // Restoring it again changes nothing, and says so (it reported "1 object").
        let restoreAgain = try runCLI(["restore", p], server: server)
        XCTAssertTrue(restoreAgain.succeeded, "\(restoreAgain)")
        XCTAssertTrue(restoreAgain.stdout.hasPrefix("restore: 0 assets back"), "\(restoreAgain)")
        XCTAssertTrue(restoreAgain.stderr.contains("\(p) was not in Recently Deleted"), "\(restoreAgain)")
        XCTAssertTrue(try ls().contains(p))
        XCTAssertFalse(try ls(["--album", trash]).contains(p))

        let purged = try json(ChangeReport.self, ["purge", q])
        XCTAssertEqual(purged.operation, "purge")
        XCTAssertFalse(try ls(["--album", trash]).contains(q))
        XCTAssertEqual(try row(trash)?.count, trashBefore)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fixture.libraryPath + "/originals/" + qFile), "purge removes the file")
        XCTAssertNil(try original(holding: photos[1]))
        XCTAssertTrue(FileManager.default.fileExists(atPath: fixture.libraryPath + "/originals/" + pFile), "the restored asset keeps its file")
        try runCLIFailing(["show", q], server: server, saying: ["no asset has the identifier \(q)"])
        try runCLIFailing(["restore", q], server: server, saying: [q])
        // A purged photo can be uploaded again: a new asset.
        let again = try json([UploadReport].self, ["upload", try fixture.directory.write("again/q.jpg", photos[1])])
        XCTAssertEqual(again.first?.status, "new")
        XCTAssertNotEqual(again.first?.localIdentifier, q)
    }

    // MARK: albums and folders

    func testAlbumOrderAfterAddInsertMoveRemoveAndAlbumLifecycle() async throws {
        let a = try await newAssets(6)
        let created = try json(Created.self, ["album", "create", "Order"])
        XCTAssertEqual(created.type, "album")
        XCTAssertEqual(created.title, "Order")
        let album = created.localIdentifier
        XCTAssertTrue(album.hasSuffix("/L0/040"), album)
        var expected: [String] = []
        func check(_ step: String, file: StaticString = #filePath, line: UInt = #line) throws {
            XCTAssertEqual(try ls(["--album", album]), expected, step, file: file, line: line)
            XCTAssertEqual(try row(album)?.count, expected.count, "\(step): albums count", file: file, line: line)
        }
        try check("new album")

        _ = try json(ChangeReport.self, ["album", "add", album, a[0], a[1], a[2]])
        expected = [a[0], a[1], a[2]]
        try check("add")
        _ = try json(ChangeReport.self, ["album", "add", album, a[1], a[3]])
        expected = [a[0], a[1], a[2], a[3]]
        try check("add: assets already there keep their place")
        _ = try json(ChangeReport.self, ["album", "insert", album, "1", a[4], a[5]])
        expected = [a[0], a[4], a[5], a[1], a[2], a[3]]
        try check("insert at 1")
        let moved = try json(ChangeReport.self, ["album", "move", album, "--from", "0,2", "--to", "3"])
        XCTAssertEqual(moved.operation, "album move")
        expected = Self.moved(expected, from: [0, 2], to: 3)
        XCTAssertEqual(expected, [a[4], a[1], a[2], a[0], a[5], a[3]])
        try check("move 0,2 to 3")
        let movedText = try runCLI(["album", "move", album, "--from", "5", "--to", "0"], server: server)
        XCTAssertTrue(movedText.stdout.hasPrefix("album move: 1 asset in \(album) (change"), "it counts the assets moved: \(movedText)")
        expected = Self.moved(expected, from: [5], to: 0)
        try check("move 5 to 0")
        _ = try json(ChangeReport.self, ["album", "remove", album, a[1], a[2]])
        expected.removeAll { $0 == a[1] || $0 == a[2] }
        try check("remove")
        _ = try json(ChangeReport.self, ["album", "insert", album, "4", a[2]])
        expected.append(a[2])
        try check("insert at the end")

        // Bad indexes and duplicates fail and change nothing.
        try runCLIFailing(["album", "insert", album, "9", a[1]], server: server, saying: ["insertAssets"])
        try runCLIFailing(["album", "insert", album, "0", a[0]], server: server, saying: ["insertAssets"])
        try runCLIFailing(["album", "move", album, "--from", "7", "--to", "0"], server: server, saying: ["moveAssets"])
        try check("after refused requests")

        _ = try json(ChangeReport.self, ["album", "rename", album, "Renamed"])
        XCTAssertEqual(try row(album)?.title, "Renamed")
        XCTAssertEqual(try row(album)?.type, "album")
        _ = try json(ChangeReport.self, ["album", "delete", album])
        XCTAssertNil(try row(album))
        XCTAssertTrue(Set(try ls()).isSuperset(of: a), "deleting an album keeps its assets")
        try runCLIFailing(["ls", "--album", album], server: server, saying: ["no album or smart album has the identifier \(album)"])
    }

    /// PhotoKit's `moveAssets(at:to:)`: remove the indexes, insert at `to` in what remains.
    private static func moved(_ list: [String], from: [Int], to: Int) -> [String] {
        let moving = from.sorted().map { list[$0] }
        var rest = list.enumerated().filter { !from.contains($0.offset) }.map(\.element)
        rest.insert(contentsOf: moving, at: to)
        return rest
    }

    func testAlbumsListSmartAlbumsUserAlbumsAndFoldersWithCounts() async throws {
        let a = try await newAssets(3)
        let rows = try albums()
        let smart = rows.filter { $0.type == "smartAlbum" }
        XCTAssertEqual(smart.map(\.title), ["All Photos", "Favorites", "Recently Added", "Videos", "Screenshots", "Panoramas", "Live Photos", "Hidden", "Recently Deleted"])
        XCTAssertEqual(rows.first?.subtype, "smartAlbumUserLibrary")
        XCTAssertEqual(smart.first?.count, try ls().count, "All Photos counts the visible assets")
        XCTAssertEqual(smart.first { $0.title == "Recently Added" }?.count, try ls().count, "everything was added just now")
        XCTAssertEqual(smart.first { $0.title == "Videos" }?.count, 0)

        let outer = try json(Created.self, ["folder", "create", "Travel"])
        XCTAssertEqual(outer.type, "folder")
        XCTAssertTrue(outer.localIdentifier.hasSuffix("/L0/020"), outer.localIdentifier)
        let inner = try json(Created.self, ["folder", "create", "Europe", "--in", outer.localIdentifier]).localIdentifier
        let paris = try json(Created.self, ["album", "create", "Paris", "--in", inner]).localIdentifier
        let rome = try json(Created.self, ["album", "create", "Rome", "--in", inner]).localIdentifier
        _ = try json(ChangeReport.self, ["album", "add", paris, a[0], a[1]])
        _ = try json(ChangeReport.self, ["album", "add", rome, a[2]])
        var listed = try albums()
        XCTAssertEqual(listed.first { $0.localIdentifier == outer.localIdentifier }, Row(localIdentifier: outer.localIdentifier, title: "Travel", type: "folder", subtype: nil, count: 1, folder: nil))
        XCTAssertEqual(listed.first { $0.localIdentifier == inner }, Row(localIdentifier: inner, title: "Europe", type: "folder", subtype: nil, count: 2, folder: outer.localIdentifier))
        XCTAssertEqual(listed.first { $0.localIdentifier == paris }, Row(localIdentifier: paris, title: "Paris", type: "album", subtype: "albumRegular", count: 2, folder: inner))
        XCTAssertEqual(listed.first { $0.localIdentifier == rome }?.count, 1)
        XCTAssertLessThan(listed.firstIndex { $0.type == "smartAlbum" && $0.title == "Recently Deleted" }!, listed.firstIndex { $0.localIdentifier == paris }!, "smart albums first")

        // The table shows whole titles, wide characters too (they were cut by UTF-16 length).
        let wide = try json(Created.self, ["album", "create", "Ünïcode 📷📷 x"]).localIdentifier
        let table = try runCLI(["albums"], server: server)
        XCTAssertTrue(table.succeeded, "\(table)")
        XCTAssertTrue(table.stdout.contains("Ünïcode 📷📷 x"), table.stdout)
        _ = try json(ChangeReport.self, ["album", "delete", wide])
        // Each command works on its own kind only (delete and rename took either).
        try runCLIFailing(["folder", "delete", paris], server: server, saying: ["is not a folder", "photolib album delete"])
        try runCLIFailing(["folder", "rename", paris, "X"], server: server, saying: ["is not a folder"])
        try runCLIFailing(["album", "delete", inner], server: server, saying: ["is a folder, not an album", "photolib folder delete"])
        try runCLIFailing(["album", "rename", inner, "X"], server: server, saying: ["is a folder, not an album"])
        XCTAssertEqual(try row(paris)?.title, "Paris", "the album is untouched")
        XCTAssertEqual(try row(inner)?.title, "Europe", "the folder is untouched")
        _ = try json(ChangeReport.self, ["folder", "rename", outer.localIdentifier, "Trips"])
        XCTAssertEqual(try row(outer.localIdentifier)?.title, "Trips")
        // Deleting a folder moves what it holds to its parent.
        let deleted = try json(ChangeReport.self, ["folder", "delete", inner])
        XCTAssertEqual(deleted.operation, "folder delete")
        listed = try albums()
        XCTAssertNil(listed.first { $0.localIdentifier == inner })
        XCTAssertEqual(listed.first { $0.localIdentifier == paris }?.folder, outer.localIdentifier)
        XCTAssertEqual(listed.first { $0.localIdentifier == rome }?.folder, outer.localIdentifier)
        XCTAssertEqual(listed.first { $0.localIdentifier == outer.localIdentifier }?.count, 2)
        XCTAssertEqual(listed.first { $0.localIdentifier == paris }?.count, 2, "albums keep their assets")
        _ = try json(ChangeReport.self, ["folder", "delete", outer.localIdentifier])
        listed = try albums()
        XCTAssertNil(listed.first { $0.localIdentifier == paris }?.folder, "top level now")
        XCTAssertNotNil(listed.first { $0.localIdentifier == paris })
        XCTAssertFalse(listed.contains { $0.type == "folder" && ($0.localIdentifier == outer.localIdentifier) })
        // The wrong kind of identifier is refused.
        try runCLIFailing(["album", "create", "Nowhere", "--in", paris], server: server, saying: ["createAlbum"])
        try runCLIFailing(["album", "add", a[0], a[1]], server: server, saying: ["addAssets"])
    }

    // MARK: upload

    /// `photolib upload` dates a photo without an EXIF date by its file's modification time,
    /// as `photolibd import` does (it was dated by the upload); an EXIF date still wins.
    func testUploadDatesAPhotoWithoutADateOfItsOwnByTheFilesModificationTime() throws {
        let dir = fixture.directory
        let plain = try dir.write("dated/plain.jpg", freshPhoto("mtime"))
        let exif = try dir.write("dated/exif.jpg", ExifFixture.jpegWithExif(freshPhoto("exif"), orientation: 1, dateTimeOriginal: "2030:01:01 12:00:00"))
        let modified = Date(timeIntervalSince1970: 981_173_106)  // 2001-02-03T04:05:06Z
        for path in [plain, exif] { try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: path) }
        let uploaded = try json([UploadReport].self, ["upload", plain, exif])
        XCTAssertEqual(uploaded.map(\.status), ["new", "new"])
        let plainAsset = try json(Shown.self, ["show", try XCTUnwrap(uploaded[0].localIdentifier)]).asset
        XCTAssertEqual(plainAsset.creationDate, "2001-02-03T04:05:06Z")
        let exifAsset = try json(Shown.self, ["show", try XCTUnwrap(uploaded[1].localIdentifier)]).asset
        XCTAssertTrue(exifAsset.creationDate.hasPrefix("2030-01-01T"), "the EXIF date wins: \(exifAsset.creationDate)")
    }

    func testUploadReportsNewAndAlreadyPresentWithIdentifiersAndDedupes() throws {
        let dir = fixture.directory
        let aBytes = freshPhoto("upload a"), bBytes = freshPhoto("upload b"), cBytes = freshPhoto("upload c")
        let a = try dir.write("up/a.jpg", aBytes)
        let b = try dir.write("up/b.jpg", bBytes)
        try dir.write("up/folder/c.jpg", cBytes)
        try dir.write("up/folder/dup-of-a.JPEG", aBytes)
        try dir.write("up/folder/notes.txt", Array("not a photo".utf8))
        let folder = dir.file("up/folder")
        let before = fixture.originals()

        let first = try json([UploadReport].self, ["upload", a, folder])
        XCTAssertEqual(first.map(\.path), [a, folder + "/c.jpg", folder + "/dup-of-a.JPEG"], "files, then the folder's photos sorted; other files skipped")
        XCTAssertEqual(first.map(\.status), ["new", "new", "alreadyPresent"])
        let aID = try XCTUnwrap(first[0].localIdentifier)
        let cID = try XCTUnwrap(first[1].localIdentifier)
        XCTAssertEqual(first[2].localIdentifier, aID, "the duplicate answers with the existing asset")
        XCTAssertNotEqual(aID, cID)
        XCTAssertEqual(fixture.originals().count, before.count + 2, "one file per new photo, none for the duplicate")
        XCTAssertTrue(Set(try ls()).isSuperset(of: [aID, cID]))
        XCTAssertEqual(try json(Shown.self, ["show", cID]).resources.first?.originalFilename, "c.jpg")

        // Again, into an album: one new, one already present; both end up in the album.
        let album = try json(Created.self, ["album", "create", "Uploads"]).localIdentifier
        let second = try json([UploadReport].self, ["upload", b, a, "--album", album])
        XCTAssertEqual(second.map(\.status), ["new", "alreadyPresent"])
        XCTAssertEqual(second[1].localIdentifier, aID)
        let bID = try XCTUnwrap(second[0].localIdentifier)
        XCTAssertEqual(try ls(["--album", album]), [bID, aID])
        XCTAssertEqual(fixture.originals().count, before.count + 3)

        // The text report.
        let text = try runCLI(["upload", a], server: server)
        XCTAssertTrue(text.succeeded, "\(text)")
        XCTAssertEqual(text.stdoutLines, ["already present \(aID) \(a)", "uploaded 0, paired 0, already present 1, refused 0"])

        // A refused file does not stop the others; the exit status says one was refused.
        let bad = try dir.write("up/broken.jpg", Array("this is not a JPEG at all".utf8))
        let c2 = try dir.write("up/c2.jpg", freshPhoto("upload c2"))
        let mixed = try runCLI(["upload", "--json", bad, c2], server: server)
        XCTAssertFalse(mixed.succeeded, "\(mixed)")
        let reports = try JSONDecoder().decode([UploadReport].self, from: Data(mixed.stdout.utf8))
        XCTAssertEqual(reports.map(\.status), ["refused", "new"])
        XCTAssertNotNil(reports[0].error)
        XCTAssertNil(reports[0].localIdentifier)
        XCTAssertNotNil(reports[1].localIdentifier)
        try runCLIFailing(["upload", dir.file("up/missing.jpg")], server: server, saying: ["missing.jpg: no such file or folder"])
        // A missing file or a folder with nothing to upload is refused too, and stops nothing.
        let emptyFolder = dir.file("up/empty")
        try FileManager.default.createDirectory(atPath: emptyFolder, withIntermediateDirectories: true)
        let c3 = try dir.write("up/c3.jpg", freshPhoto("upload c3"))
        let partly = try runCLI(["upload", "--json", dir.file("up/missing.jpg"), c3, emptyFolder], server: server)
        XCTAssertFalse(partly.succeeded, "\(partly)")
        let partReports = try JSONDecoder().decode([UploadReport].self, from: Data(partly.stdout.utf8))
        XCTAssertEqual(partReports.map(\.path), [c3, dir.file("up/missing.jpg"), emptyFolder])
        XCTAssertEqual(partReports.map(\.status), ["new", "refused", "refused"])
        XCTAssertTrue(partReports[2].error?.contains("no photos or videos in it") == true, "\(partReports)")
    }

    // MARK: apply

    func testApplyCreatesAlbumUploadsAndAddsInOneBatchWithPlaceholders() async throws {
        let existing = try await newAssets(1)[0]
        let dir = fixture.directory
        let n1 = try dir.write("apply/new1.jpg", freshPhoto("apply 1"))
        let n2 = try dir.write("apply/new2.jpg", freshPhoto("apply 2"))
        let plan: [[String: Any]] = [
            ["op": "createFolder", "title": "Apply folder", "placeholder": "$folder"],
            ["op": "createAlbum", "title": "Lisbon 2024", "placeholder": "$trip", "folder": "$folder"],
            ["op": "createAsset", "path": n1, "placeholder": "$tram", "isFavorite": true, "creationDate": "2024-05-17T14:30:00+01:00"],
            // Relative: read from the plan's folder, wherever photolib runs.
            ["op": "createAsset", "path": (n2 as NSString).lastPathComponent, "placeholder": "$view", "location": ["latitude": 38.7139, "longitude": -9.1394]],
            ["op": "addAssets", "album": "$trip", "assets": ["$tram", existing]],
            ["op": "insertAssets", "album": "$trip", "assets": ["$view"], "index": 1],
            ["op": "setKeyAsset", "album": "$trip", "asset": "$view"],
            ["op": "setAssetProperties", "asset": existing, "isFavorite": true],
        ]
        let file = try dir.write("apply/plan.json", [UInt8](try JSONSerialization.data(withJSONObject: plan)))
        let before = fixture.originals().count
        let applied = try json(Applied.self, ["apply", file])
        XCTAssertEqual(applied.requests, plan.count)
        XCTAssertEqual(Set(applied.placeholders.keys), ["$folder", "$trip", "$tram", "$view"])
        let trip = try XCTUnwrap(applied.placeholders["$trip"])
        let folder = try XCTUnwrap(applied.placeholders["$folder"])
        let tram = try XCTUnwrap(applied.placeholders["$tram"])
        let view = try XCTUnwrap(applied.placeholders["$view"])
        XCTAssertTrue(trip.hasSuffix("/L0/040") && folder.hasSuffix("/L0/020") && tram.hasSuffix("/L0/001") && view.hasSuffix("/L0/001"))
        XCTAssertEqual(try ls(["--album", trip]), [tram, view, existing])
        XCTAssertEqual(try row(trip)?.folder, folder)
        XCTAssertEqual(try row(trip)?.title, "Lisbon 2024")
        XCTAssertEqual(try row(folder)?.count, 1)
        let tramShown = try json(Shown.self, ["show", tram])
        XCTAssertTrue(tramShown.asset.isFavorite)
        XCTAssertEqual(tramShown.asset.creationDate, "2024-05-17T13:30:00Z")
        XCTAssertEqual(tramShown.albums.map(\.localIdentifier), [trip])
        XCTAssertEqual(try json(Shown.self, ["show", view]).asset.location?.latitude ?? 0, 38.7139, accuracy: 1e-9)
        XCTAssertTrue(try json(Shown.self, ["show", existing]).asset.isFavorite)
        XCTAssertEqual(fixture.originals().count, before + 2)

        // The same photos again: answered with the existing assets, nothing new on disk.
        let again: [[String: Any]] = [["op": "createAsset", "path": n1, "placeholder": "$again"], ["op": "addAssets", "album": "$new", "assets": ["$again"]]]
        let againFile = try dir.write("apply/again.json", [UInt8](try JSONSerialization.data(withJSONObject: again)))
        try runCLIFailing(["apply", againFile], server: server, saying: ["entry 1", "$new"])
        let dedupe: [[String: Any]] = [["op": "createAlbum", "title": "Dedupe", "placeholder": "$d"], ["op": "createAsset", "path": n1, "placeholder": "$again"], ["op": "addAssets", "album": "$d", "assets": ["$again"]]]
        let dedupeFile = try dir.write("apply/dedupe.json", [UInt8](try JSONSerialization.data(withJSONObject: dedupe)))
        let deduped = try json(Applied.self, ["apply", dedupeFile])
        XCTAssertEqual(deduped.placeholders["$again"], tram)
        XCTAssertEqual(try ls(["--album", try XCTUnwrap(deduped.placeholders["$d"])]), [tram])
        XCTAssertEqual(fixture.originals().count, before + 2)
    }

    // MARK: errors

    func testUnknownIdentifiersBadDatesAndBadPredicatesFailClearly() async throws {
        let x = try await newAssets(1)[0]
        let unknownAsset = LocalIdentifier.newAsset()
        let unknownAlbum = LocalIdentifier.newAlbum()
        let unknownFolder = LocalIdentifier.newFolder()

        // Unknown identifiers: NOT_FOUND naming the identifier.
        for arguments in [["favorite", unknownAsset], ["hide", unknownAsset], ["delete", unknownAsset], ["restore", unknownAsset], ["purge", unknownAsset],
                          ["set-date", unknownAsset, "2024-01-01"], ["set-location", unknownAsset, "1,2"], ["show", unknownAsset]] {
            try runCLIFailing(arguments, server: server, saying: [unknownAsset, "NOT_FOUND"])
        }
        for arguments in [["album", "add", unknownAlbum, x], ["album", "rename", unknownAlbum, "t"], ["album", "delete", unknownAlbum], ["album", "remove", unknownAlbum, x],
                          ["album", "insert", unknownAlbum, "0", x], ["album", "move", unknownAlbum, "--from", "0", "--to", "0"], ["ls", "--album", unknownAlbum]] {
            try runCLIFailing(arguments, server: server, saying: [unknownAlbum, "NOT_FOUND"])
        }
        try runCLIFailing(["folder", "rename", unknownFolder, "t"], server: server, saying: [unknownFolder, "NOT_FOUND"])
        try runCLIFailing(["album", "create", "t", "--in", unknownFolder], server: server, saying: [unknownFolder, "NOT_FOUND"])
        // One unknown identifier among good ones: nothing is applied.
        try runCLIFailing(["favorite", x, unknownAsset], server: server, saying: [unknownAsset])
        XCTAssertFalse(try json(Shown.self, ["show", x]).asset.isFavorite, "the batch was all or nothing")
        try runCLIFailing(["favorite", "not an identifier"], server: server, saying: ["not an identifier"])

        // Bad dates and locations.
        for date in ["2024-13-01", "2023-02-29", "yesterday", "2024-05-17T25:00:00Z", ""] {
            try runCLIFailing(["set-date", x, date], server: server, saying: ["is not a date", "ISO 8601"])
        }
        try runCLIFailing(["set-location", x, "91,0"], server: server, saying: ["out of range"])
        try runCLIFailing(["set-location", x, "north"], server: server, saying: ["LAT,LON"])

        // Bad predicates: the message has the column and what was expected.
        try runCLIFailing(["ls", "--where", "pixelWidth > \"x\""], server: server, saying: ["at column 14: expected an integer for pixelWidth", "INVALID_ARGUMENT"])
        try runCLIFailing(["ls", "--where", "foo == 1"], server: server, saying: ["at column 1: unknown key 'foo'"])
        try runCLIFailing(["ls", "--where", "(isFavorite == true"], server: server, saying: ["at column 20:"])
        try runCLIFailing(["ls", "--where", "creationDate > 2023-02-29"], server: server, saying: ["at column 16: invalid date '2023-02-29'"])
        try runCLIFailing(["ls", "--where", "isFavorite == true; x"], server: server, saying: ["at column 19: unexpected character ';'"])
        // Bad sorts and limits.
        try runCLIFailing(["ls", "--sort", "size"], server: server, saying: ["unknown sort key 'size'"])
        try runCLIFailing(["ls", "--sort", "creationDate:up"], server: server, saying: ["asc or desc"])
        try runCLIFailing(["ls", "--limit", "0"], server: server, saying: ["--limit"])
        // "-1" alone reads as an option, so the index is refused by the parser; after "--" the
        // command itself refuses it. Neither asks the server (no NOT_FOUND for the album).
        let parsed = try runCLIFailing(["album", "insert", unknownAlbum, "-1", x], server: server, saying: ["<index>"])
        XCTAssertFalse(parsed.stderr.contains("NOT_FOUND"), "refused before asking the server: \(parsed)")
        let negative = try runCLIFailing(["album", "insert", unknownAlbum, "--", "-1", x], server: server, saying: ["must not be negative"])
        XCTAssertFalse(negative.stderr.contains("NOT_FOUND"), "refused before asking the server: \(negative)")
        try runCLIFailing(["album", "move", unknownAlbum, "--from", "a,b", "--to", "0"], server: server, saying: ["--from"])

        // apply: bad files.
        let dir = fixture.directory
        let badDate = try dir.write("errors/bad-date.json", Array(#"[{"op": "setAssetProperties", "asset": "\#(x)", "creationDate": "2024-02-30"}]"#.utf8))
        try runCLIFailing(["apply", badDate], server: server, saying: ["entry 0 (setAssetProperties)", "is not a date"])
        let badOp = try dir.write("errors/bad-op.json", Array(#"[{"op": "favoriteEverything"}]"#.utf8))
        try runCLIFailing(["apply", badOp], server: server, saying: ["entry 0", "unknown op 'favoriteEverything'"])
        let notJSON = try dir.write("errors/not.json", Array("[{".utf8))
        try runCLIFailing(["apply", notJSON], server: server, saying: ["not valid JSON"])
        let unknown = try dir.write("errors/unknown.json", Array(#"[{"op": "setAssetProperties", "asset": "\#(x)", "isFavorite": true}, {"op": "deleteAssets", "assets": ["\#(unknownAsset)"]}]"#.utf8))
        try runCLIFailing(["apply", unknown], server: server, saying: ["entry 1", "deleteAssets", unknownAsset, "nothing was applied"])
        XCTAssertFalse(try json(Shown.self, ["show", x]).asset.isFavorite)
        try runCLIFailing(["apply", dir.file("errors/missing.json")], server: server, saying: ["cannot read"])
        // Only a regular file is read as a plan (/dev/zero was read without end), and a
        // createAsset path that is a folder says so.
        try runCLIFailing(["apply", "/dev/zero"], server: server, saying: ["/dev/zero is not a regular file"])
        try runCLIFailing(["apply", dir.file("errors")], server: server, saying: ["is not a regular file"])
        let folderPath = try dir.write("errors/folder-path.json", Array(#"[{"op": "createAsset", "path": "."}]"#.utf8))
        try runCLIFailing(["apply", folderPath], server: server, saying: ["a folder, not a file", "nothing was applied"])
    }
}

