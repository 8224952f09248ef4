import Foundation
import PhotoLibClient
import XCTest

/// A batch with one failing request leaves the library exactly as it was — database (every
/// listing the CLI prints, the change token) and files (`originals/`) — and the error names
/// the failing entry. Then trash retention: a server that keeps the trash 0 days purges a
/// deleted asset and its file by itself.
final class AtomicBatchTests: XCTestCase {
    /// Everything observable about a library, as the CLI prints it, plus its files.
    private struct LibraryState: Equatable {
        var assets: String
        var albums: String
        var trash: String
        var albumContents: String
        var token: String
        var originals: [String: Int]
    }

    private func state(_ fixture: UploadLibrary, album: String) throws -> LibraryState {
        func output(_ arguments: [String]) throws -> String {
            let result = try runCLI(arguments + ["--json"], server: fixture.server)
            guard result.succeeded else { throw E2EError("photolib \(arguments.joined(separator: " ")) failed: \(result)") }
            return result.stdout
        }
        var originals: [String: Int] = [:]
        for file in fixture.originals() {
            originals[file] = try readBytes(fixture.libraryPath + "/originals/" + file).count
        }
        return LibraryState(
            assets: try output(["ls", "--include-hidden"]), albums: try output(["albums"]),
            trash: try output(["ls", "--album", LocalIdentifier.smartAlbum(.smartAlbumRecentlyDeleted)]),
            albumContents: try output(["ls", "--album", album]), token: try output(["token"]), originals: originals)
    }

    func testBatchWithOneFailingRequestLeavesDatabaseAndFilesExactlyAsBefore() async throws {
        let fixture = try UploadLibrary("atomic")
        defer { fixture.shutDown() }
        let library = try await connectClient(fixture.server)
        defer { library.close() }
        let base = try await fixture.smallBases(library)[1]
        let ids = try await createAssets(library, (0..<5).map { PhotoToCreate(bytes: photoVariant(base, tag: "atomic \($0)"), filename: "a\($0).jpg", isFavorite: $0 == 0) })
        var album = "", folder = ""
        let setup = try await library.performChanges { batch in
            let f = batch.createFolder(title: "Folder")
            let a = batch.createAlbum(title: "Album", in: f.localIdentifier)
            batch.addAssets([ids[0], ids[1], ids[2]], to: a.localIdentifier)
            batch.deleteAssets([ids[4]])
            album = a.localIdentifier
            folder = f.localIdentifier
        }
        album = try XCTUnwrap(setup.placeholders[album])
        folder = try XCTUnwrap(setup.placeholders[folder])
        let before = try state(fixture, album: album)
        XCTAssertEqual(before.originals.count, 6, "the imported photo and five uploads")
        XCTAssertTrue(before.trash.contains(ids[4]))

        let dir = fixture.directory
        let newPhoto = try dir.write("atomic/new.jpg", photoVariant(base, tag: "atomic new"))
        let unknown = LocalIdentifier.newAsset()
        // Every kind of request, then one that fails (last).
        let prefix: [[String: Any]] = [
            ["op": "createFolder", "title": "New folder", "placeholder": "$f"],
            ["op": "createAlbum", "title": "New album", "placeholder": "$a", "folder": "$f"],
            ["op": "createAsset", "path": newPhoto, "placeholder": "$n", "isFavorite": true],
            ["op": "addAssets", "album": "$a", "assets": ["$n", ids[3]]],
            ["op": "addAssets", "album": album, "assets": ["$n"]],
            ["op": "setAssetProperties", "asset": ids[0], "isFavorite": false, "isHidden": true, "creationDate": "2001-02-03T04:05:06Z", "location": ["latitude": 1.5, "longitude": 2.5]],
            ["op": "insertAssets", "album": album, "assets": [ids[3]], "index": 0],
            ["op": "moveAssets", "album": album, "from": [0, 1], "to": 2],
            ["op": "removeAssets", "album": album, "assets": [ids[2]]],
            ["op": "setKeyAsset", "album": album, "asset": ids[1]],
            ["op": "renameCollection", "collection": album, "title": "Renamed"],
            ["op": "deleteAssets", "assets": [ids[1]]],
            ["op": "restoreAssets", "assets": [ids[4]]],
            ["op": "purgeAssets", "assets": [ids[4]]],
            ["op": "purgeAssets", "assets": [ids[2]]],
            ["op": "moveCollections", "collections": [album], "folder": "$f"],
            ["op": "deleteCollections", "collections": [folder]],
        ]
        let failures: [([String: Any], [String])] = [
            (["op": "addAssets", "album": album, "assets": [unknown]], ["addAssets", unknown]),
            (["op": "insertAssets", "album": "$a", "assets": [ids[1]], "index": 99], ["insertAssets"]),
            (["op": "purgeAssets", "assets": [ids[3], unknown]], ["purgeAssets", unknown]),
            (["op": "createAlbum", "title": "", "placeholder": "$empty"], ["createAlbum"]),
            (["op": "setAssetProperties", "asset": "$nothing", "isFavorite": true], ["setAssetProperties", "$nothing"]),
        ]
        for (failing, words) in failures {
            let plan = prefix + [failing]
            let file = try dir.write("atomic/plan.json", [UInt8](try JSONSerialization.data(withJSONObject: plan)))
            let last = plan.count - 1
            try runCLIFailing(["apply", file], server: fixture.server, saying: ["nothing was applied", "entry \(last)"] + words)
            let after = try state(fixture, album: album)
            XCTAssertEqual(after, before, "library changed by a failed batch ending with \(failing)")
        }
        // The prefix alone applies (so the failures above were really caused by the last entry).
        let good = try dir.write("atomic/good.json", [UInt8](try JSONSerialization.data(withJSONObject: prefix)))
        let applied = try runCLI(["apply", "--json", good], server: fixture.server)
        XCTAssertTrue(applied.succeeded, "\(applied)")
        let changed = try state(fixture, album: album)
        XCTAssertNotEqual(changed.token, before.token)
        XCTAssertFalse(changed.trash.contains(ids[4]), "purged")
        XCTAssertEqual(changed.originals.count, before.originals.count + 1 - 2, "one new file, two purged")

        // The client sees the failing request's index.
        do {
            _ = try await library.performChanges { batch in
                batch.setProperties(of: ids[3], isFavorite: true)
                batch.deleteAssets([ids[3]])
                batch.addAssets([unknown], to: album)
            }
            XCTFail("the batch should fail")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.failedRequestIndex, 2)
            XCTAssertEqual(error.code, .notFound)
            XCTAssertTrue(error.message.contains(unknown), error.message)
        }
        XCTAssertEqual(try state(fixture, album: album), changed)
    }

    func testTrashRetentionPurgesDeletedAssetsAndTheirFiles() async throws {
        let fixture = try UploadLibrary("retention", serverArguments: ["--trash-retention-days", "0", "--maintenance-interval", "1"])
        defer { fixture.shutDown() }
        let library = try await connectClient(fixture.server)
        defer { library.close() }
        let base = try await fixture.smallBases(library)[2]
        let photos = (0..<2).map { photoVariant(base, tag: "retention \($0)") }
        let ids = try await createAssets(library, photos.enumerated().map { PhotoToCreate(bytes: $0.element, filename: "r\($0.offset).jpg") })
        func file(holding bytes: [UInt8]) throws -> String? {
            try fixture.originals().first { try readBytes(fixture.libraryPath + "/originals/" + $0) == bytes }
        }
        let deletedFile = try XCTUnwrap(try file(holding: photos[0]))
        let trash = LocalIdentifier.smartAlbum(.smartAlbumRecentlyDeleted)

        _ = try runCLIJSON([String: AnyDecodable].self, ["delete", "--json", ids[0]], server: fixture.server)
        XCTAssertFalse(try listAssets(fixture.server, ["--include-hidden"]).map(\.localIdentifier).contains(ids[0]))
        // Within a few maintenance rounds the trash is emptied.
        let deadline = Date().addingTimeInterval(15)
        var purged = false
        while Date() < deadline {
            let inTrash = try listAssets(fixture.server, ["--album", trash]).map(\.localIdentifier)
            if inTrash.isEmpty && !FileManager.default.fileExists(atPath: fixture.libraryPath + "/originals/" + deletedFile) {
                purged = true
                break
            }
            usleep(250_000)
        }
        XCTAssertTrue(purged, "the deleted asset and its file are purged within 15 s\n\(fixture.server.log)")
        XCTAssertEqual(try listAssets(fixture.server, ["--album", trash]), [])
        let trashRow = try runCLIJSON([AlbumJSON].self, ["albums", "--json"], server: fixture.server).first { $0.localIdentifier == trash }
        XCTAssertEqual(trashRow?.count, 0)
        try runCLIFailing(["show", ids[0]], server: fixture.server, saying: ["no asset has the identifier \(ids[0])"])
        try runCLIFailing(["restore", ids[0]], server: fixture.server, saying: [ids[0]])
        // The asset that was not deleted, and its file, stay.
        XCTAssertTrue(try listAssets(fixture.server).map(\.localIdentifier).contains(ids[1]))
        XCTAssertNotNil(try file(holding: photos[1]))
        XCTAssertNil(try file(holding: photos[0]))
    }
}

/// Any JSON value (only to check that a command printed a JSON object).
private struct AnyDecodable: Decodable {
    init(from decoder: any Decoder) throws {}
}
