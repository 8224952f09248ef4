import Foundation
import PhotoLibCore
import Testing
@testable import PhotoLibStore
import PhotoLibTestSupport

@Suite("performChanges: change requests in one transaction")
struct ChangeRequestTests {
    @Test("placeholders: a folder, an album in it and a new asset added to the album, in one batch")
    func placeholders() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let upload = try library.stageUpload(try SamplePhotos.uniqueBytes(0), metadata: SamplePhotos.metadata())
        let tokenBefore = try library.currentChangeToken()
        let result = try library.performChanges([
            .createFolder(title: "Travel", placeholder: "$travel", parentFolder: nil),
            .createAlbum(title: "Lyon", placeholder: "$lyon", parentFolder: "$travel"),
            .createAsset(.init(uploadID: upload.uploadID, placeholder: "$photo", isFavorite: true)),
            .addAssets(album: "$lyon", assets: ["$photo"]),
            .setKeyAsset(album: "$lyon", asset: "$photo"),
        ])
        let folder = try #require(result.placeholders["$travel"])
        let album = try #require(result.placeholders["$lyon"])
        let photo = try #require(result.placeholders["$photo"])
        #expect(folder.hasSuffix(LocalIdentifier.folderSuffix) && album.hasSuffix(LocalIdentifier.collectionSuffix))
        #expect(photo.hasSuffix(LocalIdentifier.assetSuffix))
        #expect(result.token == tokenBefore + 1)
        // Inserted objects stay inserted however often the batch touched them afterwards.
        #expect(result.changes == [
            ObjectChange(objectType: .collectionList, identifier: folder, kind: .inserted),
            ObjectChange(objectType: .assetCollection, identifier: album, kind: .inserted),
            ObjectChange(objectType: .asset, identifier: photo, kind: .inserted),
        ])
        #expect(try library.fetchAssetIdentifiers(AssetQuery(collection: album)) == [photo])
        let value = try #require(try library.assetCollection(withIdentifier: album))
        #expect(value.parentFolderIdentifier == folder && value.title == "Lyon" && value.keyAssetIdentifier == photo)
        #expect(try library.collectionLists() == [CollectionList(localIdentifier: folder, title: "Travel", childCount: 1)])
        let asset = try #require(try library.asset(withIdentifier: photo))
        #expect(asset.isFavorite && !asset.isHidden)
        #expect(asset.creationDate == SamplePhotos.metadata().creationDate && asset.location == SamplePhotos.metadata().location)
        #expect(try library.fetchAssetCollectionsContaining(asset: photo).map(\.localIdentifier) == [album])
        #expect(try library.originalResource(forAsset: photo).sha256 == upload.sha256)
        // The upload was consumed: its row and file are gone.
        #expect(try library.stagedUpload(withID: upload.uploadID) == nil)
        #expect(regularFiles(under: temp.library + "/uploads").isEmpty)
    }

    @Test("placeholder misuse: declared twice, used before its declaration, malformed")
    func placeholderMisuse() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let twice = expectError { () throws(PhotoLibError) in
            _ = try library.performChanges([
                .createAlbum(title: "A", placeholder: "$x", parentFolder: nil),
                .createFolder(title: "B", placeholder: "$x", parentFolder: nil),
            ])
        }
        #expect(twice.code == .invalidArgument && twice.failedRequestIndex == 1 && twice.message.contains("declared twice"))
        let early = expectError { () throws(PhotoLibError) in
            _ = try library.performChanges([
                .createAlbum(title: "A", placeholder: nil, parentFolder: "$later"),
                .createFolder(title: "B", placeholder: "$later", parentFolder: nil),
            ])
        }
        #expect(early.code == .invalidArgument && early.failedRequestIndex == 0 && early.message.hasPrefix("request 0 (createAlbum): placeholder $later"))
        let malformed = expectError { () throws(PhotoLibError) in
            _ = try library.performChanges([.createAlbum(title: "A", placeholder: "x", parentFolder: nil)])
        }
        #expect(malformed.code == .invalidArgument)
        #expect(try library.assetCollections().count == SmartAlbum.all.count)
        #expect(try library.currentChangeToken() == 0)
    }

    /// The state a failed batch must leave untouched: every table and every file.
    struct Snapshot: Equatable {
        var tables: [String: [String]]
        var originals: [String]
        var uploads: [String]
        var temporary: [String]

        init(_ library: PhotoLibrary, _ directory: String) throws {
            tables = try library.dumpForTesting()
            originals = regularFiles(under: directory + "/originals")
            uploads = regularFiles(under: directory + "/uploads")
            temporary = regularFiles(under: directory + "/tmp")
        }
    }

    @Test("a failing request, last or in the middle, leaves the database and the files exactly as before", arguments: [false, true])
    func allOrNothing(failInTheMiddle: Bool) throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let assets = try library.createAssetsForTesting(0..<3)
        let album = try library.createAlbum(title: "Kept").localIdentifier
        try library.addAssets(assets, toAlbum: album)
        _ = try library.performChanges([.deleteAssets([assets[2]])])
        let upload = try library.stageUpload(try SamplePhotos.uniqueBytes(10), metadata: SamplePhotos.metadata())
        let before = try Snapshot(library, temp.library)
        #expect(before.uploads.count == 1 && before.originals.count == 3)

        let unknown = LocalIdentifier.newAsset()
        var requests: [ChangeRequest] = [
            .createAsset(.init(uploadID: upload.uploadID, placeholder: "$new")),
            .createAlbum(title: "New", placeholder: "$album", parentFolder: nil),
            .addAssets(album: "$album", assets: ["$new", assets[0]]),
            .insertAssets(album: album, assets: ["$new"], at: 1),
            .moveAssets(album: album, from: [0], to: 2),
            .removeAssets(album: album, assets: [assets[1]]),
            .setAssetProperties(.init(asset: assets[0], isFavorite: true, location: .clear)),
            .restoreAssets([assets[2]]),
            .purgeAssets([assets[1]]),
            .renameCollection(album, title: "Renamed"),
            .createFolder(title: "F", placeholder: "$folder", parentFolder: nil),
            .moveCollections([album], toFolder: "$folder"),
        ]
        let failing: Int
        if failInTheMiddle {
            failing = 5
            requests.insert(.moveAssets(album: album, from: [0, 0], to: 0), at: failing)
        } else {
            failing = requests.count
            requests.append(.addAssets(album: album, assets: [assets[0], unknown]))
        }
        let error = expectError { () throws(PhotoLibError) in _ = try library.performChanges(requests) }
        #expect(error.failedRequestIndex == failing)
        if failInTheMiddle {
            #expect(error.code == .invalidArgument && error.message.hasPrefix("request 5 (moveAssets): index 0 is listed twice"))
        } else {
            #expect(error.code == .notFound)
            #expect(error.message == "request \(failing) (addAssets): no asset has the identifier \(unknown)")
            #expect(error.reason == .changeRequestFailed)
        }
        #expect(try Snapshot(library, temp.library) == before)

        // Without the failing request the same batch commits, and every file change shows.
        if failInTheMiddle { requests.remove(at: failing) } else { requests.removeLast() }
        let result = try library.performChanges(requests)
        let after = try Snapshot(library, temp.library)
        #expect(after != before)
        #expect(after.uploads.isEmpty && after.originals.count == 3)  // one new, one purged
        #expect(result.removedFiles.count == 1 && result.fileRemovalFailures.isEmpty)
        let newAsset = try #require(result.placeholders["$new"])
        // moveAssets(to: count) appends after every member, the trashed one included, so the
        // restored asset comes back before the moved one.
        #expect(try library.fetchAssetIdentifiers(AssetQuery(collection: album)) == [newAsset, assets[2], assets[0]])
    }

    @Test("wrong kinds, unknown identifiers, trashed assets and bad values are refused with the right codes")
    func validation() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let assets = try library.createAssetsForTesting(0..<2)
        let album = try library.createAlbum(title: "A").localIdentifier
        let folder = try library.createFolder(title: "F").localIdentifier
        _ = try library.performChanges([.deleteAssets([assets[1]])])
        let favorites = LocalIdentifier.smartAlbum(.smartAlbumFavorites)

        func code(_ requests: [ChangeRequest]) -> StatusCode {
            expectError { () throws(PhotoLibError) in _ = try library.performChanges(requests) }.code
        }
        #expect(code([.addAssets(album: album, assets: [album])]) == .invalidArgument)
        #expect(code([.addAssets(album: assets[0], assets: [assets[0]])]) == .invalidArgument)
        #expect(code([.addAssets(album: favorites, assets: [assets[0]])]) == .invalidArgument)
        #expect(code([.addAssets(album: folder, assets: [assets[0]])]) == .invalidArgument)
        #expect(code([.addAssets(album: LocalIdentifier.newAlbum(), assets: [assets[0]])]) == .notFound)
        #expect(code([.addAssets(album: album, assets: ["not an identifier"])]) == .invalidArgument)
        #expect(code([.addAssets(album: album, assets: [assets[1]])]) == .failedPrecondition)
        #expect(code([.insertAssets(album: album, assets: [assets[1]], at: 0)]) == .failedPrecondition)
        #expect(code([.insertAssets(album: album, assets: [assets[0]], at: 1)]) == .invalidArgument)
        #expect(code([.setAssetProperties(.init(asset: assets[1], isFavorite: true))]) == .failedPrecondition)
        #expect(code([.setAssetProperties(.init(asset: assets[0], location: .set(Location(latitude: 91, longitude: 0))))]) == .invalidArgument)
        #expect(code([.setAssetProperties(.init(asset: assets[0], creationDate: Date(timeIntervalSince1970: 1e15)))]) == .invalidArgument)
        #expect(code([.renameCollection(favorites, title: "Mine")]) == .invalidArgument)
        #expect(code([.renameCollection(album, title: String(repeating: "x", count: 256))]) == .invalidArgument)
        #expect(code([.deleteCollections([favorites])]) == .invalidArgument)
        #expect(code([.deleteAssets([album])]) == .invalidArgument)
        #expect(code([.purgeAssets([LocalIdentifier.newAsset()])]) == .notFound)
        #expect(code([.createAlbum(title: "x", placeholder: nil, parentFolder: album)]) == .invalidArgument)
        #expect(code([.moveCollections([folder], toFolder: folder)]) == .invalidArgument)
        #expect(code([.setKeyAsset(album: album, asset: assets[0])]) == .invalidArgument)
        #expect(code([.createAsset(.init(uploadID: UUID().uuidString.lowercased()))]) == .notFound)
        #expect(code(Array(repeating: .deleteAssets([assets[0]]), count: ChangeLimits.maxRequests + 1)) == .resourceExhausted)
        let tooMany = expectError { () throws(PhotoLibError) in
            _ = try library.performChanges([.restoreAssets([]), .deleteAssets(Array(repeating: assets[0], count: ChangeLimits.maxIdentifiersPerRequest + 1))])
        }
        #expect(tooMany.code == .resourceExhausted && tooMany.failedRequestIndex == 1)
        // Nothing above committed.
        #expect(try library.fetchAssetIdentifiers(AssetQuery(collection: album)).isEmpty)
        #expect(try library.asset(withIdentifier: assets[0])?.isFavorite == false)
    }

    @Test("setAssetProperties changes what it names, bumps the modification date, and no-ops record nothing")
    func assetProperties() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let id = try library.createAssetsForTesting(0..<1)[0]
        let original = try #require(try library.asset(withIdentifier: id))
        let later = original.modificationDate.addingTimeInterval(60)
        let date = Date(timeIntervalSince1970: 1_234_567_890)
        let place = Location(latitude: -33.8688, longitude: 151.2093, altitude: nil)
        let result = try library.performChanges(
            [.setAssetProperties(.init(asset: id, isFavorite: true, isHidden: true, creationDate: date, location: .set(place)))], now: later)
        #expect(result.changes == [ObjectChange(objectType: .asset, identifier: id, kind: .updated)])
        var asset = try #require(try library.asset(withIdentifier: id))
        #expect(asset.isFavorite && asset.isHidden && asset.creationDate == date && asset.location == place)
        #expect(asset.modificationDate == later)

        let token = try library.currentChangeToken()
        let same = try library.performChanges([.setAssetProperties(.init(asset: id, isFavorite: true))], now: later.addingTimeInterval(60))
        #expect(same.changes.isEmpty && same.token == token)
        #expect(try library.currentChangeToken() == token)

        _ = try library.performChanges([.setAssetProperties(.init(asset: id, isHidden: false, location: .clear))])
        asset = try #require(try library.asset(withIdentifier: id))
        #expect(asset.location == nil && !asset.isHidden && asset.isFavorite && asset.creationDate == date)

        // The legacy wrappers go through the same path and log.
        try library.setFavorite(false, forAssets: [id])
        #expect(try library.asset(withIdentifier: id)?.isFavorite == false)
        #expect(try library.currentChangeToken() == token + 2)
    }

    @Test("album order follows an in-memory model across a seeded random sequence of insert, move, remove and add")
    func albumOrderModel() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let pool = (0..<24).map { SyntheticAsset(creationDate: Date(timeIntervalSince1970: Double($0))) }
        try library.insertSyntheticAssets(pool)
        let ids = pool.map(\.identifier)
        let album = try library.createAlbum(title: "Ordered").localIdentifier
        var model: [String] = []
        var random = SplitMix64(seed: 0x5EED)

        for step in 0..<300 {
            let outside = ids.filter { !model.contains($0) }
            let request: ChangeRequest
            switch random.next() % 4 {
            case 0 where !outside.isEmpty:
                let picked = Array(outside.shuffled(using: &random).prefix(Int(random.next() % 3) + 1))
                let index = Int(random.next() % UInt64(model.count + 1))
                request = .insertAssets(album: album, assets: picked, at: index)
                model.insert(contentsOf: picked, at: index)
            case 1 where !model.isEmpty:
                let count = Int(random.next() % UInt64(min(model.count, 4))) + 1
                let from = Array((0..<model.count).shuffled(using: &random).prefix(count))
                let to = Int(random.next() % UInt64(model.count - count + 1))
                request = .moveAssets(album: album, from: from, to: to)
                let moving = from.sorted().map { model[$0] }
                model = model.enumerated().filter { !from.contains($0.offset) }.map(\.element)
                model.insert(contentsOf: moving, at: to)
            case 2 where !model.isEmpty:
                let removed = Array(model.shuffled(using: &random).prefix(Int(random.next() % 3) + 1))
                request = .removeAssets(album: album, assets: removed)
                model.removeAll { removed.contains($0) }
            default:
                let picked = Array(ids.shuffled(using: &random).prefix(Int(random.next() % 4) + 1))
                request = .addAssets(album: album, assets: picked)
                for id in picked where !model.contains(id) { model.append(id) }
            }
            _ = try library.performChanges([request])
            #expect(try library.fetchAssetIdentifiers(AssetQuery(collection: album)) == model, "step \(step): \(request)")
            // Positions stay dense: 0…n−1.
            let positions = try library.read { (database) throws(PhotoLibError) in
                try database.prepare("SELECT position FROM album_asset ORDER BY position").rows { $0.int(0) }
            }
            #expect(positions == Array(0..<model.count), "step \(step)")
        }
    }

    @Test("indexes count visible assets: hidden members keep their place around an insertion")
    func indexesSkipHiddenAssets() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let pool = (0..<4).map { SyntheticAsset(creationDate: Date(timeIntervalSince1970: Double($0))) }
        try library.insertSyntheticAssets(pool)
        let ids = pool.map(\.identifier)
        let album = try library.createAlbum(title: "A").localIdentifier
        try library.addAssets([ids[0], ids[1], ids[2]], toAlbum: album)
        try library.setHidden(true, forAssets: [ids[1]])
        // Visible: [0, 2]; index 1 is before asset 2.
        _ = try library.performChanges([.insertAssets(album: album, assets: [ids[3]], at: 1)])
        #expect(try library.fetchAssetIdentifiers(AssetQuery(collection: album)) == [ids[0], ids[3], ids[2]])
        #expect(try library.fetchAssetIdentifiers(AssetQuery(collection: album, includeHiddenAssets: true)) == [ids[0], ids[1], ids[3], ids[2]])
        let outOfRange = expectError { () throws(PhotoLibError) in _ = try library.performChanges([.moveAssets(album: album, from: [3], to: 0)]) }
        #expect(outOfRange.code == .invalidArgument)
    }

    @Test("key assets, renames, folder moves without cycles, and deleting a folder keeps its children")
    func collectionsEditing() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let ids = try library.createAssetsForTesting(0..<3)
        let setup = try library.performChanges([
            .createFolder(title: "Top", placeholder: "$top", parentFolder: nil),
            .createFolder(title: "Mid", placeholder: "$mid", parentFolder: "$top"),
            .createFolder(title: "Low", placeholder: "$low", parentFolder: "$mid"),
            .createAlbum(title: "Pics", placeholder: "$pics", parentFolder: "$mid"),
            .addAssets(album: "$pics", assets: ids),
        ])
        let top = try #require(setup.placeholders["$top"]), mid = try #require(setup.placeholders["$mid"])
        let low = try #require(setup.placeholders["$low"]), pics = try #require(setup.placeholders["$pics"])

        // Key asset: chosen, then reset to the first asset; removing it resets it too.
        _ = try library.performChanges([.setKeyAsset(album: pics, asset: ids[2])])
        #expect(try library.assetCollection(withIdentifier: pics)?.keyAssetIdentifier == ids[2])
        _ = try library.performChanges([.setKeyAsset(album: pics, asset: nil)])
        #expect(try library.assetCollection(withIdentifier: pics)?.keyAssetIdentifier == ids[0])
        _ = try library.performChanges([.setKeyAsset(album: pics, asset: ids[1]), .removeAssets(album: pics, assets: [ids[1]])])
        #expect(try library.assetCollection(withIdentifier: pics)?.keyAssetIdentifier == ids[0])

        // A folder cannot move into itself or below itself.
        for destination in [top, mid, low] {
            let cycle = expectError { () throws(PhotoLibError) in _ = try library.performChanges([.moveCollections([top], toFolder: destination)]) }
            #expect(cycle.code == .invalidArgument && cycle.failedRequestIndex == 0)
        }
        let moved = try library.performChanges([.moveCollections([low], toFolder: nil), .renameCollection(low, title: "Lower")])
        #expect(Set(moved.changes) == [
            ObjectChange(objectType: .collectionList, identifier: low, kind: .updated),
            ObjectChange(objectType: .collectionList, identifier: mid, kind: .updated),
        ])
        #expect(try library.collectionList(withIdentifier: low) == CollectionList(localIdentifier: low, title: "Lower", childCount: 0))

        // Deleting Mid moves Pics up to Top; the album keeps its assets, and they stay in the library.
        let deleted = try library.performChanges([.deleteCollections([mid])])
        #expect(try library.assetCollection(withIdentifier: pics)?.parentFolderIdentifier == top)
        #expect(try library.fetchAssetIdentifiers(AssetQuery(collection: pics)) == [ids[0], ids[2]])
        #expect(Set(deleted.changes) == [
            ObjectChange(objectType: .collectionList, identifier: mid, kind: .deleted),
            ObjectChange(objectType: .assetCollection, identifier: pics, kind: .updated),
            ObjectChange(objectType: .collectionList, identifier: top, kind: .updated),
        ])
        #expect(try library.collectionLists().map(\.localIdentifier) == [top, low])
        // Deleting the album removes memberships only.
        _ = try library.performChanges([.deleteCollections([pics])])
        #expect(try library.assetCollection(withIdentifier: pics) == nil)
        #expect(try library.assets(withIdentifiers: ids).count == 3)
        #expect(try library.collectionList(withIdentifier: top)?.childCount == 0)
    }
}

