import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

@Suite("Albums, folders and smart albums")
struct PhotoLibraryCollectionsTests {
    @Test("assets keep the order they were added in; counts, dates and key asset follow")
    func albumOrderAndCounts() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let assets = (0..<6).map { SyntheticAsset(creationDate: Date(timeIntervalSince1970: Double(1_000 * $0))) }
        try library.insertSyntheticAssets(assets)
        let ids = assets.map(\.identifier)

        let album = try library.createAlbum(title: "Trip to Lyon")
        #expect(album.estimatedAssetCount == 0 && album.type == .album && album.subtype == .albumRegular)
        try library.addAssets([ids[4], ids[1], ids[3]], toAlbum: album.localIdentifier)
        // Re-adding keeps the first position; new ones go to the end, repeats once.
        try library.addAssets([ids[1], ids[0], ids[0]], toAlbum: album.localIdentifier)
        let inAlbum = AssetQuery(collection: album.localIdentifier)
        #expect(try library.fetchAssetIdentifiers(inAlbum) == [ids[4], ids[1], ids[3], ids[0]])
        #expect(try library.countAssets(inAlbum) == 4)
        // Sort descriptors override the album order.
        #expect(try library.fetchAssetIdentifiers(AssetQuery(collection: album.localIdentifier, sortDescriptors: [AssetSortDescriptor(key: .creationDate)])) == [ids[0], ids[1], ids[3], ids[4]])

        try library.setHidden(true, forAssets: [ids[4]])
        let value = try #require(try library.assetCollection(withIdentifier: album.localIdentifier))
        #expect(value.title == "Trip to Lyon")
        #expect(value.estimatedAssetCount == 3)
        #expect(value.keyAssetIdentifier == ids[1])
        #expect(value.startDate == Date(timeIntervalSince1970: 0))
        #expect(value.endDate == Date(timeIntervalSince1970: 3_000))
        #expect(try library.fetchAssetIdentifiers(inAlbum) == [ids[1], ids[3], ids[0]])
        #expect(try library.fetchAssetIdentifiers(AssetQuery(collection: album.localIdentifier, includeHiddenAssets: true)).count == 4)

        // Albums in folders; listing: smart albums, then top-level albums, then by folder.
        let folder = try library.createFolder(title: "Travel")
        let nested = try library.createAlbum(title: "Paris", in: folder.localIdentifier)
        #expect(nested.parentFolderIdentifier == folder.localIdentifier)
        let second = try library.createAlbum(title: "Second")
        let listed = try library.assetCollections()
        #expect(listed.prefix(SmartAlbum.all.count).allSatisfy { $0.type == .smartAlbum })
        #expect(listed.dropFirst(SmartAlbum.all.count).map(\.localIdentifier) == [album.localIdentifier, second.localIdentifier, nested.localIdentifier])
        #expect(listed.last?.parentFolderIdentifier == folder.localIdentifier)

        // Survives reopening.
        let reopened = try PhotoLibrary.open(at: temp.library)
        #expect(try reopened.fetchAssetIdentifiers(AssetQuery(collection: album.localIdentifier, includeHiddenAssets: true)) == [ids[4], ids[1], ids[3], ids[0]])
    }

    @Test("smart albums count favourites, hidden, videos, subtypes, recent additions and the trash")
    func smartAlbumCounts() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let old = Date(timeIntervalSinceNow: -40 * 24 * 3600)
        let base = Date(timeIntervalSince1970: 1_500_000_000)
        let assets = [
            SyntheticAsset(creationDate: base, addedDate: old),
            SyntheticAsset(mediaType: .video, creationDate: base + 1, addedDate: old, duration: 12),
            SyntheticAsset(mediaSubtypes: .photoScreenshot, creationDate: base + 2),
            SyntheticAsset(mediaSubtypes: [.photoPanorama, .photoHDR], creationDate: base + 3),
            SyntheticAsset(mediaSubtypes: .photoLive, creationDate: base + 4),
            SyntheticAsset(creationDate: base + 5),
            SyntheticAsset(creationDate: base + 6),
        ]
        try library.insertSyntheticAssets(assets)
        let ids = assets.map(\.identifier)
        try library.setFavorite(true, forAssets: [ids[0], ids[2], ids[5]])
        try library.setHidden(true, forAssets: [ids[5]])
        try library.executeForTesting("UPDATE asset SET trashed = 1, trashed_date = 0 WHERE local_identifier = '\(ids[6])'")

        func count(_ subtype: AssetCollectionSubtype) throws -> Int {
            try library.countAssets(AssetQuery(collection: LocalIdentifier.smartAlbum(subtype)))
        }
        #expect(try count(.smartAlbumUserLibrary) == 5)
        #expect(try count(.smartAlbumFavorites) == 2)
        #expect(try count(.smartAlbumAllHidden) == 1)
        #expect(try count(.smartAlbumVideos) == 1)
        #expect(try count(.smartAlbumScreenshots) == 1)
        #expect(try count(.smartAlbumPanoramas) == 1)
        #expect(try count(.smartAlbumLivePhotos) == 1)
        #expect(try count(.smartAlbumRecentlyAdded) == 3)
        #expect(try count(.smartAlbumRecentlyDeleted) == 1)
        #expect(try library.fetchAssetIdentifiers(AssetQuery(collection: LocalIdentifier.smartAlbum(.smartAlbumRecentlyDeleted))) == [ids[6]])
        // The trash is out of every other fetch, hidden or not.
        #expect(try !library.fetchAssetIdentifiers(AssetQuery(includeHiddenAssets: true)).contains(ids[6]))
        #expect(try library.countAssets(AssetQuery(collection: LocalIdentifier.smartAlbum(.smartAlbumFavorites), includeHiddenAssets: true)) == 3)

        let collections = try library.assetCollections()
        #expect(collections.map(\.subtype) == SmartAlbum.all.map(\.subtype))
        let allPhotos = try #require(collections.first)
        #expect(allPhotos.title == "All Photos" && allPhotos.localIdentifier == LocalIdentifier.smartAlbum(.smartAlbumUserLibrary))
        #expect(allPhotos.keyAssetIdentifier == ids[4])
        #expect(try library.assetCollection(withIdentifier: LocalIdentifier.smartAlbum(.smartAlbumFavorites))?.estimatedAssetCount == 2)

        // A trashed asset cannot be added to an album.
        let album = try library.createAlbum(title: "A")
        let trashed = thrownError { () throws(PhotoLibError) in try library.addAssets([ids[6]], toAlbum: album.localIdentifier) }
        #expect(trashed?.code == .failedPrecondition)
    }

    @Test("bad album input is refused with clear errors and changes nothing")
    func badAlbumInput() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let asset = SyntheticAsset(creationDate: Date(timeIntervalSince1970: 0))
        try library.insertSyntheticAssets([asset])

        #expect(thrownError { () throws(PhotoLibError) in _ = try library.createAlbum(title: "") }?.code == .invalidArgument)
        #expect(thrownError { () throws(PhotoLibError) in _ = try library.createAlbum(title: "   ") }?.code == .invalidArgument)
        #expect(thrownError { () throws(PhotoLibError) in _ = try library.createAlbum(title: "a\u{0}b") }?.reason == .invalidText)
        let long = thrownError { () throws(PhotoLibError) in _ = try library.createAlbum(title: String(repeating: "é", count: 256)) }
        #expect(long?.code == .invalidArgument && long?.message.contains("255") == true)
        #expect(try library.createAlbum(title: String(repeating: "é", count: 255)).title.count == 255)
        let unknownFolder = LocalIdentifier.newFolder()
        let noFolder = thrownError { () throws(PhotoLibError) in _ = try library.createAlbum(title: "x", in: unknownFolder) }
        #expect(noFolder?.code == .notFound && noFolder?.message.contains(unknownFolder) == true)

        let unknownAlbum = LocalIdentifier.newAlbum()
        let noAlbum = thrownError { () throws(PhotoLibError) in try library.addAssets([asset.identifier], toAlbum: unknownAlbum) }
        #expect(noAlbum?.code == .notFound && noAlbum?.message.contains(unknownAlbum) == true)
        #expect(thrownError { () throws(PhotoLibError) in _ = try library.fetchAssetIdentifiers(AssetQuery(collection: unknownAlbum)) }?.code == .notFound)
        #expect(try library.assetCollection(withIdentifier: unknownAlbum) == nil)

        let smart = thrownError { () throws(PhotoLibError) in try library.addAssets([asset.identifier], toAlbum: LocalIdentifier.smartAlbum(.smartAlbumFavorites)) }
        #expect(smart?.code == .invalidArgument)

        let album = try library.createAlbum(title: "Kept")
        let unknownAsset = LocalIdentifier.newAsset()
        let noAsset = thrownError { () throws(PhotoLibError) in try library.addAssets([asset.identifier, unknownAsset], toAlbum: album.localIdentifier) }
        #expect(noAsset?.code == .notFound && noAsset?.message.contains(unknownAsset) == true)
        // All or nothing: the known asset was not added either.
        #expect(try library.countAssets(AssetQuery(collection: album.localIdentifier)) == 0)
        #expect(thrownError { () throws(PhotoLibError) in try library.addAssets(["not an id"], toAlbum: album.localIdentifier) }?.code == .invalidArgument)
    }
}
