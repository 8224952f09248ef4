import Foundation
import PhotoLibClient
import XCTest

/// Object change details, persistent history (client and CLI), expired tokens, and assets
/// imported by another process reaching subscribers.
final class PersistentHistoryTests: XCTestCase {
    /// A transaction's identifiers per object-type name and kind (types it did not touch left out).
    private static func grouped(_ change: PersistentChange) -> [String: (inserted: [String], updated: [String], deleted: [String])] {
        var groups: [String: (inserted: [String], updated: [String], deleted: [String])] = [:]
        for type in ObjectChange.ObjectType.allCases where change.objects.contains(where: { $0.objectType == type }) {
            groups[type.name] = (change.identifiers(type, .inserted), change.identifiers(type, .updated), change.identifiers(type, .deleted))
        }
        return groups
    }

    private var directory: TemporaryDirectory!
    private var server: ServerProcess?

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("photolib-e2e-history")
    }

    override func tearDown() {
        server?.stopGracefully()
        server = nil
        directory?.remove()
    }

    func testObjectDetailsFollowAnAssetAndAnAlbumUntilTheyAreDeleted() async throws {
        let (server, ids) = try startChangeServer(directory, photos: 3)
        self.server = server
        let writer = try await connectClient(server, name: "writer")
        let observer = try await connectClient(server, name: "observer")
        defer {
            writer.close()
            observer.close()
        }
        let created = try await withTimeout(20, "create album") { try await writer.performChanges([.createAlbum(title: "Before", placeholder: "$1", parentFolder: nil)]) }
        let album = try XCTUnwrap(created.placeholders["$1"])
        let asset = ids[1]
        let subscription = try await withTimeout(20, "subscribe") { try await observer.subscribe() }
        defer { subscription.cancel() }
        try await withTimeout(20, "register") { try await subscription.register(objects: [asset, album]) }
        let collector = ChangeCollector(subscription)
        defer { collector.stop() }

        // A change to an unobserved asset reaches nobody.
        try await commit(writer, "other", [.setAssetProperties(.init(asset: ids[0], isFavorite: true))])
        let date = Date(timeIntervalSince1970: 1_234_567_890)
        let t1 = try await commit(writer, "favorite+date", [.setAssetProperties(.init(asset: asset, isFavorite: true, creationDate: date))])
        var changes = try await collector.waitFor(token: t1)
        XCTAssertEqual(changes.count, 1, "only the transaction touching an observed object notifies")
        let first = try XCTUnwrap(changes.last?.changeDetails(forObject: asset))
        XCTAssertEqual(first.assetAfterChanges?.isFavorite, true)
        XCTAssertEqual(first.assetAfterChanges?.creationDate, date)
        XCTAssertFalse(first.objectWasDeleted)
        XCTAssertFalse(first.assetContentChanged)
        XCTAssertNil(changes.last?.changeDetails(forObject: album), "the album did not change")
        XCTAssertNil(changes.last?.changeDetails(forObject: ids[0]), "ids[0] is not observed")

        let t2 = try await commit(writer, "rename+add", [.renameCollection(album, title: "After"), .addAssets(album: album, assets: [asset, ids[2]])])
        changes = try await collector.waitFor(token: t2)
        let albumDetails = try XCTUnwrap(changes.last?.changeDetails(forObject: album))
        XCTAssertEqual(albumDetails.collectionAfterChanges?.title, "After")
        XCTAssertEqual(albumDetails.collectionAfterChanges?.estimatedAssetCount, 2)
        XCTAssertFalse(albumDetails.objectWasDeleted)

        let t3 = try await commit(writer, "trash", [.deleteAssets([asset])])
        changes = try await collector.waitFor(token: t3)
        let trashed = try XCTUnwrap(changes.last?.changeDetails(forObject: asset))
        XCTAssertFalse(trashed.objectWasDeleted, "a trashed asset still exists")
        XCTAssertNotNil(changes.last?.changeDetails(forObject: album), "trashing a member updates the album")

        let t4 = try await commit(writer, "purge", [.purgeAssets([asset])])
        changes = try await collector.waitFor(token: t4)
        let purged = try XCTUnwrap(changes.last?.changeDetails(forObject: asset))
        XCTAssertTrue(purged.objectWasDeleted)
        XCTAssertNil(purged.assetAfterChanges)

        let t5 = try await commit(writer, "delete album", [.deleteCollections([album])])
        changes = try await collector.waitFor(token: t5)
        let gone = try XCTUnwrap(changes.last?.changeDetails(forObject: album))
        XCTAssertTrue(gone.objectWasDeleted)
        XCTAssertNil(gone.collectionAfterChanges)
        assertContiguous(changes, from: created.changeToken, "object notifications")

        // Unregistered objects are no longer reported. ids[2] is reported while registered;
        // after it is unregistered, a change to it is not, which shows because the next
        // change to a registered object (ids[0]) arrives and notifications come in order.
        try await withTimeout(20, "register ids[2]") { try await subscription.register(objects: [ids[2]]) }
        let t6 = try await commit(writer, "observed", [.setAssetProperties(.init(asset: ids[2], isFavorite: true))])
        changes = try await collector.waitFor(token: t6)
        XCTAssertNotNil(changes.last?.changeDetails(forObject: ids[2]), "a registered asset is reported")
        try await withTimeout(20, "unregister") { try await subscription.unregister(objects: [album, ids[2]]) }
        let t7 = try await commit(writer, "unobserved", [.setAssetProperties(.init(asset: ids[2], isFavorite: false))])
        try await withTimeout(20, "register ids[0]") { try await subscription.register(objects: [ids[0]]) }
        let t8 = try await commit(writer, "other again", [.setAssetProperties(.init(asset: ids[0], isFavorite: false))])
        changes = try await collector.waitFor(token: t8)
        XCTAssertFalse(collector.changes.contains { $0.changeToken == String(t7) })
    }

    func testPersistentHistoryListsEveryTransactionPerObjectType() async throws {
        let (server, ids) = try startChangeServer(directory, photos: 3)
        self.server = server
        let client = try await connectClient(server, name: "history")
        defer { client.close() }
        let t0 = try await currentToken(client)

        var expected: [(author: String, objects: [String: (inserted: [String], updated: [String], deleted: [String])])] = []
        let folderBatch = try await withTimeout(20, "folder+album") {
            try await client.performChanges([.createFolder(title: "F", placeholder: "$1", parentFolder: nil), .createAlbum(title: "A", placeholder: "$2", parentFolder: "$1")])
        }
        let folder = try XCTUnwrap(folderBatch.placeholders["$1"])
        let album = try XCTUnwrap(folderBatch.placeholders["$2"])
        expected.append(("performChanges", ["assetCollection": ([album], [], []), "collectionList": ([folder], [], [])]))
        try await commit(client, "add", [.addAssets(album: album, assets: [ids[0], ids[1]])])
        expected.append(("performChanges", ["assetCollection": ([], [album], [])]))
        try await commit(client, "favorite", [.setAssetProperties(.init(asset: ids[2], isFavorite: true))])
        expected.append(("performChanges", ["asset": ([], [ids[2]], [])]))
        let upload = try await withTimeout(60, "upload") { try await client.upload(DistinctPhotos.photo(500), filename: "u.jpg") }
        let created = try await withTimeout(20, "create") { try await client.performChanges([.createAsset(.init(uploadID: upload.uploadID, placeholder: "$1"))]) }
        let newID = try XCTUnwrap(created.placeholders["$1"])
        expected.append(("performChanges", ["asset": ([newID], [], [])]))
        try await commit(client, "trash", [.deleteAssets([ids[0]])])
        expected.append(("performChanges", ["asset": ([], [ids[0]], []), "assetCollection": ([], [album], [])]))
        try await commit(client, "purge", [.purgeAssets([ids[0]])])
        expected.append(("performChanges", ["asset": ([], [], [ids[0]]), "assetCollection": ([], [album], [])]))
        try await commit(client, "delete album", [.deleteCollections([album])])
        expected.append(("performChanges", ["assetCollection": ([], [], [album]), "collectionList": ([], [folder], [])]))
        let imported = try ServerProcess.importPhotos(library: server.library, try DistinctPhotos.write(600..<601, to: directory, prefix: "later"))
        XCTAssertTrue(imported.succeeded, "\(imported)")
        let importedID = try XCTUnwrap(ImportOutput(imported).addedOrder.first)
        expected.append(("import", ["asset": ([importedID], [], [])]))

        let page = try await withTimeout(20, "fetchPersistentChanges") { try await client.fetchPersistentChanges(since: String(t0)) }
        XCTAssertFalse(page.hasMore)
        XCTAssertEqual(page.changes.count, expected.count, "one entry per transaction: \(page.changes.map(\.author))")
        var previous = t0
        for (change, want) in zip(page.changes, expected) {
            let token = try XCTUnwrap(Int64(change.changeToken))
            XCTAssertEqual(token, previous + 1, "tokens are consecutive")
            previous = token
            XCTAssertEqual(change.author, want.author, "token \(token)")
            let objects = Self.grouped(change)
            XCTAssertEqual(Set(objects.keys), Set(want.objects.keys), "token \(token): object types \(objects.keys.sorted())")
            for (type, lists) in want.objects {
                XCTAssertEqual(objects[type]?.inserted, lists.inserted, "token \(token) \(type) inserted")
                XCTAssertEqual(objects[type]?.updated, lists.updated, "token \(token) \(type) updated")
                XCTAssertEqual(objects[type]?.deleted, lists.deleted, "token \(token) \(type) deleted")
            }
            XCTAssertLessThan(abs(change.committedAt.timeIntervalSinceNow), 120)
        }
        XCTAssertEqual(page.currentToken, previous)

        // Paging: a limit of 2 gives the same transactions in pieces.
        var paged: [PersistentChange] = []
        var cursor = String(t0)
        while true {
            let part = try await withTimeout(20, "page") { [cursor] in try await client.fetchPersistentChanges(since: cursor, limit: 2) }
            XCTAssertLessThanOrEqual(part.changes.count, 2)
            paged += part.changes
            guard part.hasMore, let last = part.changes.last else { break }
            cursor = last.changeToken
        }
        XCTAssertEqual(paged, page.changes)

        // The CLI prints the same history and the current token.
        struct ChangeLine: Decodable {
            var changeToken: String
            var author: String
            var inserted: [String: [String]]
            var updated: [String: [String]]
            var deleted: [String: [String]]
        }
        let printed = try runCLIJSON([ChangeLine].self, ["changes", "--since", String(t0), "--json"], server: server)
        XCTAssertEqual(printed.map(\.changeToken), page.changes.map(\.changeToken))
        for (line, change) in zip(printed, page.changes) {
            XCTAssertEqual(line.author, change.author)
            for (type, lists) in Self.grouped(change) {
                XCTAssertEqual(line.inserted[type] ?? [], lists.inserted)
                XCTAssertEqual(line.updated[type] ?? [], lists.updated)
                XCTAssertEqual(line.deleted[type] ?? [], lists.deleted)
            }
        }
        let token = try runCLI(["token"], server: server)
        XCTAssertTrue(token.succeeded, "\(token)")
        XCTAssertEqual(token.stdout.trimmingCharacters(in: .whitespacesAndNewlines), String(previous))
        struct TokenJSON: Decodable { var changeToken: String }
        XCTAssertEqual(try runCLIJSON(TokenJSON.self, ["token", "--json"], server: server).changeToken, String(previous))
        let text = try runCLI(["changes", "--since", String(previous - 1)], server: server)
        XCTAssertTrue(text.succeeded, "\(text)")
        XCTAssertEqual(text.stdoutLines.count, 1)
        XCTAssertTrue(text.stdout.contains("import") && text.stdout.contains("+1 asset"), text.stdout)
        // A malformed token is a clear error, not a crash.
        let bad = try runCLI(["changes", "--since", "yesterday"], server: server)
        XCTAssertFalse(bad.succeeded)
        XCTAssertTrue(bad.stderr.contains("not a change token"), bad.stderr)
    }

    func testATokenOlderThanTheRetainedHistoryFailsTyped() async throws {
        let (server, ids) = try startChangeServer(directory, photos: 2, extraArguments: ["--history-retention-days", "0", "--maintenance-interval", "1"])
        self.server = server
        let client = try await connectClient(server, name: "expiry")
        defer { client.close() }
        for i in 0..<3 { try await commit(client, "favorite", [.setAssetProperties(.init(asset: ids[i % 2], isFavorite: i % 2 == 0))]) }
        // Maintenance prunes everything older than now within a few seconds.
        var failure: PhotoLibError?
        let deadline = Date().addingTimeInterval(15)
        while failure == nil, Date() < deadline {
            do {
                _ = try await withTimeout(20, "fetchPersistentChanges(since: 1)") { try await client.fetchPersistentChanges(since: "1") }
                try await Task.sleep(nanoseconds: 250_000_000)
            } catch let error as PhotoLibError {
                failure = error
            }
        }
        let error = try XCTUnwrap(failure, "history was never pruned")
        XCTAssertEqual(error.code, .failedPrecondition, "\(error)")
        XCTAssertEqual(error.reason, .persistentChangeTokenExpired, "\(error)")

        // Resuming a subscription from it fails the same way.
        do {
            let subscription = try await withTimeout(20, "subscribe(since: 1)") { try await client.subscribe(since: "1") }
            subscription.cancel()
            XCTFail("subscribe(since:) an expired token succeeded")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .failedPrecondition, "\(error)")
            XCTAssertEqual(error.reason, .persistentChangeTokenExpired, "\(error)")
        }
        // And the CLI says so.
        let cli = try runCLI(["changes", "--since", "1"], server: server)
        XCTAssertFalse(cli.succeeded)
        XCTAssertFalse(cli.stderr.isEmpty)
        // The connection still works, and the current token is still a valid starting point.
        let now = try await currentToken(client)
        let page = try await withTimeout(20, "since now") { try await client.fetchPersistentChanges(since: String(now)) }
        XCTAssertTrue(page.changes.isEmpty)
    }

    func testSubscriberSeesAssetsImportedByAnotherProcess() async throws {
        let (server, _) = try startChangeServer(directory, photos: 2)
        self.server = server
        let observer = try await connectClient(server, name: "observer")
        defer { observer.close() }
        let start = try await currentToken(observer)
        let subscription = try await withTimeout(20, "subscribe") { try await observer.subscribe() }
        defer { subscription.cancel() }
        let fetch = try await TrackedFetch(name: "newest first", options: FetchOptions(sortDescriptors: [.init(key: .creationDate, ascending: false)]), subscription: subscription)
        let collector = ChangeCollector(subscription)
        defer { collector.stop() }

        let paths = try DistinctPhotos.write(700..<703, to: directory, prefix: "external")
        let began = Date()
        let result = try ServerProcess.importPhotos(library: server.library, paths)
        XCTAssertTrue(result.succeeded, "\(result)")
        let imported = Set(ImportOutput(result).addedOrder)
        XCTAssertEqual(imported.count, 3)
        let token = try await currentToken(observer)
        let changes = try await collector.waitFor(token: token, timeout: 10, "the external import")
        XCTAssertLessThan(Date().timeIntervalSince(began), 10)
        assertContiguous(changes, from: String(start), "external import")
        var inserted: Set<String> = []
        for change in changes {
            if let details = change.changeDetails(for: fetch.result) {
                inserted.formUnion(details.insertedObjects.map(\.localIdentifier))
                XCTAssertTrue(details.removedIndexes.isEmpty)
            }
            try await fetch.apply(change)
        }
        XCTAssertEqual(inserted, imported)
        try await fetch.assertMatchesFresh(observer, "external import")
        XCTAssertEqual(fetch.identifiers.count, 5)
    }
}
