import Foundation
import PhotoLibClient
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// A limited client sees a different library: only its selection, in every answer, and an
/// asset outside it is exactly as unknown as one that never existed. Selection changes reach
/// its subscriptions as exact incremental details.
final class LimitedLibraryTests: XCTestCase {
    private var server: InProcessServer!
    private var owner: PhotoLibrary!
    /// The limited client's connection.
    private var limited: PhotoLibrary!
    private var clientIdentifier = ""
    private var token = ""
    /// Four assets: the client is given the first two.
    private var assets: [String] = []
    private var selected: [String] { Array(assets.prefix(2)) }
    private var hidden: String { assets[2] }
    private var album = ""
    /// An identifier no asset ever had (same shape as a real one).
    private let madeUp = "00000000-0000-4000-8000-000000000000/L0/001"

    override func setUp() async throws {
        server = try InProcessServer(photos: [Fixtures.landscape])
        owner = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        assets = [server.assets[0]]
        for index in 1...3 {
            let upload = try await owner.upload(try Fixtures.uniqueJPEG(index), filename: "p\(index).jpg")
            var placeholder: ObjectPlaceholder?
            let result = try await owner.performChanges { batch in placeholder = batch.createAsset(from: upload) }
            assets.append(try XCTUnwrap(placeholder.flatMap(result.localIdentifier(for:))))
        }
        // An album holding one selected and one unselected asset, the unselected one its cover.
        var albumPlaceholder: ObjectPlaceholder?
        let created = try await owner.performChanges { batch in
            albumPlaceholder = batch.createAlbum(title: "Trip")
        }
        album = try XCTUnwrap(albumPlaceholder.flatMap(created.localIdentifier(for:)))
        _ = try await owner.performChanges([.addAssets(album: album, assets: [assets[2], assets[0]]), .setKeyAsset(album: album, asset: assets[2])])

        let anonymous = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: "")
        let state = try await anonymous.call(
            PhotoLibraryMethods.requestAuthorization, Wire.AuthorizationRequest(accessLevel: .readWrite, clientName: "Frame"))
        anonymous.close()
        clientIdentifier = state.clientIdentifier
        token = state.clientToken
        try await owner.limit(client: clientIdentifier, to: selected)
        limited = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: token)
    }

    override func tearDown() async throws {
        limited?.close()
        owner?.close()
        await server?.tearDown()
    }

    /// The error of `body`, which must fail.
    private func failure(_ body: () async throws -> Void, file: StaticString = #filePath, line: UInt = #line) async -> PhotoLibError? {
        do {
            try await body()
            XCTFail("expected an error", file: file, line: line)
            return nil
        } catch let error as PhotoLibError {
            return error
        } catch {
            XCTFail("unexpected \(error)", file: file, line: line)
            return nil
        }
    }

    /// `body` fails the same way (code and message, the identifier replaced) for the
    /// unselected asset and for a made-up identifier.
    private func sameAsUnknown(_ what: String, _ body: (String) async throws -> Void, file: StaticString = #filePath, line: UInt = #line) async {
        let real = await failure({ try await body(hidden) }, file: file, line: line)
        let fake = await failure({ try await body(madeUp) }, file: file, line: line)
        XCTAssertEqual(real?.code, .notFound, "\(what): \(real?.message ?? "")", file: file, line: line)
        XCTAssertEqual(real?.code, fake?.code, what, file: file, line: line)
        XCTAssertEqual(
            real?.message.replacingOccurrences(of: hidden, with: "ID"), fake?.message.replacingOccurrences(of: madeUp, with: "ID"), what,
            file: file, line: line)
    }

    func testEveryReadSeesOnlyTheSelection() async throws {
        let value1 = try await limited.authorizationStatus(for: .readWrite)
        XCTAssertEqual(value1, .limited)
        let all = try await limited.fetchAssets()
        XCTAssertEqual(all.count, 2)
        let value2 = Set(try await all.allObjects().map(\.localIdentifier))
        XCTAssertEqual(value2, Set(selected))
        let value3 = try await all.index(of: hidden)
        XCTAssertNil(value3)
        let value4 = try await all.contains(hidden)
        XCTAssertFalse(value4)
        let value5 = try await limited.fetchAssets(withLocalIdentifiers: assets).count
        XCTAssertEqual(value5, 2, "lookups by identifier skip the others")
        let info = try await limited.call(PhotoLibraryMethods.getLibraryInfo, Wire.Empty())
        XCTAssertEqual(info.assetCount, 2)

        // Smart albums and user albums count the selection; the album's cover is a selected asset.
        let collections = try await limited.fetchAssetCollections().allObjects()
        let allPhotos = try XCTUnwrap(collections.first { $0.subtype == .smartAlbumUserLibrary })
        XCTAssertEqual(allPhotos.estimatedAssetCount, 2)
        XCTAssertTrue(selected.contains(allPhotos.keyAssetIdentifier ?? ""))
        let trip = try XCTUnwrap(collections.first { $0.localIdentifier == album }, "albums themselves are visible")
        XCTAssertEqual(trip.estimatedAssetCount, 1)
        XCTAssertEqual(trip.keyAssetIdentifier, assets[0])
        let value6 = try await limited.fetchAssets(in: album).allObjects().map(\.localIdentifier)
        XCTAssertEqual(value6, [assets[0]])

        // Every lookup of the unselected asset answers like an unknown one.
        let resources = AssetResourceManager(library: limited)
        await sameAsUnknown("image") { id in
            _ = try await self.limited.imageManager.image(
                forAssetIdentifier: id, targetSize: PixelSize(width: 64, height: 64), options: ImageRequestOptions(deliveryMode: .highQualityFormat))
        }
        await sameAsUnknown("resources") { id in _ = try await resources.assetResources(for: id) }
        await sameAsUnknown("resource data") { id in
            for try await _ in try await resources.requestData(for: id, type: .photo) {}
        }
        await sameAsUnknown("editing input") { id in _ = try await self.limited.requestContentEditingInput(for: id, canHandle: []) }
        await sameAsUnknown("albums containing") { id in _ = try await self.limited.fetchAssetCollectionsContaining(id) }
        // The selected ones work.
        let image = try await limited.imageManager.image(
            forAssetIdentifier: selected[1], targetSize: PixelSize(width: 64, height: 64), options: ImageRequestOptions(deliveryMode: .highQualityFormat))
        XCTAssertFalse(image.data.isEmpty)
        let value7 = try await resources.assetResources(for: selected[0]).isEmpty
        XCTAssertFalse(value7)

        // History holds only the selection's assets.
        let history = try await limited.fetchPersistentChanges(since: nil)
        let named = Set(history.changes.flatMap { change in change.objects.filter { $0.objectType == .asset }.map(\.identifier) })
        XCTAssertTrue(named.isSubset(of: Set(selected)), "history names \(named.subtracting(selected))")
        XCTAssertFalse(named.isEmpty)
    }

    func testEveryChangeRequestKindTreatsTheUnselectedAssetAsUnknown() async throws {
        let requests: [(String, (String) -> ChangeRequest)] = [
            ("deleteAssets", { .deleteAssets([$0]) }),
            ("restoreAssets", { .restoreAssets([$0]) }),
            ("purgeAssets", { .purgeAssets([$0]) }),
            ("setAssetProperties", { .setAssetProperties(.init(asset: $0, isFavorite: true)) }),
            ("addAssets", { [album] in .addAssets(album: album, assets: [$0]) }),
            ("removeAssets", { [album] in .removeAssets(album: album, assets: [$0]) }),
            ("setKeyAsset", { [album] in .setKeyAsset(album: album, asset: $0) }),
            ("revertAssetContent", { .revertAssetContent($0) }),
        ]
        for (name, request) in requests {
            await sameAsUnknown(name) { id in _ = try await self.limited.performChanges([request(id)]) }
        }
        // Album indexes count assets the client cannot see: refused, by identifier instead.
        let byIndex = await failure { _ = try await self.limited.performChanges([.moveAssets(album: self.album, from: [0], to: 0)]) }
        XCTAssertEqual(byIndex?.code, .failedPrecondition)
        // Nothing of that reached the unselected asset.
        let untouched = try await owner.fetchAssets(withLocalIdentifiers: [hidden]).allObjects()
        XCTAssertEqual(untouched.first?.isFavorite, false)
        XCTAssertNil(untouched.first?.trashedDate)
        // Changes to selected assets work.
        _ = try await limited.performChanges([.setAssetProperties(.init(asset: selected[0], isFavorite: true))])
        let value8 = try await owner.fetchAssets(withLocalIdentifiers: [selected[0]]).firstObject?.isFavorite
        XCTAssertEqual(value8, true)
    }

    /// The owner's album holding an asset outside the selection is not the client's to
    /// rename, delete or move (it could before); an album of its own assets is.
    func testAnAlbumHoldingUnselectedAssetsIsNotTheClientsToRenameDeleteOrMove() async throws {
        for request in [ChangeRequest.renameCollection(album, title: "Mine now"), .deleteCollections([album]), .moveCollections([album], toFolder: nil)] {
            do {
                _ = try await limited.performChanges([request])
                XCTFail("\(request.name) of the owner's album succeeded")
            } catch let error as PhotoLibError {
                XCTAssertEqual(error.code, .failedPrecondition, "\(request.name): \(error)")
                XCTAssertTrue(error.message.contains("holds assets outside this client's selection"), error.message)
            }
        }
        let title = try await owner.fetchAssetCollections(withLocalIdentifiers: [album]).firstObject?.title
        XCTAssertEqual(title, "Trip", "the album is untouched")
        // An album of its own selected assets: its to rename and delete.
        var placeholder: ObjectPlaceholder?
        let created = try await limited.performChanges { batch in
            placeholder = batch.createAlbum(title: "Picks")
            batch.addAssets([self.selected[0]], to: placeholder!.localIdentifier)
        }
        let own = try XCTUnwrap(placeholder.flatMap(created.localIdentifier(for:)))
        _ = try await limited.performChanges([.renameCollection(own, title: "Best picks"), .deleteCollections([own])])
    }

    func testAnUploadJoinsTheSelection() async throws {
        let upload = try await limited.upload(try Fixtures.uniqueJPEG(40), filename: "mine.jpg")
        var placeholder: ObjectPlaceholder?
        let result = try await limited.performChanges { batch in placeholder = batch.createAsset(from: upload) }
        let mine = try XCTUnwrap(placeholder.flatMap(result.localIdentifier(for:)))
        let value9 = try await limited.fetchAssets().count
        XCTAssertEqual(value9, 3)
        let value10 = try await limited.fetchAssets().contains(mine)
        XCTAssertTrue(value10)
        let value11 = try await owner.clients().first { $0.clientIdentifier == clientIdentifier }?.selectedAssetCount
        XCTAssertEqual(value11, 3)
        // Uploading the bytes of an unselected asset does not say that it exists.
        let again = try await limited.upload(try Fixtures.uniqueJPEG(2), filename: "again.jpg")
        XCTAssertNil(again.existingAssetIdentifier)
    }

    /// A copy of an asset outside the selection gives the client nothing: the batch creates
    /// nothing and names no asset, the selection stays as it was, an
    /// `add_assets` of the copy to the client's own album leaves it out, any other use of its
    /// placeholder is refused, and a trashed asset stays in Recently Deleted. (Before, the
    /// copy gave the client the owner's asset: its place, albums and edits, and the right to
    /// change and delete it.)
    func testACopyOfAnAssetOutsideTheSelectionGivesNothing() async throws {
        let upload = try await limited.upload(try Fixtures.uniqueJPEG(2), filename: "again.jpg")
        XCTAssertNil(upload.existingAssetIdentifier)
        var placeholder: ObjectPlaceholder?
        let result = try await limited.performChanges { batch in placeholder = batch.createAsset(from: upload) }
        XCTAssertNil(placeholder.flatMap(result.localIdentifier(for:)), "the owner's asset is named")
        let count = try await limited.fetchAssets().count
        XCTAssertEqual(count, 2)
        let selectedCount = try await owner.clients().first { $0.clientIdentifier == clientIdentifier }?.selectedAssetCount
        XCTAssertEqual(selectedCount, 2, "the owner's asset joined the selection")
        let seen = try await limited.fetchAssets(withLocalIdentifiers: [hidden]).count
        XCTAssertEqual(seen, 0, "the client sees the owner's asset")

        // The client's own album: the copy is left out of add_assets; naming it otherwise fails.
        var own: ObjectPlaceholder?
        let made = try await limited.performChanges { batch in own = batch.createAlbum(title: "Mine") }
        let mine = try XCTUnwrap(own.flatMap(made.localIdentifier(for:)))
        let second = try await limited.upload(try Fixtures.uniqueJPEG(2), filename: "again.jpg")
        _ = try await limited.performChanges { batch in
            let copy = batch.createAsset(from: second)
            batch.addAssets([copy.localIdentifier], to: mine)
        }
        let members = try await limited.fetchAssets(in: mine).count
        XCTAssertEqual(members, 0, "the owner's asset was added to the client's album")
        let third = try await limited.upload(try Fixtures.uniqueJPEG(2), filename: "again.jpg")
        let refused = await failure {
            _ = try await limited.performChanges { batch in
                let copy = batch.createAsset(from: third)
                batch.setProperties(of: copy.localIdentifier, isFavorite: true)
            }
        }
        XCTAssertEqual(refused?.code, .failedPrecondition, refused?.message ?? "")
        XCTAssertTrue(refused?.message.contains("created no asset") ?? false, refused?.message ?? "")
        let favorite = try await owner.fetchAssets(withLocalIdentifiers: [hidden]).allObjects().first?.isFavorite
        XCTAssertEqual(favorite, false)

        // A trashed asset of the owner's is not brought back by a copy.
        _ = try await owner.performChanges([.deleteAssets([hidden])])
        let fourth = try await limited.upload(try Fixtures.uniqueJPEG(2), filename: "again.jpg")
        _ = try await limited.performChanges { batch in _ = batch.createAsset(from: fourth) }
        let visible = try await owner.fetchAssets(withLocalIdentifiers: [hidden]).count
        XCTAssertEqual(visible, 0, "the owner's trashed asset was restored by a limited client's copy")
        let trashed = try await owner.fetchAssets(in: LocalIdentifier.smartAlbum(.smartAlbumRecentlyDeleted)).allObjects().map(\.localIdentifier)
        XCTAssertEqual(trashed, [hidden])
    }

    func testAnAssetBothAddedAndRemovedIsRefused() async throws {
        do {
            try await owner.editSelection(client: clientIdentifier, adding: [hidden], removing: [hidden])
            XCTFail("an asset both added and removed was accepted")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .invalidArgument)
            XCTAssertTrue(error.message.contains("both added to and removed from"), error.message)
        }
        let count = try await limited.fetchAssets().count
        XCTAssertEqual(count, 2, "the selection is unchanged")
    }

    func testSelectionChangesArriveAsIncrementalDetails() async throws {
        let subscription = try await limited.subscribe()
        let fetch = try await subscription.registerFetch()
        try await subscription.register(objects: [selected[1]])
        XCTAssertEqual(fetch.count, 2)
        var changes = subscription.changes.makeAsyncIterator()
        var before = try await fetch.allObjects().map(\.localIdentifier)

        // A change to an asset the client cannot see: nothing reaches it. Then the owner gives
        // it one more asset: an insertion of exactly that one.
        _ = try await owner.performChanges([.setAssetProperties(.init(asset: assets[3], isFavorite: true))])
        let tokenBefore = try await owner.fetchPersistentChanges(since: nil).changes.last?.changeToken
        try await owner.editSelection(client: clientIdentifier, adding: [hidden])
        let added = try await changes.next()
        let tokenAfter = try await owner.fetchPersistentChanges(since: nil).changes.last?.changeToken
        XCTAssertEqual(tokenBefore, tokenAfter, "a selection change is no transaction")
        XCTAssertEqual(added?.changeToken, tokenAfter, "the notification is at the library's current token")
        let details = try XCTUnwrap(added?.changeDetails(for: fetch))
        XCTAssertTrue(details.hasIncrementalChanges)
        XCTAssertEqual(details.insertedObjects.map(\.localIdentifier), [hidden])
        XCTAssertEqual(details.removedIndexes, [])
        let after = try await details.fetchResultAfterChanges.allObjects().map(\.localIdentifier)
        // Applying the details to the old list gives the new one.
        let inserted = Dictionary(uniqueKeysWithValues: zip(details.insertedIndexes, details.insertedObjects.map(\.localIdentifier)))
        XCTAssertEqual(details.details.apply(to: before) { inserted[$0] ?? after[$0] }, after)
        XCTAssertEqual(Set(after), Set(selected + [hidden]))
        before = after

        // The owner takes one away: a removal, and the observed object reads as deleted.
        try await owner.editSelection(client: clientIdentifier, removing: [selected[1]])
        let removed = try await changes.next()
        let removal = try XCTUnwrap(removed?.changeDetails(for: details.fetchResultAfterChanges))
        XCTAssertEqual(removal.removedIndexes, [try XCTUnwrap(before.firstIndex(of: selected[1]))])
        XCTAssertEqual(removal.insertedIndexes, [])
        XCTAssertEqual(removed?.changeDetails(forObject: selected[1])?.objectWasDeleted, true)
        let value12 = removal.fetchResultAfterChanges.count
        XCTAssertEqual(value12, 2)
        subscription.cancel()
    }

    /// The next notification, or `nil` when none comes within `seconds`.
    private func next(_ iterator: NotificationIterator, within seconds: Double) async throws -> PhotoLibraryChange? {
        try await withThrowingTaskGroup(of: PhotoLibraryChange?.self) { group in
            group.addTask { try await iterator.next() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    /// The property of the change feed, across selection changes: a limited subscriber that
    /// applies every notification's details to its lists holds exactly what a fresh fetch of
    /// its view returns, after random owner transactions (on selected and unselected assets)
    /// interleaved with random selection edits.
    func testRandomChangesAndSelectionEditsKeepLimitedListsEqualToFreshFetches() async throws {
        for index in 4..<8 {
            let upload = try await owner.upload(try Fixtures.uniqueJPEG(index + 10), filename: "q\(index).jpg")
            var placeholder: ObjectPlaceholder?
            let result = try await owner.performChanges { batch in placeholder = batch.createAsset(from: upload) }
            assets.append(try XCTUnwrap(placeholder.flatMap(result.localIdentifier(for:))))
        }
        var random = SplitMix64(seed: 0x11A1_7ED0)
        var selection = Set(selected)
        let subscription = try await limited.subscribe()
        defer { subscription.cancel() }
        let options = [
            FetchOptions(),
            FetchOptions(predicate: "isFavorite == true"),
            FetchOptions(sortDescriptors: [.init(key: .creationDate, ascending: false)], fetchLimit: 3),
            FetchOptions(includeHiddenAssets: true),
        ]
        var tracked: [(result: FetchResult<Asset>, local: [Asset])] = []
        for option in options {
            let result = try await subscription.registerFetch(with: option)
            tracked.append((result, try await result.allObjects()))
        }
        let iterator = NotificationIterator(subscription)
        var favorites = Set<String>(), hiddenOnes = Set<String>(), trashed = Set<String>()
        var kinds: [String: Int] = [:]
        for step in 0..<40 {
            // Properties are set on assets not in Recently Deleted (any asset, selected or not).
            let id = assets.filter { !trashed.contains($0) }.randomElement(using: &random)!
            let kind: String
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<20:
                kind = "favorite"
                let now = !favorites.contains(id)
                if now { favorites.insert(id) } else { favorites.remove(id) }
                _ = try await owner.performChanges([.setAssetProperties(.init(asset: id, isFavorite: now))])
            case 20..<30:
                kind = "hide"
                let now = !hiddenOnes.contains(id)
                if now { hiddenOnes.insert(id) } else { hiddenOnes.remove(id) }
                _ = try await owner.performChanges([.setAssetProperties(.init(asset: id, isHidden: now))])
            case 30..<40:
                kind = "date"
                let date = Date(timeIntervalSince1970: Double(Int.random(in: 1_000_000_000...1_700_000_000, using: &random)))
                _ = try await owner.performChanges([.setAssetProperties(.init(asset: id, creationDate: date))])
            case 40..<50:
                let target = assets.randomElement(using: &random)!
                kind = trashed.contains(target) ? "restore" : "delete"
                _ = try await owner.performChanges([trashed.contains(target) ? .restoreAssets([target]) : .deleteAssets([target])])
                if trashed.contains(target) { trashed.remove(target) } else { trashed.insert(target) }
            case 50..<75:
                kind = "select"
                let adding = Array(assets.filter { !selection.contains($0) }.shuffled(using: &random).prefix(Int.random(in: 1...2, using: &random)))
                selection.formUnion(adding)
                try await owner.editSelection(client: clientIdentifier, adding: adding)
            default:
                kind = "unselect"
                let removing = Array(selection.shuffled(using: &random).prefix(Int.random(in: 1...2, using: &random)))
                selection.subtract(removing)
                try await owner.editSelection(client: clientIdentifier, removing: removing)
            }
            kinds[kind, default: 0] += 1
            // Fresh fetches of the client's view, then notifications until every list equals them.
            var fresh: [[Asset]] = []
            for option in options { fresh.append(try await limited.fetchAssets(with: option).allObjects()) }
            XCTAssertEqual(Set(fresh[3].map(\.localIdentifier)), selection.subtracting(trashed), "step \(step) \(kind): the view is the selection")
            while tracked.map(\.local) != fresh {
                guard let change = try await next(iterator, within: 10) else {
                    return XCTFail("step \(step) (\(kind)): lists differ from fresh fetches and no notification came: \(tracked.map { $0.local.map(\.localIdentifier) }) vs \(fresh.map { $0.map(\.localIdentifier) })")
                }
                for index in tracked.indices {
                    guard let details = change.changeDetails(for: tracked[index].result) else { continue }
                    var supplied: [Int: Asset] = [:]
                    for (position, object) in zip(details.insertedIndexes, details.insertedObjects) { supplied[position] = object }
                    for (position, object) in zip(details.changedIndexes, details.changedObjects) { supplied[position] = object }
                    let after = details.hasIncrementalChanges ? [] : try await details.fetchResultAfterChanges.allObjects()
                    tracked[index].local = details.details.apply(to: tracked[index].local) { supplied[$0] ?? after[$0] }
                    tracked[index].result = details.fetchResultAfterChanges
                }
            }
        }
        XCTAssertGreaterThan(kinds["select", default: 0], 3, "\(kinds)")
        XCTAssertGreaterThan(kinds["unselect", default: 0], 3, "\(kinds)")
    }

    func testTheLimitedPickerAnswersWithTheNewAssetsOnly() async throws {
        let client: PhotoLibrary = limited
        let asking = Task { try await client.presentLimitedLibraryPicker(timeout: 20) }
        var request: PendingRequest?
        for _ in 0..<200 where request == nil {
            request = try await owner.pendingRequests().first { $0.kind == .limitedPicker }
            if request == nil { try await Task.sleep(nanoseconds: 20_000_000) }
        }
        let pending = try XCTUnwrap(request, "the owner sees the request")
        XCTAssertEqual(pending.clientIdentifier, clientIdentifier)
        // One asset already selected, one new: the answer names the new one only.
        try await owner.answer(pending.requestIdentifier, picking: [selected[0], assets[3]])
        let newly = try await asking.value
        XCTAssertEqual(newly, [assets[3]])
        let value13 = try await limited.fetchAssets().count
        XCTAssertEqual(value13, 3)
    }

    func testBecomingLimitedOrAuthorizedEndsOpenConnections() async throws {
        try await owner.setAuthorization(.authorized, for: .readWrite, client: clientIdentifier)
        let error = await failure { _ = try await self.limited.fetchAssets() }
        XCTAssertNotNil(error, "the connection that saw the selection was closed")
        let reconnected = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: token)
        defer { reconnected.close() }
        let value14 = try await reconnected.fetchAssets().count
        XCTAssertEqual(value14, 4, "authorized: the whole library")
    }
}

/// One iterator over a subscription's notifications, shared by the awaits of a test.
private final class NotificationIterator: @unchecked Sendable {
    // Used by one task at a time (the test awaits each next() before the following one).
    private var iterator: ChangeSubscription.Changes.AsyncIterator

    init(_ subscription: ChangeSubscription) {
        iterator = subscription.changes.makeAsyncIterator()
    }

    func next() async throws -> PhotoLibraryChange? {
        try await iterator.next()
    }
}
