import Foundation
import PhotoLibClient
import XCTest
import PhotoLibTestSupport

/// The change-feed invariant over the wire: a remote subscriber that applies every
/// notification's details to its local lists always holds exactly what a fresh fetch returns.
final class ChangeFeedPropertyTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: ServerProcess?

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("photolib-e2e-changes")
    }

    override func tearDown() {
        server?.stopGracefully()
        server = nil
        directory?.remove()
    }

    /// The library state the random transactions are drawn from (mirrors what was done).
    private struct Model {
        var live: [String] = []
        var trashed: [String] = []
        var hidden: Set<String> = []
        var favorites: Set<String> = []
        var albumMembers: [String] = []
    }

    func testRandomTransactionsKeepRemoteListsEqualToFreshFetches() async throws {
        for seed: UInt64 in [0x5EED_0001, 0xC0FF_EE42] {
            try await runSequence(seed: seed, transactions: 40)
            server?.stopGracefully()
            server = nil
            directory.remove()
            directory = try TemporaryDirectory("photolib-e2e-changes")
        }
    }

    private func runSequence(seed: UInt64, transactions: Int) async throws {
        var random = SplitMix64(seed: seed)
        let (server, initialIDs) = try startChangeServer(directory, photos: 14)
        self.server = server
        let writer = try await connectClient(server, name: "writer")
        let observer = try await connectClient(server, name: "observer")
        defer {
            writer.close()
            observer.close()
        }
        var model = Model(live: initialIDs)
        // An album with some members, in its own order.
        let created = try await withTimeout(30, "create album") {
            try await writer.performChanges([.createAlbum(title: "Trip", placeholder: "$1", parentFolder: nil)])
        }
        let album = try XCTUnwrap(created.placeholders["$1"])
        model.albumMembers = Array(initialIDs.shuffled(using: &random).prefix(5))
        try await commit(writer, "fill album", [.addAssets(album: album, assets: model.albumMembers)])

        let start = try await currentToken(writer)
        let subscription = try await withTimeout(20, "subscribe") { try await observer.subscribe() }
        defer { subscription.cancel() }
        let fetches = [
            try await TrackedFetch(name: "all", options: FetchOptions(), subscription: subscription),
            try await TrackedFetch(name: "creationDate desc", options: FetchOptions(sortDescriptors: [.init(key: .creationDate, ascending: false)]), subscription: subscription),
            try await TrackedFetch(name: "pixelWidth limit 6", options: FetchOptions(sortDescriptors: [.init(key: .pixelWidth, ascending: true)], fetchLimit: 6), subscription: subscription),
            try await TrackedFetch(name: "favorites", options: FetchOptions(predicate: "isFavorite == true"), subscription: subscription),
            try await TrackedFetch(name: "album order", options: FetchOptions(), album: album, subscription: subscription),
            try await TrackedFetch(
                name: "wide incl. hidden, newest 5", options: FetchOptions(predicate: "pixelWidth > 3000", sortDescriptors: [.init(key: .creationDate, ascending: false)], fetchLimit: 5, includeHiddenAssets: true),
                subscription: subscription),
        ]
        // Every object touched must be registered, so every transaction produces a notification.
        try await withTimeout(20, "register objects") { try await subscription.register(objects: initialIDs + [album]) }
        let collector = ChangeCollector(subscription)
        defer { collector.stop() }

        var lastToken = String(start)
        var processed = 0
        var kinds: [String: Int] = [:]
        var failures: [String] = []
        var nextPhoto = 100
        var stale: StaleFetch?
        var staleChecked = 0
        for step in 0..<transactions {
            let roll = Int.random(in: 0..<100, using: &random)
            var requests: [ChangeRequest] = []
            var kind = ""
            var importing = false
            let visible = model.live
            switch roll {
            case 0..<18 where !visible.isEmpty:
                kind = "favorite"
                for id in visible.shuffled(using: &random).prefix(Int.random(in: 1...3, using: &random)) {
                    let now = !model.favorites.contains(id)
                    requests.append(.setAssetProperties(.init(asset: id, isFavorite: now)))
                    if now { model.favorites.insert(id) } else { model.favorites.remove(id) }
                }
            case 18..<30 where !visible.isEmpty:
                kind = "setDate"
                let id = visible.randomElement(using: &random)!
                let date = Date(timeIntervalSince1970: Double(Int.random(in: 900_000_000...1_700_000_000, using: &random)))
                requests.append(.setAssetProperties(.init(asset: id, creationDate: date)))
            case 30..<38 where !visible.isEmpty:
                kind = "hide"
                let id = visible.randomElement(using: &random)!
                let hide = !model.hidden.contains(id)
                requests.append(.setAssetProperties(.init(asset: id, isHidden: hide)))
                if hide { model.hidden.insert(id) } else { model.hidden.remove(id) }
            case 38..<46 where visible.count > 3:
                kind = "delete"
                let ids = Array(visible.shuffled(using: &random).prefix(Int.random(in: 1...2, using: &random)))
                requests.append(.deleteAssets(ids))
                model.live.removeAll { ids.contains($0) }
                model.trashed += ids
            case 46..<52 where !model.trashed.isEmpty:
                kind = "restore"
                let id = model.trashed.randomElement(using: &random)!
                requests.append(.restoreAssets([id]))
                model.trashed.removeAll { $0 == id }
                model.live.append(id)
            case 52..<57 where !model.trashed.isEmpty:
                kind = "purge"
                let id = model.trashed.randomElement(using: &random)!
                requests.append(.purgeAssets([id]))
                model.trashed.removeAll { $0 == id }
                model.albumMembers.removeAll { $0 == id }
            case 57..<64:
                kind = "albumAdd"
                let outside = visible.filter { !model.albumMembers.contains($0) }
                guard let id = outside.randomElement(using: &random) else { continue }
                requests.append(.addAssets(album: album, assets: [id]))
                model.albumMembers.append(id)
            case 64..<70:
                kind = "albumInsert"
                let outside = visible.filter { !model.albumMembers.contains($0) }
                guard let id = outside.randomElement(using: &random) else { continue }
                let at = Int.random(in: 0...model.albumMembers.count, using: &random)
                requests.append(.insertAssets(album: album, assets: [id], at: at))
                model.albumMembers.insert(id, at: at)
            case 70..<77 where model.albumMembers.count >= 3:
                kind = "albumMove"
                let from = Int.random(in: 0..<model.albumMembers.count, using: &random)
                let to = Int.random(in: 0..<model.albumMembers.count, using: &random)
                requests.append(.moveAssets(album: album, from: [from], to: to))
            case 77..<83 where !model.albumMembers.isEmpty:
                kind = "albumRemove"
                let id = model.albumMembers.randomElement(using: &random)!
                requests.append(.removeAssets(album: album, assets: [id]))
                model.albumMembers.removeAll { $0 == id }
            case 83..<93:
                kind = "upload"
                let bytes = DistinctPhotos.photo(nextPhoto)
                nextPhoto += 1
                let upload = try await withTimeout(60, "upload") { try await writer.upload(bytes, filename: "new.jpg") }
                let favorite = Bool.random(using: &random)
                requests.append(.createAsset(.init(uploadID: upload.uploadID, placeholder: "$1", isFavorite: favorite)))
                if Bool.random(using: &random) { requests.append(.addAssets(album: album, assets: ["$1"])) }
            default:
                kind = "import"
                importing = true
            }
            if requests.isEmpty && !importing { continue }
            kinds[kind, default: 0] += 1

            // Commit: performChanges on another connection, or `photolibd import` in another process.
            var token: Int64
            var newIDs: [String] = []
            if importing {
                let paths = try DistinctPhotos.write(nextPhoto..<(nextPhoto + 2), to: directory, prefix: "import-\(step)")
                nextPhoto += 2
                let result = try ServerProcess.importPhotos(library: server.library, paths)
                XCTAssertTrue(result.succeeded, "photolibd import: \(result)")
                newIDs = ImportOutput(result).addedOrder
                XCTAssertEqual(newIDs.count, 2, "\(result)")
                token = try await currentToken(writer)
            } else {
                do {
                    let batch = requests
                    let result = try await withTimeout(60, kind) { try await writer.performChanges(batch) }
                    token = Int64(result.changeToken) ?? -1
                    if kind == "upload" { newIDs = result.placeholders["$1"].map { [$0] } ?? [] }
                    if kind == "upload", requests.count == 2, let id = newIDs.first { model.albumMembers.append(id) }
                } catch {
                    failures.append("step \(step) \(kind): \(error)")
                    model = try await reloadModel(writer, album: album, known: model)
                    continue
                }
            }
            if !newIDs.isEmpty {
                model.live += newIDs
                let added = newIDs
                try await withTimeout(20, "register new objects") { try await subscription.register(objects: added) }
            }
            if kind == "albumMove" { model = try await reloadModel(writer, album: album, known: model) }
            guard token > Int64(lastToken)! else {
                XCTFail("step \(step) \(kind) committed no transaction (token \(token), last \(lastToken))")
                continue
            }

            let all = try await collector.waitFor(token: token, timeout: 10, "after step \(step) \(kind)")
            let fresh = Array(all[processed...])
            processed = all.count
            assertContiguous(fresh, from: lastToken, "step \(step) \(kind)")
            XCTAssertEqual(fresh.last?.changeToken, String(token), "step \(step) \(kind): the notification must stop at the committed token")
            lastToken = fresh.last?.changeToken ?? lastToken
            for change in fresh {
                for fetch in fetches { try await fetch.apply(change) }
            }
            for fetch in fetches { try await fetch.assertMatchesFresh(writer, "seed \(seed) step \(step) (\(kind))") }

            // A stale snapshot: fetched (not registered) now, registered three transactions
            // later; what the registration delivers must bring its list and its values to a
            // fresh fetch's, value-only changes (favourites) included.
            if step % 6 == 1 {
                let options = [FetchOptions(), FetchOptions(predicate: "isFavorite == true")][step / 6 % 2]
                stale = try await StaleFetch(name: "stale @\(step)", options: options, library: observer)
            } else if step % 6 == 4, let pending = stale {
                stale = nil
                try await withTimeout(20, "register stale") { try await subscription.register(pending.result) }
                // Its catch-up (if anything changed) follows the acknowledgement at once.
                try await Task.sleep(nanoseconds: 300_000_000)
                let all = collector.changes
                for change in all[processed...] {
                    XCTAssertEqual(change.sinceToken, change.changeToken, "a registration's catch-up covers no new transaction")
                    try await pending.apply(change)
                }
                processed = all.count
                try await pending.assertMatchesFresh(writer, "seed \(seed) step \(step)")
                staleChecked += 1
                try await withTimeout(20, "unregister stale") { try await subscription.unregister(pending.result) }
            }
        }
        XCTAssertGreaterThan(staleChecked, 0)
        // Nothing else arrives once the library is quiet.
        try await Task.sleep(nanoseconds: 300_000_000)
        XCTAssertEqual(collector.changes.count, processed, "notifications without a transaction")
        XCTAssertLessThanOrEqual(failures.count, 3, "too many rejected transactions: \(failures)")
        for needed in ["favorite", "setDate", "delete", "upload", "import", "albumAdd"] {
            XCTAssertGreaterThan(kinds[needed, default: 0], 0, "seed \(seed) never ran \(needed): \(kinds)")
        }
        XCTAssertGreaterThan(processed, transactions / 2)
        XCTAssertTrue(fetches.allSatisfy { $0.resyncCount == 0 }, "no resync expected for a subscriber that keeps up")
        print("seed \(seed): \(processed) notifications, kinds \(kinds), rejected \(failures)")
    }

    /// Re-reads album membership (the model does not predict every move exactly).
    private func reloadModel(_ library: PhotoLibrary, album: String, known: Model) async throws -> Model {
        var model = known
        let members = try await withTimeout(30, "album members") {
            try await library.fetchAssets(in: album, options: FetchOptions(includeHiddenAssets: true)).allObjects().map(\.localIdentifier)
        }
        // Trashed members stay members; keep them after the visible ones.
        model.albumMembers = members + known.albumMembers.filter { known.trashed.contains($0) && !members.contains($0) }
        return model
    }
}

/// A snapshot fetched without registering, with the values of its objects as read then;
/// registered later, the details it gets must bring both up to date.
final class StaleFetch: @unchecked Sendable {
    let name: String
    let options: FetchOptions
    private(set) var result: FetchResult<Asset>
    private(set) var objects: [Asset]

    init(name: String, options: FetchOptions, library: PhotoLibrary) async throws {
        self.name = name
        self.options = options
        result = try await withTimeout(20, "fetch \(name)") { try await library.fetchAssets(with: options) }
        let fetched = result
        objects = try await withTimeout(20, "objects of \(name)") { try await fetched.allObjects() }
    }

    /// Applies `change`'s details for this snapshot, if it names it.
    func apply(_ change: PhotoLibraryChange) async throws {
        guard let details = change.changeDetails(for: result) else { return }
        let after = details.fetchResultAfterChanges
        if details.hasIncrementalChanges {
            var values: [Int: Asset] = [:]
            for (index, asset) in zip(details.insertedIndexes, details.insertedObjects) { values[index] = asset }
            for (index, asset) in zip(details.changedIndexes, details.changedObjects) { values[index] = asset }
            let byID = Dictionary(objects.map { ($0.localIdentifier, $0) }, uniquingKeysWith: { a, _ in a })
            let ids = details.details.apply(to: objects.map(\.localIdentifier)) { values[$0]!.localIdentifier }
            objects = ids.enumerated().map { index, id in values[index] ?? byID[id]! }
        } else {
            objects = try await after.allObjects()
        }
        result = after
    }

    /// The list and every object's favourite, hidden and date equal a fresh fetch's.
    func assertMatchesFresh(_ library: PhotoLibrary, _ context: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        let options = options
        let fresh = try await withTimeout(30, "fresh \(name)") { try await library.fetchAssets(with: options).allObjects() }
        XCTAssertEqual(objects.map(\.localIdentifier), fresh.map(\.localIdentifier), "\(name) after \(context): list", file: file, line: line)
        for (mine, now) in zip(objects, fresh) where mine.localIdentifier == now.localIdentifier {
            XCTAssertEqual(mine.isFavorite, now.isFavorite, "\(name) after \(context): stale value of \(now.localIdentifier)", file: file, line: line)
            XCTAssertEqual(mine.isHidden, now.isHidden, "\(name) after \(context): stale value of \(now.localIdentifier)", file: file, line: line)
            XCTAssertEqual(mine.creationDate, now.creationDate, "\(name) after \(context): stale value of \(now.localIdentifier)", file: file, line: line)
        }
    }
}
