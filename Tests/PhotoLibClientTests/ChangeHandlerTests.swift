import Foundation
import PhotoLibClient
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import Synchronization
import XCTest

/// `subscribe(changeHandler:)` (PhotoKit's change observer) and subscriptions of one
/// connection sharing what the server fans out to them: the same bytes are decoded and
/// built into one change, and the results after it are one object.
final class ChangeHandlerTests: XCTestCase {
    /// What a handler subscription saw, in order.
    private final class Seen: Sendable {
        let state = Mutex<(changes: [PhotoLibraryChange], error: (any Error)?)>(([], nil))

        var changes: [PhotoLibraryChange] { state.withLock { $0.changes } }
        var error: (any Error)? { state.withLock { $0.error } }

        func handle(_ result: Result<PhotoLibraryChange, any Error>) {
            state.withLock { state in
                switch result {
                case .success(let change): state.changes.append(change)
                case .failure(let error): state.error = error
                }
            }
        }
    }

    private func waitUntil(_ condition: () -> Bool, _ message: String) async throws {
        let deadline = Date().addingTimeInterval(10)
        while !condition() {
            guard Date() < deadline else { return XCTFail("timed out: \(message)") }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
    }

    /// Subscriptions of one connection registering the same fetch at one server version get
    /// one `FetchResult` (the server gives them one snapshot id): its first page is built
    /// once. Another connection's subscription, and a second registration of the fetch in one
    /// subscription (an id of its own), get results of their own; every one follows changes.
    func testRegistrationsOfOneVersionOnOneConnectionShareTheirFetchResult() async throws {
        let server = try InProcessServer(photos: [Fixtures.landscape, Fixtures.portrait])
        addTeardownBlock { await server.tearDown() }
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        let other = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer {
            library.close()
            other.close()
        }
        let options = FetchOptions(sortDescriptors: [AssetSortDescriptor(key: .creationDate, ascending: true)])
        let seen = [Seen(), Seen(), Seen()]
        let a = try await library.subscribe { seen[0].handle($0) }
        let b = try await library.subscribe { seen[1].handle($0) }
        let c = try await other.subscribe { seen[2].handle($0) }
        let resultA = try await a.registerFetch(with: options)
        let resultB = try await b.registerFetch(with: options)
        let resultC = try await c.registerFetch(with: options)
        let againA = try await a.registerFetch(with: options)
        XCTAssertTrue(resultA === resultB, "one result for one snapshot on one connection")
        XCTAssertEqual(resultA.fetchResultID, resultC.fetchResultID, "the same server snapshot id on both connections")
        XCTAssertFalse(resultA === resultC, "each connection has its own")
        XCTAssertNotEqual(againA.fetchResultID, resultA.fetchResultID)
        XCTAssertEqual(resultA.count, 2)

        _ = try await library.performChanges([.setAssetProperties(.init(asset: server.assets[1], isFavorite: true))])
        try await waitUntil({ seen.allSatisfy { $0.changes.count == 1 } }, "one change each")
        for (index, result) in [resultA, resultB, resultC].enumerated() {
            let details = try XCTUnwrap(seen[index].changes[0].changeDetails(for: result), "subscription \(index)")
            XCTAssertEqual(details.changedObjects.map(\.localIdentifier), [server.assets[1]])
        }
        XCTAssertNotNil(seen[0].changes[0].changeDetails(for: againA), "the second registration is followed too")
        for subscription in [a, b, c] { subscription.cancel() }
    }

    func testHandlerAndIteratingSubscriptionsOfOneConnectionFollowTheSameResult() async throws {
        let server = try InProcessServer(photos: [Fixtures.landscape, Fixtures.portrait])
        addTeardownBlock { await server.tearDown() }
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer { library.close() }
        let options = FetchOptions(sortDescriptors: [AssetSortDescriptor(key: .creationDate, ascending: true)])

        let seenA = Seen(), seenB = Seen()
        let handledA = try await library.subscribe { seenA.handle($0) }
        let handledB = try await library.subscribe { seenB.handle($0) }
        let iterated = try await library.subscribe()
        let resultA = try await handledA.registerFetch(with: options)
        let resultB = try await handledB.registerFetch(with: options)
        var resultC = try await iterated.registerFetch(with: options)
        XCTAssertEqual(resultA.count, 2)

        // Three transactions, each changing one asset's favourite flag.
        let toggles = [(server.assets[0], true), (server.assets[1], true), (server.assets[0], false)]
        // One at a time, each awaited by all three.
        var tokens: [String] = []
        var changes = iterated.changes.makeAsyncIterator()
        var iteratedChanges: [PhotoLibraryChange] = []
        for (index, (asset, favorite)) in toggles.enumerated() {
            tokens.append(try await library.performChanges([.setAssetProperties(.init(asset: asset, isFavorite: favorite))]).changeToken)
            try await waitUntil({ seenA.changes.count > index && seenB.changes.count > index }, "change \(index) for each handler")
            let next = try await changes.next()
            iteratedChanges.append(try XCTUnwrap(next))
        }

        // Each subscription follows its own chain of results: each change is relative to the
        // result after the previous one, and says which asset changed, with its new value.
        var followedA = resultA, followedB = resultB
        for (index, (asset, favorite)) in toggles.enumerated() {
            let a = try XCTUnwrap(seenA.changes[index].changeDetails(for: followedA), "handler A, change \(index)")
            let b = try XCTUnwrap(seenB.changes[index].changeDetails(for: followedB), "handler B, change \(index)")
            let c = try XCTUnwrap(iteratedChanges[index].changeDetails(for: resultC), "iterated, change \(index)")
            for details in [a, b, c] {
                XCTAssertTrue(details.hasIncrementalChanges)
                XCTAssertEqual(details.changedObjects.map(\.localIdentifier), [asset])
                XCTAssertEqual(details.changedObjects.first?.isFavorite, favorite)
                XCTAssertEqual(details.removedIndexes + details.insertedIndexes, [])
            }
            XCTAssertEqual(seenA.changes[index].changeToken, tokens[index])
            XCTAssertEqual(iteratedChanges[index].changeToken, tokens[index])
            followedA = a.fetchResultAfterChanges
            followedB = b.fetchResultAfterChanges
            resultC = c.fetchResultAfterChanges
            if index > 0 {
                // From the second change on the three get the same bytes (one live result,
                // one snapshot id): decoded and built once, they share the result after it.
                XCTAssertTrue(followedA === followedB, "change \(index): one result after the change for the connection's subscriptions")
                XCTAssertTrue(followedA === resultC, "change \(index): shared with the iterating subscription too")
            }
        }
        // The shared result reads the server's snapshot like any other.
        let objects = try await followedA.allObjects()
        XCTAssertEqual(Set(objects.map(\.localIdentifier)), Set(server.assets))
        XCTAssertEqual(objects.first { $0.localIdentifier == server.assets[0] }?.isFavorite, false)
        XCTAssertEqual(objects.first { $0.localIdentifier == server.assets[1] }?.isFavorite, true)

        // Cancelling ends a handler subscription with one `cancelled` error, and nothing more.
        handledA.cancel()
        try await waitUntil({ seenA.error != nil }, "the handler hears the end")
        XCTAssertEqual((seenA.error as? PhotoLibError)?.code, .cancelled)
        _ = try await library.performChanges([.setAssetProperties(.init(asset: server.assets[1], isFavorite: false))])
        try await waitUntil({ seenB.changes.count >= 4 }, "the other handler goes on")
        XCTAssertEqual(seenA.changes.count, 3, "a cancelled subscription's handler gets no more changes")
        XCTAssertNotNil(seenB.changes[3].changeDetails(for: followedB))
        handledB.cancel()
        iterated.cancel()
    }
}
