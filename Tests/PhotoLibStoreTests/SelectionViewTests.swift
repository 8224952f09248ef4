import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

@Suite("A limited client's view: the library as if it held only the selection")
struct SelectionViewTests {
    /// A library of four assets, an album of two (one selected), and a client limited to two.
    private struct Setup {
        let temp: TestDirectory
        let library: PhotoLibrary
        let view: PhotoLibrary
        let assets: [String]
        let album: String
        let client: String

        init() throws {
            temp = try TestDirectory()
            library = try PhotoLibrary.open(at: temp.library)
            assets = try library.createAssetsForTesting(0..<4)
            album = try library.createAlbum(title: "Trip").localIdentifier
            try library.addAssets([assets[2], assets[0]], toAlbum: album)
            client = try library.registerClient(name: "Frame", level: .readWrite).0.clientIdentifier
            try library.limit(client: client, to: [assets[0], assets[1]])
            view = library.limited(to: client)
        }
    }

    @Test("fetches, counts, lookups, albums and resources see the selection only")
    func reads() throws {
        let setup = try Setup()
        defer { setup.temp.cleanUp() }
        let (view, assets) = (setup.view, setup.assets)
        #expect(Set(try view.fetchAssetIdentifiers(AssetQuery())) == Set(assets.prefix(2)))
        #expect(try view.countAssets(AssetQuery()) == 2)
        #expect(try setup.library.countAssets(AssetQuery()) == 4, "the library itself is unchanged")
        #expect(try view.asset(withIdentifier: assets[2]) == nil)
        #expect(try view.assets(withIdentifiers: assets).map(\.localIdentifier) == Array(assets.prefix(2)))
        let trip = try #require(try view.assetCollection(withIdentifier: setup.album))
        #expect(trip.estimatedAssetCount == 1 && trip.keyAssetIdentifier == assets[0])
        let allPhotos = try #require(try view.assetCollections().first { $0.subtype == .smartAlbumUserLibrary })
        #expect(allPhotos.estimatedAssetCount == 2)
        #expect(try view.matchingIdentifiers(AssetQuery(), among: assets) == Set(assets.prefix(2)))
        #expect(try view.visibleIdentifiers(among: assets) == Set(assets.prefix(2)))
        // The unselected asset is as unknown as one that never existed, message included.
        let madeUp = "00000000-0000-4000-8000-000000000000/L0/001"
        func lookup(_ kind: Int, _ id: String) throws(PhotoLibError) {
            switch kind {
            case 0: _ = try view.resources(forAsset: id)
            case 1: _ = try view.originalResource(forAsset: id)
            case 2: _ = try view.contentEditingInput(forAsset: id, canHandle: [])
            default: _ = try view.fetchAssetCollectionsContaining(asset: id)
            }
        }
        for kind in 0..<4 {
            let hidden = expectError { () throws(PhotoLibError) in try lookup(kind, assets[2]) }
            let unknown = expectError { () throws(PhotoLibError) in try lookup(kind, madeUp) }
            #expect(hidden.code == .notFound && hidden.code == unknown.code)
            #expect(hidden.message.replacingOccurrences(of: assets[2], with: "ID") == unknown.message.replacingOccurrences(of: madeUp, with: "ID"))
        }
        #expect(try view.imageSourceRecords(forAsset: assets[2]).resources.isEmpty)
        #expect(!(try view.imageSourceRecords(forAsset: assets[0]).resources.isEmpty))
    }

    @Test("changes: targets outside the selection are unknown, album indexes refused, creations join the selection")
    func changes() throws {
        let setup = try Setup()
        defer { setup.temp.cleanUp() }
        let (view, assets) = (setup.view, setup.assets)
        let refused = expectError { () throws(PhotoLibError) in _ = try view.performChanges([.deleteAssets([assets[3]])]) }
        #expect(refused.code == .notFound && refused.message.contains("no asset has the identifier"))
        let wrongKind = expectError { () throws(PhotoLibError) in _ = try view.performChanges([.renameCollection(assets[3], title: "x")]) }
        #expect(wrongKind.code == .notFound, "an unselected asset is not even 'an asset' to a limited view: \(wrongKind.message)")
        #expect(expectError { () throws(PhotoLibError) in _ = try view.performChanges([.moveAssets(album: setup.album, from: [0], to: 0)]) }.code == .failedPrecondition)
        _ = try view.performChanges([.setAssetProperties(.init(asset: assets[0], isFavorite: true))])
        #expect(try setup.library.asset(withIdentifier: assets[0])?.isFavorite == true)

        let upload = try setup.library.stageUpload(try SamplePhotos.uniqueBytes(9), metadata: SamplePhotos.metadata("new.jpg"))
        let created = try view.performChanges([.createAsset(.init(uploadID: upload.uploadID, placeholder: "$new"))])
        let new = try #require(created.placeholders["$new"])
        #expect(try view.countAssets(AssetQuery()) == 3 && (try view.asset(withIdentifier: new)) != nil)
    }

    @Test("history lists the selection's assets only; selection edits report what changed; revoking clears it")
    func historyAndEdits() throws {
        let setup = try Setup()
        defer { setup.temp.cleanUp() }
        let (view, assets, library) = (setup.view, setup.assets, setup.library)
        _ = try library.performChanges([.setAssetProperties(.init(asset: assets[3], isFavorite: true))])
        let page = try view.persistentChanges(since: 0, limit: 1000)
        let named = Set(page.changes.flatMap { $0.objects.filter { $0.objectType == .asset }.map(\.identifier) })
        #expect(named == Set(assets.prefix(2)))
        #expect(page.changes.count == (try library.persistentChanges(since: 0, limit: 1000)).changes.count, "every token is kept, so paging goes on")

        let edit = try library.editSelection(client: setup.client, adding: [assets[3], assets[0]], removing: [assets[1]])
        #expect(edit.added == [assets[3]] && edit.removed == [assets[1]])
        #expect(edit.client.selectedAssetCount == 2)
        let grown = try library.editSelection(client: setup.client, adding: [assets[2]], removing: [])
        #expect(grown.client.selectedAssetCount == 3, "the record an edit returns counts the edited selection (the server keeps it)")
        let shrunk = try library.editSelection(client: setup.client, adding: [], removing: [assets[2]])
        #expect(shrunk.client.selectedAssetCount == 2)
        #expect(Set(try library.selection(of: setup.client)) == [assets[0], assets[3]])
        #expect(try library.client(withIdentifier: setup.client)?.selectedAssetCount == 2)
        #expect(expectError { () throws(PhotoLibError) in _ = try library.editSelection(client: setup.client, adding: ["00000000-0000-4000-8000-000000000000/L0/001"], removing: []) }.code == .notFound)
        let replaced = try library.limit(client: setup.client, to: [assets[2]])
        #expect(replaced.added == [assets[2]] && Set(replaced.removed) == [assets[0], assets[3]])

        let other = try library.registerClient(name: "Phone", level: .readWrite).0.clientIdentifier
        #expect(expectError { () throws(PhotoLibError) in _ = try library.editSelection(client: other, adding: [assets[0]], removing: []) }.code == .failedPrecondition)
        try library.revoke(client: setup.client)
        #expect(try library.selection(of: setup.client).isEmpty)
    }
}
