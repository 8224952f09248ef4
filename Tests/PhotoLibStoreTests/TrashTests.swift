import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

@Suite("Recently Deleted: trash, restore, purge, retention")
struct TrashTests {
    @Test("trash keeps album membership and order, restore brings the asset back in place, purge removes rows then files")
    func trashRestorePurge() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let ids = try library.createAssetsForTesting(0..<3)
        let album = try library.createAlbum(title: "Album").localIdentifier
        try library.addAssets(ids, toAlbum: album)
        let trashedAt = Date(timeIntervalSince1970: 1_800_000_000)
        let recentlyDeleted = AssetQuery(collection: LocalIdentifier.smartAlbum(.smartAlbumRecentlyDeleted))

        let trashed = try library.performChanges([.deleteAssets([ids[1]])], now: trashedAt)
        #expect(trashed.changes == [
            ObjectChange(objectType: .asset, identifier: ids[1], kind: .updated),
            ObjectChange(objectType: .assetCollection, identifier: album, kind: .updated),
        ])
        #expect(try library.fetchAssetIdentifiers(AssetQuery(collection: album)) == [ids[0], ids[2]])
        #expect(try library.fetchAssetIdentifiers(recentlyDeleted) == [ids[1]])
        #expect(try library.fetchAssetIdentifiers(AssetQuery()) == [ids[0], ids[2]])
        #expect(try library.fetchAssetCollectionsContaining(asset: ids[1]).map(\.localIdentifier) == [album])
        #expect(try library.asset(withIdentifier: ids[1])?.modificationDate == trashedAt)
        #expect(try library.asset(withIdentifier: ids[1])?.trashedDate == trashedAt, "a trashed asset carries its trash date")
        #expect(try library.asset(withIdentifier: ids[0])?.trashedDate == nil)
        // Trashing again changes nothing.
        #expect(try library.performChanges([.deleteAssets([ids[1]])]).changes.isEmpty)

        _ = try library.performChanges([.restoreAssets([ids[1]])])
        #expect(try library.asset(withIdentifier: ids[1])?.trashedDate == nil, "restoring clears it")
        #expect(try library.fetchAssetIdentifiers(AssetQuery(collection: album)) == ids)
        #expect(try library.fetchAssetIdentifiers(recentlyDeleted).isEmpty)

        // Purge: the file stays while the transaction is open (a failing batch keeps it)…
        let path = try library.originalFilePath(forAsset: ids[1])
        let failed = expectError { () throws(PhotoLibError) in
            _ = try library.performChanges([.deleteAssets([ids[1]]), .purgeAssets([ids[1]]), .purgeAssets([LocalIdentifier.newAsset()])])
        }
        #expect(failed.failedRequestIndex == 2)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try library.fetchAssetIdentifiers(AssetQuery(collection: album)) == ids)
        // …and goes after the commit. Purging works on trashed and untrashed assets alike.
        _ = try library.performChanges([.deleteAssets([ids[1]])])
        let purged = try library.performChanges([.purgeAssets([ids[1], ids[0]])])
        #expect(purged.removedFiles.count == 2 && purged.removedFiles.contains(path) && purged.fileRemovalFailures.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(regularFiles(under: temp.library + "/originals").count == 1)
        #expect(purged.changes == [
            ObjectChange(objectType: .asset, identifier: ids[1], kind: .deleted),
            ObjectChange(objectType: .assetCollection, identifier: album, kind: .updated),
            ObjectChange(objectType: .asset, identifier: ids[0], kind: .deleted),
        ])
        #expect(try library.asset(withIdentifier: ids[1]) == nil)
        #expect(try library.fetchAssetIdentifiers(AssetQuery(collection: album)) == [ids[2]])
        #expect(try library.dumpForTesting()["album_asset"]?.count == 1)
        #expect(try library.assetCollection(withIdentifier: album)?.estimatedAssetCount == 1)
        // A purged asset's bytes can be imported again as a new asset.
        let again = try library.addPhoto(try SamplePhotos.uniqueBytes(1), metadata: SamplePhotos.metadata())
        guard case .added(let asset) = again else {
            Issue.record("expected a new asset, got \(again)")
            return
        }
        #expect(asset.localIdentifier != ids[1])
    }

    @Test("purgeExpiredTrash removes assets trashed longer than the retention, in one logged transaction")
    func retention() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let ids = try library.createAssetsForTesting(0..<3)
        let day: TimeInterval = 24 * 3600
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        _ = try library.performChanges([.deleteAssets([ids[0]])], now: start)
        _ = try library.performChanges([.deleteAssets([ids[1]])], now: start.addingTimeInterval(10 * day))

        #expect(try library.purgeExpiredTrash(now: start.addingTimeInterval(29 * day)) == nil)
        let token = try library.currentChangeToken()
        let result = try #require(try library.purgeExpiredTrash(now: start.addingTimeInterval(35 * day)))
        #expect(result.changes == [ObjectChange(objectType: .asset, identifier: ids[0], kind: .deleted)])
        #expect(result.token == token + 1 && result.removedFiles.count == 1)
        let entry = try library.persistentChanges(since: token, limit: 10).changes
        #expect(entry.map(\.author) == ["trash-purge"] && entry.first?.committedAt == start.addingTimeInterval(35 * day))
        #expect(try library.asset(withIdentifier: ids[0]) == nil)
        #expect(try library.asset(withIdentifier: ids[1]) != nil)

        let later = try #require(try library.purgeExpiredTrash(olderThan: day, now: start.addingTimeInterval(12 * day)))
        #expect(later.changes.map(\.identifier) == [ids[1]])
        #expect(try library.fetchAssetIdentifiers(AssetQuery()) == [ids[2]])
        #expect(regularFiles(under: temp.library + "/originals").count == 1)
        #expect(try library.purgeExpiredTrash(now: start.addingTimeInterval(1000 * day)) == nil)
    }
}
