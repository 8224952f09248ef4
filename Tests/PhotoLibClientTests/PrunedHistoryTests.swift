import Foundation
import PhotoLibClient
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import XCTest

/// An empty since-token keeps working after history was pruned: history from the oldest kept
/// transaction, a subscription from now.
final class PrunedHistoryTests: XCTestCase {
    func testEmptySinceTokensAfterPruning() async throws {
        let server = try InProcessServer(photos: [Fixtures.landscape, Fixtures.portrait])
        addTeardownBlock { await server.tearDown() }
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer { library.close() }
        _ = try await library.performChanges([.deleteAssets([server.assets[0]])])
        let pruned = try server.library.pruneHistory(keepingLast: 1)
        XCTAssertGreaterThan(pruned, 0, "the imports' history is gone")
        do {
            _ = try await library.fetchPersistentChanges(since: "0")
            XCTFail("token 0 is older than the history kept")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.reason, .persistentChangeTokenExpired)
        }
        let kept = try await library.fetchPersistentChanges(since: nil)
        XCTAssertEqual(kept.changes.count, 1, "empty: from the oldest transaction kept")
        XCTAssertEqual(kept.changes.first?.identifiers(.asset, .updated), [server.assets[0]])

        // Resuming from "" subscribes from now: no catch-up, then the next change arrives live.
        let subscription = try await library.subscribe(since: "")
        try await subscription.register(objects: [server.assets[1]])
        _ = try await library.performChanges([.setAssetProperties(.init(asset: server.assets[1], isFavorite: true))])
        var changes = subscription.changes.makeAsyncIterator()
        let change = try await changes.next()
        XCTAssertEqual(change?.changeDetails(forObject: server.assets[1])?.assetAfterChanges?.isFavorite, true)
        subscription.cancel()
    }
}
