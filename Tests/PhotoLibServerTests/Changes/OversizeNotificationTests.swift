import Foundation
import PhotoLibCore
import PhotoLibServer
import PhotoLibServerTestSupport
import PhotoLibStore
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// A change notification too large for one frame to the client becomes a non-incremental
/// resync of the results it concerns; the subscription goes on (it used to end with
/// RESOURCE_EXHAUSTED).
final class OversizeNotificationTests: XCTestCase {
    func testANotificationLargerThanAFrameBecomesAResync() async throws {
        let server = try InProcessServer()
        addTeardownBlock { await server.tearDown() }
        _ = try server.library.addSyntheticAssetsForBenchmark(count: 2000)
        let connection = try server.rawConnection()
        _ = try connection.handshake(token: server.token, maxFrameSize: 128 << 10)
        connection.send(Frame(.call, stream: 1, payload: Wire.CallStart(method: PhotoLibraryMethods.subscribe.path).encoded()))
        connection.send(Frame(.message, stream: 1, payload: Wire.SubscriptionRequest(request: .registerFetch(Wire.FetchAssetsRequest())).encoded()))

        func nextEvent() throws -> Wire.SubscriptionEvent {
            let (read, _) = connection.readUntil(timeout: 10) { $0.streamID == 1 && ($0.type == .message || $0.type == .status) }
            guard case .frame(let frame) = read else { throw RawConnectionError("no event: \(read)") }
            guard frame.type == .message else {
                let status = try Wire.Status(decoding: frame.payload)
                throw RawConnectionError("the subscription ended: \(status.code) \(status.message)")
            }
            let credit = Wire.WindowUpdate(increment: UInt32(frame.payload.count)).encoded()
            connection.send(Frame(.windowUpdate, stream: 1, payload: credit))
            connection.send(Frame(.windowUpdate, stream: 0, payload: credit))
            return try Wire.SubscriptionEvent(decoding: frame.payload)
        }
        guard case .registeredFetchResult(let registered)? = try nextEvent().event else { return XCTFail("not registered") }
        let ids = try server.library.fetchAssetIdentifiers(AssetQuery())
        XCTAssertEqual(registered.snapshot?.count, 2000)

        // The same assets observed as objects too: their details come twice.
        connection.send(Frame(.message, stream: 1, payload: Wire.SubscriptionRequest(request: .registerObjects(Wire.RegisterObjects(localIdentifiers: Array(ids.prefix(1000))))).encoded()))
        guard case .registeredAtToken? = try nextEvent().event else { return XCTFail("objects not registered") }
        // 1000 assets change at once (favourite and a place): ~200 KB of values, over the
        // 128 KiB frame.
        let place = LocationChange.set(Location(latitude: 45.764043, longitude: 4.835659, altitude: 173.5))
        _ = try server.library.performChanges(ids.prefix(1000).map { .setAssetProperties(.init(asset: $0, isFavorite: true, location: place)) })
        guard case .change(let big)? = try nextEvent().event else { return XCTFail("expected a change notification") }
        let details = try XCTUnwrap(big.fetchResultChanges.first)
        XCTAssertFalse(details.hasIncrementalChanges, "too large for a frame: a resync")
        XCTAssertEqual(details.countAfter, 2000)
        XCTAssertTrue(details.insertedAndChangedAssets.isEmpty)

        // The object details that did not fit follow in notifications of their own, with
        // since_token == change_token; all 1000 arrive.
        var objects = big.objectChanges.count
        XCTAssertGreaterThan(objects, 0)
        while objects < 1000 {
            guard case .change(let more)? = try nextEvent().event else { return XCTFail("expected the rest of the object details") }
            XCTAssertEqual(more.sinceToken, big.changeToken)
            XCTAssertEqual(more.changeToken, big.changeToken)
            XCTAssertTrue(more.fetchResultChanges.isEmpty)
            objects += more.objectChanges.count
        }
        XCTAssertEqual(objects, 1000, "every observed object's details arrive, once")

        // The subscription goes on, incremental again for a small change.
        _ = try server.library.performChanges([.setAssetProperties(.init(asset: ids[1500], isFavorite: true))])
        guard case .change(let small)? = try nextEvent().event else { return XCTFail("expected a change notification") }
        XCTAssertEqual(small.sinceToken, big.changeToken, "the token chain stays contiguous")
        XCTAssertTrue(try XCTUnwrap(small.fetchResultChanges.first).hasIncrementalChanges)
    }
}
