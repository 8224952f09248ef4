import Foundation
import PhotoLibCore
import PhotoLibServer
import PhotoLibServerTestSupport
import PhotoLibStore
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// Registering a snapshot fetched before some changes brings it up to date, value changes
/// included: applying what the client receives equals a fresh fetch (a favourite set
/// meanwhile used to be lost: the list had not moved, so nothing was sent).
final class StaleSnapshotTests: XCTestCase {
    private var server: InProcessServer!
    private var connection: RawConnection!
    private var ids: [String] = []

    override func setUp() async throws {
        server = try InProcessServer()
        _ = try server.library.addSyntheticAssetsForBenchmark(count: 20)
        ids = try server.library.fetchAssetIdentifiers(AssetQuery())
        connection = try server.rawConnection()
        _ = try connection.handshake(token: server.token)
    }

    override func tearDown() async throws {
        connection?.close()
        await server?.tearDown()
    }

    private func snapshot(stream: UInt32 = 1) throws -> Wire.FetchResultSnapshot {
        let result = try connection.call(stream: stream, method: PhotoLibraryMethods.fetchAssets.path, request: Wire.FetchAssetsRequest(prefetchCount: 100).encoded())
        return try Wire.FetchResultSnapshot(decoding: result.messages[0])
    }

    /// Registers `id` on a new subscription and returns the notification that follows (nil
    /// when only the acknowledgement came within a second).
    private func register(_ id: String) throws -> Wire.ChangeNotification? {
        connection.send(Frame(.call, stream: 3, payload: Wire.CallStart(method: PhotoLibraryMethods.subscribe.path).encoded()))
        connection.send(Frame(.message, stream: 3, payload: Wire.SubscriptionRequest(request: .registerFetchResult(Wire.RegisterFetchResult(fetchResultID: id))).encoded()))
        var acknowledged = false
        while true {
            let (read, _) = connection.readUntil(timeout: acknowledged ? 1 : 10) { $0.streamID == 3 && ($0.type == .message || $0.type == .status) }
            guard case .frame(let frame) = read else { return nil }
            XCTAssertEqual(frame.type, .message)
            let event = try Wire.SubscriptionEvent(decoding: frame.payload)
            switch event.event {
            case .registeredAtToken?: acknowledged = true
            case .change(let notification)?: return notification
            default: continue
            }
        }
    }

    func testAValueChangeMadeBeforeRegistrationReachesTheClient() throws {
        let before = try snapshot()
        XCTAssertFalse(before.assets[3].isFavorite)
        _ = try server.library.performChanges([.setAssetProperties(.init(asset: ids[3], isFavorite: true))])
        let notification = try XCTUnwrap(try register(before.fetchResultID), "no catch-up for a value change")
        let details = try XCTUnwrap(notification.fetchResultChanges.first)
        XCTAssertTrue(details.hasIncrementalChanges)
        XCTAssertEqual(details.changedIndexes, [3])
        XCTAssertEqual(details.insertedAndChangedAssets.map(\.localIdentifier), [ids[3]])
        XCTAssertTrue(details.insertedAndChangedAssets[0].isFavorite)
        // Applying it equals a fresh fetch.
        var assets = before.assets
        assets[3] = details.insertedAndChangedAssets[0]
        XCTAssertEqual(assets, try snapshot(stream: 5).assets)
    }

    func testMembershipAndValueChangesTogether() throws {
        let before = try snapshot()
        _ = try server.library.performChanges([
            .setAssetProperties(.init(asset: ids[5], isFavorite: true)), .deleteAssets([ids[0]]),
        ])
        let notification = try XCTUnwrap(try register(before.fetchResultID))
        let details = try XCTUnwrap(notification.fetchResultChanges.first)
        XCTAssertEqual(details.removedIndexes, [0])
        XCTAssertEqual(details.changedIndexes, [4], "asset 5 is at 4 after the removal")
        XCTAssertTrue(details.insertedAndChangedAssets[0].isFavorite)
    }

    func testAnUnchangedSnapshotGetsNoNotification() throws {
        let before = try snapshot()
        XCTAssertNil(try register(before.fetchResultID))
    }
}
