import Foundation
import PhotoLibCore
import PhotoLibServer
import PhotoLibServerTestSupport
import PhotoLibStore
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// The change feed fans out: subscribers of one live result get the same snapshot ids, so
/// once each has had its first notification their notifications are the same bytes (built
/// and encoded once per round, written to each).
final class FanOutTests: XCTestCase {
    /// A raw connection's MESSAGE payloads by stream, read as they come (frames of one
    /// stream are kept while waiting for another's).
    private final class Inbox {
        let connection: RawConnection
        private var pending: [UInt32: [[UInt8]]] = [:]

        init(_ connection: RawConnection) {
            self.connection = connection
        }

        /// The next MESSAGE payload of `stream`, its credit returned.
        func next(on stream: UInt32) throws -> [UInt8] {
            while pending[stream, default: []].isEmpty {
                let (read, skipped) = connection.readUntil(timeout: 10) { $0.type == .message || $0.type == .status }
                for frame in skipped where frame.type == .message { pending[frame.streamID, default: []].append(frame.payload) }
                guard case .frame(let frame) = read, frame.type == .message else { throw RawConnectionError("no event on stream \(stream): \(read)") }
                let credit = Wire.WindowUpdate(increment: UInt32(frame.payload.count)).encoded()
                connection.send(Frame(.windowUpdate, stream: frame.streamID, payload: credit))
                connection.send(Frame(.windowUpdate, stream: 0, payload: credit))
                pending[frame.streamID, default: []].append(frame.payload)
            }
            return pending[stream]!.removeFirst()
        }
    }

    /// One subscription registering the same fetch as the others.
    private struct RawSubscription {
        let inbox: Inbox
        let stream: UInt32

        init(_ inbox: Inbox, stream: UInt32) {
            self.inbox = inbox
            self.stream = stream
            let connection = inbox.connection
            connection.send(Frame(.call, stream: stream, payload: Wire.CallStart(method: PhotoLibraryMethods.subscribe.path).encoded()))
            let fetch = Wire.FetchAssetsRequest(options: Wire.FetchOptions(sortDescriptors: [Wire.SortDescriptor(AssetSortDescriptor(key: .creationDate, ascending: true))]))
            connection.send(Frame(.message, stream: stream, payload: Wire.SubscriptionRequest(request: .registerFetch(fetch)).encoded()))
        }

        func nextPayload() throws -> [UInt8] { try inbox.next(on: stream) }
    }

    /// An in-process server with 20 synthetic assets, and three subscriptions (each then
    /// registers the same fetch of them all): two on one connection, one on another.
    private func threeSubscriptions() throws -> (server: InProcessServer, ids: [String], subscriptions: [RawSubscription]) {
        let server = try InProcessServer()
        addTeardownBlock { await server.tearDown() }
        _ = try server.library.addSyntheticAssetsForBenchmark(count: 20)
        let ids = try server.library.fetchAssetIdentifiers(AssetQuery())
        let first = try server.rawConnection(), second = try server.rawConnection()
        _ = try first.handshake(token: server.token)
        _ = try second.handshake(token: server.token)
        let firstInbox = Inbox(first), secondInbox = Inbox(second)
        return (server, ids, [RawSubscription(firstInbox, stream: 1), RawSubscription(firstInbox, stream: 3), RawSubscription(secondInbox, stream: 1)])
    }

    func testSubscribersOfOneResultGetTheSameBytesAfterTheirFirstNotification() async throws {
        let (server, ids, subscriptions) = try threeSubscriptions()
        for subscription in subscriptions {
            guard case .registeredFetchResult? = try Wire.SubscriptionEvent(decoding: try subscription.nextPayload()).event else {
                return XCTFail("not registered")
            }
        }
        // Round 1: each moves from its own registration snapshot to the result's version.
        _ = try server.library.performChanges([.setAssetProperties(.init(asset: ids[3], isFavorite: true))])
        var afterIDs: Set<String> = []
        for subscription in subscriptions {
            guard case .change(let change)? = try Wire.SubscriptionEvent(decoding: try subscription.nextPayload()).event else { return XCTFail("no change") }
            afterIDs.insert(try XCTUnwrap(change.fetchResultChanges.first).fetchResultAfterID)
        }
        XCTAssertEqual(afterIDs.count, 1, "one snapshot id for the result's new version, on every connection")
        // Round 2 and 3: the same bytes for everyone.
        for asset in [ids[5], ids[7]] {
            _ = try server.library.performChanges([.setAssetProperties(.init(asset: asset, isHidden: true))])
            let payloads = try subscriptions.map { try $0.nextPayload() }
            XCTAssertTrue(payloads.allSatisfy { $0 == payloads[0] }, "the notification is the same bytes for every subscriber")
            guard case .change(let change)? = try Wire.SubscriptionEvent(decoding: payloads[0]).event,
                let details = change.fetchResultChanges.first
            else { return XCTFail("no change") }
            XCTAssertTrue(afterIDs.contains(details.fetchResultID), "relative to the shared snapshot")
            XCTAssertEqual(details.removedIndexes.count, 1, "the hidden asset left the result")
            afterIDs = [details.fetchResultAfterID]
        }
        // The shared snapshot is readable on each connection.
        for connection in [subscriptions[0].inbox.connection, subscriptions[2].inbox.connection] {
            connection.send(Frame(.call, stream: 101, payload: Wire.CallStart(method: PhotoLibraryMethods.fetchResultObjects.path).encoded()))
            connection.send(Frame(.message, stream: 101, flags: .endStream,
                payload: Wire.FetchResultObjectsRequest(fetchResultID: afterIDs.first!, offset: 0, length: 5, identifiersOnly: true).encoded()))
            let (read, _) = connection.readUntil(timeout: 10) { $0.streamID == 101 && ($0.type == .message || $0.type == .status) }
            guard case .frame(let frame) = read else { return XCTFail("no answer: \(read)") }
            XCTAssertEqual(frame.type, .message, "the snapshot \(afterIDs.first!) is readable")
        }
    }

    /// Subscribers registering the same fetch at the same version get the same snapshot id
    /// (the live version's), so even their first notification is the same bytes; a second
    /// registration of that fetch in one subscription gets an id of its own, and both are
    /// followed.
    func testRegistrationsOfOneVersionShareTheirSnapshotIDAndFirstNotification() async throws {
        let (server, ids, subscriptions) = try threeSubscriptions()
        var registered: [String] = []
        for subscription in subscriptions {
            guard case .registeredFetchResult(let fetch)? = try Wire.SubscriptionEvent(decoding: try subscription.nextPayload()).event else {
                return XCTFail("not registered")
            }
            registered.append(try XCTUnwrap(fetch.snapshot).fetchResultID)
        }
        XCTAssertEqual(Set(registered).count, 1, "one id for the version, on both connections: \(registered)")
        // The first subscription registers the same fetch again: an id of its own.
        let fetch = Wire.FetchAssetsRequest(options: try Wire.FetchOptions(FetchOptions(sortDescriptors: [AssetSortDescriptor(key: .creationDate, ascending: true)])))
        subscriptions[0].inbox.connection.send(Frame(.message, stream: 1, payload: Wire.SubscriptionRequest(request: .registerFetch(fetch)).encoded()))
        guard case .registeredFetchResult(let again)? = try Wire.SubscriptionEvent(decoding: try subscriptions[0].nextPayload()).event else {
            return XCTFail("not registered again")
        }
        let ownID = try XCTUnwrap(again.snapshot).fetchResultID
        XCTAssertNotEqual(ownID, registered[0], "a second registration in one subscription is a registration of its own")

        _ = try server.library.performChanges([.setAssetProperties(.init(asset: ids[3], isFavorite: true))])
        let payloads = try subscriptions.map { try $0.nextPayload() }
        XCTAssertEqual(payloads[1], payloads[2], "the first notification is the same bytes for subscribers that registered at one version")
        guard case .change(let both)? = try Wire.SubscriptionEvent(decoding: payloads[0]).event,
            case .change(let one)? = try Wire.SubscriptionEvent(decoding: payloads[1]).event
        else { return XCTFail("no change") }
        XCTAssertEqual(Set(both.fetchResultChanges.map(\.fetchResultID)), [registered[0], ownID], "both registrations of the first subscription move")
        XCTAssertEqual(one.fetchResultChanges.map(\.fetchResultID), [registered[0]])
        XCTAssertEqual(Set(both.fetchResultChanges.map(\.fetchResultAfterID)), Set(one.fetchResultChanges.map(\.fetchResultAfterID)), "one after-snapshot")
    }

    /// Three subscriptions of one result on one connection, the last of which stops taking
    /// notifications (its stream's credit runs out; the others keep theirs): the round
    /// queues for all three, one wake per connection, and the two that read get every
    /// notification in order, while the stalled one's backlog becomes one resync that
    /// continues its token chain when it reads again.
    func testAStalledSubscriberIsResyncedWhileTheOthersOnItsConnectionGetEveryNotificationInOrder() async throws {
        var configuration = ServerConfiguration()
        configuration.maxQueuedNotifications = 2
        let server = try InProcessServer(configuration: configuration)
        addTeardownBlock { await server.tearDown() }
        _ = try server.library.addSyntheticAssetsForBenchmark(count: 100)
        let ids = try server.library.fetchAssetIdentifiers(AssetQuery())
        let connection = try server.rawConnection()
        // 128 KiB per stream: a dozen notifications of 100 changed assets fill a stalled stream's window.
        _ = try connection.handshake(token: server.token, maxFrameSize: 128 << 10, streamWindow: 128 << 10, connectionWindow: 64 << 20)
        let streams: [UInt32] = [1, 3, 5]
        let stalled: UInt32 = 5
        let fetch = Wire.FetchAssetsRequest(options: try Wire.FetchOptions(FetchOptions(sortDescriptors: [AssetSortDescriptor(key: .creationDate, ascending: true)])))
        for stream in streams {
            connection.send(Frame(.call, stream: stream, payload: Wire.CallStart(method: PhotoLibraryMethods.subscribe.path).encoded()))
            connection.send(Frame(.message, stream: stream, payload: Wire.SubscriptionRequest(request: .registerFetch(fetch)).encoded()))
        }
        // Events by stream; credit goes back for every message but the stalled stream's own
        // (its connection credit does go back, so that it stalls alone).
        var events: [UInt32: [Wire.SubscriptionEvent.Event]] = [:]
        func read(until done: ([UInt32: [Wire.SubscriptionEvent.Event]]) -> Bool) throws {
            while !done(events) {
                guard case .frame(let frame) = connection.readFrame(timeout: 10) else { throw RawConnectionError("no more events; have \(events.mapValues(\.count))") }
                guard frame.type == .message else { continue }
                let credit = Wire.WindowUpdate(increment: UInt32(frame.payload.count)).encoded()
                if frame.streamID != stalled { connection.send(Frame(.windowUpdate, stream: frame.streamID, payload: credit)) }
                connection.send(Frame(.windowUpdate, stream: 0, payload: credit))
                events[frame.streamID, default: []].append(try XCTUnwrap(Wire.SubscriptionEvent(decoding: frame.payload).event))
            }
        }
        try read { events in streams.allSatisfy { events[$0]?.count == 1 } }
        var tokens: [UInt32: String] = [:]
        for stream in streams {
            guard case .registeredFetchResult(let registered)? = events[stream]?.first else { return XCTFail("stream \(stream) not registered") }
            tokens[stream] = registered.registeredToken
        }
        events = [:]
        var committed: [String] = []
        for round in 0..<40 {
            let changes = ids.map { ChangeRequest.setAssetProperties(.init(asset: $0, isFavorite: round % 2 == 0)) }
            committed.append(String(try server.library.performChanges(changes).token))
            try read { events in [1, 3].allSatisfy { events[$0]?.count == round + 1 } }
        }
        for stream: UInt32 in [1, 3] {
            var since = tokens[stream]!
            for (index, event) in events[stream]!.enumerated() {
                guard case .change(let change) = event, let details = change.fetchResultChanges.first else { return XCTFail("stream \(stream): not a change") }
                XCTAssertEqual(change.sinceToken, since, "stream \(stream), notification \(index): in order, none missing")
                XCTAssertEqual(change.changeToken, committed[index])
                XCTAssertTrue(details.hasIncrementalChanges, "a subscriber that reads is never resynced")
                XCTAssertFalse(details.changedIndexes.isEmpty)
                since = change.changeToken
            }
        }
        // The readers' latest snapshot stays readable: the stalled subscriber's resyncs, whose
        // replaced notifications named the same shared versions, do not release it.
        guard case .change(let latest)? = events[1]?.last, let afterID = latest.fetchResultChanges.first?.fetchResultAfterID else {
            return XCTFail("stream 1 has no last change")
        }
        let page = try connection.call(
            stream: 7, method: PhotoLibraryMethods.fetchResultObjects.path,
            request: Wire.FetchResultObjectsRequest(fetchResultID: afterID, offset: 0, length: 10).encoded())
        XCTAssertEqual(page.status.code, .ok, "the readers' current snapshot \(afterID): \(page.status.message)")
        // The stalled stream reads again: what it was sent before its credit ran out, then
        // one resync that covers the rest, its tokens contiguous up to the last transaction.
        connection.send(Frame(.windowUpdate, stream: stalled, payload: Wire.WindowUpdate(increment: 64 << 20).encoded()))
        try read { events in
            guard case .change(let last)? = events[stalled]?.last else { return false }
            return last.changeToken == committed.last
        }
        var since = tokens[stalled]!, resyncs = 0
        for event in events[stalled]! {
            guard case .change(let change) = event, let details = change.fetchResultChanges.first else { return XCTFail("stalled stream: not a change") }
            XCTAssertEqual(change.sinceToken, since, "the stalled stream's token chain has no gap")
            if !details.hasIncrementalChanges { resyncs += 1 }
            since = change.changeToken
        }
        XCTAssertEqual(resyncs, 1, "the stalled subscriber's backlog became one resync")
        XCTAssertLessThan(events[stalled]!.count, committed.count, "its backlog did not grow with every transaction")
    }
}
