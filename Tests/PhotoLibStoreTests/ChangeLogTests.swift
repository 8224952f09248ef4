import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

@Suite("Change log: tokens and persistent history")
struct ChangeLogTests {
    @Test("every committed change gets one transaction with a strictly increasing token and the right objects")
    func tokens() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        #expect(try library.currentChangeToken() == 0)

        let imported = try library.addPhotoRecordingChange(try SamplePhotos.uniqueBytes(0), metadata: SamplePhotos.metadata())
        let asset = imported.outcome.asset.localIdentifier
        #expect(imported.token == 1)
        let duplicate = try library.addPhotoRecordingChange(try SamplePhotos.uniqueBytes(0), metadata: SamplePhotos.metadata())
        #expect(duplicate.token == nil && duplicate.outcome == .alreadyPresent(imported.outcome.asset))
        _ = try library.addPhoto(try SamplePhotos.uniqueBytes(1), metadata: SamplePhotos.metadata())
        #expect(try library.currentChangeToken() == 2)

        let album = try library.performChanges(
            [.createAlbum(title: "A", placeholder: "$a", parentFolder: nil), .addAssets(album: "$a", assets: [asset])], author: "tester")
        try library.setFavorite(true, forAssets: [asset])
        let failed = thrownError { () throws(PhotoLibError) in _ = try library.performChanges([.deleteAssets([LocalIdentifier.newAsset()])]) }
        #expect(failed?.code == .notFound)
        _ = try library.performChanges([])
        #expect(try library.currentChangeToken() == 4)

        let page = try library.persistentChanges(since: 0, limit: 100)
        #expect(!page.hasMore && page.currentToken == 4)
        #expect(page.changes.map(\.token) == [1, 2, 3, 4])
        #expect(page.changes.map(\.author) == ["import", "import", "tester", "setFavorite"])
        #expect(page.changes[0].objects == [ObjectChange(objectType: .asset, identifier: asset, kind: .inserted)])
        #expect(page.changes[2].objects == [ObjectChange(objectType: .assetCollection, identifier: try #require(album.placeholders["$a"]), kind: .inserted)])
        #expect(page.changes[3].objects == [ObjectChange(objectType: .asset, identifier: asset, kind: .updated)])
        #expect(zip(page.changes, page.changes.dropFirst()).allSatisfy { $0.committedAt <= $1.committedAt })

        // Paging.
        let first = try library.persistentChanges(since: 0, limit: 3)
        #expect(first.changes.map(\.token) == [1, 2, 3] && first.hasMore)
        let rest = try library.persistentChanges(since: first.nextToken(after: 0), limit: 3)
        #expect(rest.changes.map(\.token) == [4] && !rest.hasMore)
        let none = try library.persistentChanges(since: 4, limit: 3)
        #expect(none.changes.isEmpty && !none.hasMore && none.nextToken(after: 4) == 4)

        // Bad tokens and limits.
        #expect(expectError { () throws(PhotoLibError) in _ = try library.persistentChanges(since: 5, limit: 3) }.code == .invalidArgument)
        #expect(expectError { () throws(PhotoLibError) in _ = try library.persistentChanges(since: -1, limit: 3) }.code == .invalidArgument)
        #expect(expectError { () throws(PhotoLibError) in _ = try library.persistentChanges(since: 0, limit: 0) }.code == .invalidArgument)
        #expect(expectError { () throws(PhotoLibError) in _ = try library.performChanges([], author: "") }.code == .invalidArgument)
    }

    @Test("a second instance on the same directory sees the same tokens, and its commits continue the sequence")
    func sharedAcrossInstances() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let first = try PhotoLibrary.open(at: temp.library)
        let second = try PhotoLibrary.open(at: temp.library)
        let ids = try first.createAssetsForTesting(0..<2)
        #expect(try second.currentChangeToken() == 1)
        let made = try second.performChanges([.createAlbum(title: "From second", placeholder: "$s", parentFolder: nil)])
        #expect(made.token == 2)
        let next = try first.performChanges([.addAssets(album: try #require(made.placeholders["$s"]), assets: ids)])
        #expect(next.token == 3)
        #expect(try first.persistentChanges(since: 0, limit: 10) == second.persistentChanges(since: 0, limit: 10))
        #expect(try first.currentChangeToken() == 3 && second.currentChangeToken() == 3)
    }

    @Test("pruning keeps the newest transactions; older tokens fail with persistentChangeTokenExpired; tokens are never reused")
    func pruning() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let ids = try library.createAssetsForTesting(0..<1)
        let base = Date(timeIntervalSince1970: 1_800_000_000)
        for step in 0..<5 {
            _ = try library.performChanges([.setAssetProperties(.init(asset: ids[0], isFavorite: step % 2 == 0))], now: base.addingTimeInterval(Double(step) * 100))
        }
        #expect(try library.currentChangeToken() == 6)
        #expect(try library.pruneHistory() == 0)
        // Tokens 2…6 committed at base + 0…400: "older than base+150" alone removes 1…3.
        #expect(try library.pruneHistory(olderThan: base.addingTimeInterval(150)) == 3)
        #expect(try library.persistentChanges(since: 3, limit: 10).changes.map(\.token) == [4, 5, 6])
        let expired = expectError { () throws(PhotoLibError) in _ = try library.persistentChanges(since: 2, limit: 10) }
        #expect(expired.code == .failedPrecondition && expired.reason == .persistentChangeTokenExpired)
        #expect(expectError { () throws(PhotoLibError) in _ = try library.persistentChanges(since: 0, limit: 10) }.reason == .persistentChangeTokenExpired)

        // Both rules: a transaction survives when either keeps it.
        #expect(try library.pruneHistory(keepingLast: 1, olderThan: base.addingTimeInterval(250)) == 1)
        #expect(try library.persistentChanges(since: 4, limit: 10).changes.map(\.token) == [5, 6])
        #expect(try library.pruneHistory(keepingLast: 0) == 2)
        #expect(try library.persistentChanges(since: 6, limit: 10).changes.isEmpty)
        #expect(expectError { () throws(PhotoLibError) in _ = try library.persistentChanges(since: 5, limit: 10) }.reason == .persistentChangeTokenExpired)
        // The sequence continues after pruning everything, in this and another instance.
        #expect(try library.currentChangeToken() == 6)
        try library.setHidden(true, forAssets: ids)
        #expect(try PhotoLibrary.open(at: temp.library).persistentChanges(since: 6, limit: 10).changes.map(\.token) == [7])
        #expect(expectError { () throws(PhotoLibError) in try library.pruneHistory(keepingLast: -1) }.code == .invalidArgument)
    }

    @Test("a version-1 library upgrades: its data stays, history starts at 0, the new requests work")
    func migrationFromVersion1() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        try FileManager.default.createDirectory(atPath: temp.library, withIntermediateDirectories: true)
        let album = LocalIdentifier.newAlbum()
        do {
            let database = try Database(path: temp.library + "/" + PhotoLibrary.databaseFileName)
            try database.inTransaction { () throws(PhotoLibError) in
                try database.execute(Schema.version1)
                try database.execute("PRAGMA user_version = 1")
                try database.execute("INSERT INTO meta(key, value) VALUES ('library_identifier', 'old-library'), ('created', 0)")
                try database.execute(
                    "INSERT INTO album (local_identifier, title, position, creation_date, modification_date) VALUES ('\(album)', 'Old', 0, 0, 0)")
            }
        }
        let library = try PhotoLibrary.open(at: temp.library)
        #expect(library.libraryIdentifier == "old-library")
        #expect(try library.read { (database) throws(PhotoLibError) in try database.prepare("PRAGMA user_version").firstRow { $0.int(0) } } == Schema.currentVersion)
        #expect(Schema.currentVersion == 9)
        // Version 9's columns: an edit's original size and whether the asset holds its render's.
        let columns = try library.read { (database) throws(PhotoLibError) in
            try database.prepare("SELECT name FROM pragma_table_info('asset_adjustment')").rows { $0.text(0) }
        }
        #expect(Set(columns).isSuperset(of: ["original_width", "original_height", "sized"]), "\(columns)")
        #expect(try library.currentChangeToken() == 0)
        let ids = try library.createAssetsForTesting(0..<2)
        let result = try library.performChanges([.addAssets(album: album, assets: ids), .setKeyAsset(album: album, asset: ids[1])])
        #expect(result.token == 2)
        let value = try #require(try library.assetCollection(withIdentifier: album))
        #expect(value.title == "Old" && value.estimatedAssetCount == 2 && value.keyAssetIdentifier == ids[1])
    }
}
