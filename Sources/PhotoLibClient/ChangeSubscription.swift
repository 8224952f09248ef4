import Foundation
import PhotoLibWire
import Synchronization

/// PhotoKit's `PHFetchResultChangeDetails` for one registered fetch result.
///
/// Applying it to the before list (docs/PROTOCOL.md, "Change details"): the objects of the
/// before list that are neither removed nor moved keep their relative order; the after list
/// is built index by index — an inserted index takes ``insertedObjects``, a move's `to` takes
/// the object at its `from`, any other index the next unmoved object — and changed indexes
/// then take ``changedObjects``.
public struct FetchResultChanges: Sendable {
    /// The fetch result the details are relative to.
    public let fetchResultBeforeChanges: FetchResult<Asset>
    /// The fetch result after the change (objects are fetched from the server on demand).
    public let fetchResultAfterChanges: FetchResult<Asset>
    /// The indexes and counts (PhotoLibCore's value, the same the server computed).
    public let details: FetchResultChangeDetails
    /// The objects at ``insertedIndexes``.
    public let insertedObjects: [Asset]
    /// The objects at ``changedIndexes``, after the change.
    public let changedObjects: [Asset]
    /// Of ``changedObjects``, the identifiers of those whose image content changed (an edit
    /// or a revert): PhotoKit's `PHObjectChangeDetails.assetContentChanged`, per object.
    public let contentChangedIdentifiers: Set<String>

    /// False: only ``fetchResultAfterChanges`` is meaningful (e.g. after a resync).
    public var hasIncrementalChanges: Bool { details.hasIncrementalChanges }
    /// Indexes in the before result.
    public var removedIndexes: [Int] { details.removedIndexes }
    /// Indexes in the after result.
    public var insertedIndexes: [Int] { details.insertedIndexes }
    /// Indexes in the after result.
    public var changedIndexes: [Int] { details.changedIndexes }
    /// Moves from before to after indexes.
    public var moves: [IndexMove] { details.moves }
    /// Whether any object moved.
    public var hasMoves: Bool { details.hasMoves }
}

/// PhotoKit's `PHObjectChangeDetails` for one registered object.
public struct ObjectChanges: Sendable {
    /// The object's identifier.
    public let localIdentifier: String
    /// The asset after the change, when it is an asset and still exists.
    public let assetAfterChanges: Asset?
    /// The album after the change, when it is an album and still exists.
    public let collectionAfterChanges: AssetCollection?
    /// The folder after the change, when it is a folder and still exists.
    public let collectionListAfterChanges: CollectionList?
    /// Whether an asset's image changed.
    public let assetContentChanged: Bool
    /// Whether the object was deleted.
    public let objectWasDeleted: Bool
}

/// PhotoKit's `PHChange`: what one or more transactions changed for a subscription.
public struct PhotoLibraryChange: Sendable {
    /// The last transaction covered.
    public let changeToken: String
    /// The token before the first transaction covered (the previous change's token).
    public let sinceToken: String
    private let fetchResults: [String: FetchResultChanges]
    private let objects: [String: ObjectChanges]

    init(changeToken: String, sinceToken: String, fetchResults: [String: FetchResultChanges], objects: [String: ObjectChanges]) {
        self.changeToken = changeToken
        self.sinceToken = sinceToken
        self.fetchResults = fetchResults
        self.objects = objects
    }

    /// `changeDetails(for:)`: the details of a registered fetch result, `nil` if unchanged.
    public func changeDetails(for fetchResult: FetchResult<Asset>) -> FetchResultChanges? {
        fetchResults[fetchResult.fetchResultID]
    }

    /// Every object detail this change carries, by identifier: the registered objects that
    /// changed, or — in the catch-up of a resumed subscription (`subscribe(since:)`) — every
    /// object each past transaction touched, with its current values.
    public var objectChanges: [ObjectChanges] {
        objects.values.sorted { $0.localIdentifier < $1.localIdentifier }
    }

    /// `changeDetails(for:)`: the details of a registered object, `nil` if unchanged.
    public func changeDetails(forObject localIdentifier: String) -> ObjectChanges? {
        objects[localIdentifier]
    }

    /// Every fetch result this change affects.
    public var changedFetchResults: [FetchResultChanges] { Array(fetchResults.values) }
    /// Every object this change names.
    public var changedObjects: [ObjectChanges] { Array(objects.values) }
}

/// A live subscription to the library's changes (`Subscribe`): register fetch results and
/// objects, then iterate ``changes``. The subscription follows each registered fetch
/// result: after a change, ``FetchResultChanges/fetchResultAfterChanges`` is what later
/// changes are relative to.
public final class ChangeSubscription: Sendable {
    /// The changes, in token order. Iterating slowly slows the server's sending down
    /// (flow control); a subscriber far behind receives a resync instead of a backlog.
    public let changes: AsyncThrowingStream<PhotoLibraryChange, any Error>

    private let connection: ClientConnection
    private let call: BidirectionalCall<Wire.SubscriptionRequest, Wire.SubscriptionEvent>
    private var streamID: UInt32 { call.id }
    /// What ``state`` guards.
    private struct State {
        /// Requests waiting for their acknowledgement, oldest first.
        var pending: [CheckedContinuation<Wire.SubscriptionEvent.Event, any Error>] = []
        /// The latest snapshot of each followed fetch result, by its id.
        var current: [String: FetchResult<Asset>] = [:]
        /// The task reading the call's events.
        var pump: Task<Void, Never>?
    }

    /// Guards ``State``. A leaf lock: continuations are resumed after it is released.
    private let state = Mutex(State())
    /// Ends ``changes`` when the subscription is cancelled.
    private let backlogContinuation: AsyncThrowingStream<(PhotoLibraryChange, Int), any Error>.Continuation

    init(connection: ClientConnection, call: BidirectionalCall<Wire.SubscriptionRequest, Wire.SubscriptionEvent>) {
        self.connection = connection
        self.call = call
        let streamID = call.id, events = call.payloads
        // Notifications wait here (with their credit not yet returned) until the application
        // takes them from ``changes``, so a slow reader slows the server through flow
        // control — while acknowledgements behind them are still answered at once (a resumed
        // subscription receives its catch-up before the answers to its first requests).
        let (backlog, backlogContinuation) = AsyncThrowingStream<(PhotoLibraryChange, Int), any Error>.makeStream()
        self.backlogContinuation = backlogContinuation
        let reader = ChangeBacklogReader(backlog.makeAsyncIterator(), connection: connection, streamID: streamID)
        self.changes = AsyncThrowingStream { try await reader.next() }
        let pump = Task { [weak self] in
            do {
                for try await payload in events {
                    guard let self else { return }
                    guard let event = try call.response(payload).event else {
                        throw PhotoLibError(.internalError, "a SubscriptionEvent carries no event", reason: .protocolViolation)
                    }
                    switch event {
                    case .registeredAtToken, .registeredFetchResult:
                        self.connection.consumed(payload.count, stream: streamID)
                        let waiter = self.state.withLock { $0.pending.isEmpty ? nil : $0.pending.removeFirst() }
                        waiter?.resume(returning: event)
                    case .change(let notification):
                        backlogContinuation.yield((try self.change(from: notification), payload.count))
                    }
                }
                backlogContinuation.finish()
                self?.failPending(PhotoLibError(.cancelled, "the subscription ended"))
            } catch {
                backlogContinuation.finish(throwing: error)
                self?.failPending(error as? PhotoLibError ?? PhotoLibError(.cancelled, "the subscription ended: \(error)"))
            }
        }
        state.withLock { $0.pump = pump }
        reader.subscription = self
    }

    /// Registers a fetch result obtained on this library connection.
    public func register(_ fetchResult: FetchResult<Asset>) async throws {
        state.withLock { $0.current[fetchResult.fetchResultID] = fetchResult }
        _ = try await request(.registerFetchResult(Wire.RegisterFetchResult(fetchResultID: fetchResult.fetchResultID)))
    }

    /// Fetches with `options` (in a collection, if given) and registers the result at once.
    public func registerFetch(with options: FetchOptions = FetchOptions(), in collection: String? = nil) async throws -> FetchResult<Asset> {
        let event = try await request(.registerFetch(Wire.FetchAssetsRequest(
            options: Wire.FetchOptions(options, collectionIdentifier: collection), prefetchCount: UInt32(FetchResult<Asset>.pageSize))))
        guard case .registeredFetchResult(let registered) = event, let snapshot = registered.snapshot else {
            throw PhotoLibError(.internalError, "the server acknowledged registerFetch without a snapshot", reason: .protocolViolation)
        }
        let result = try FetchResult<Asset>(snapshot: snapshot, connection: connection)
        state.withLock { $0.current[result.fetchResultID] = result }
        return result
    }

    /// Stops following a fetch result (pass the result the subscription knows it as).
    public func unregister(_ fetchResult: FetchResult<Asset>) async throws {
        _ = try await request(.unregisterFetchResult(Wire.UnregisterFetchResult(fetchResultID: fetchResult.fetchResultID)))
    }

    /// Observes objects (assets, albums, folders) by identifier.
    public func register(objects identifiers: [String]) async throws {
        _ = try await request(.registerObjects(Wire.RegisterObjects(localIdentifiers: identifiers)))
    }

    /// Stops observing objects.
    public func unregister(objects identifiers: [String]) async throws {
        _ = try await request(.unregisterObjects(Wire.UnregisterObjects(localIdentifiers: identifiers)))
    }

    /// Ends the subscription.
    public func cancel() {
        connection.cancel(streamID)
        state.withLock { $0.pump }?.cancel()
        backlogContinuation.finish()
    }

    func resume(since token: String) async throws {
        _ = try await request(.resume(Wire.ResumeFrom(sinceToken: token)))
    }

    private func request(_ request: Wire.SubscriptionRequest.Request) async throws -> Wire.SubscriptionEvent.Event {
        try await withCheckedThrowingContinuation { continuation in
            state.withLock { $0.pending.append(continuation) }
            Task {
                do {
                    try await call.send(Wire.SubscriptionRequest(request: request))
                } catch {
                    let waiter: CheckedContinuation<Wire.SubscriptionEvent.Event, any Error>? = state.withLock { state in
                        guard let index = state.pending.firstIndex(where: { _ in true }) else { return nil }
                        return state.pending.remove(at: index)
                    }
                    waiter?.resume(throwing: error)
                }
            }
        }
    }

    private func failPending(_ error: PhotoLibError) {
        let waiting = state.withLock { state -> [CheckedContinuation<Wire.SubscriptionEvent.Event, any Error>] in
            defer { state.pending = [] }
            return state.pending
        }
        for waiter in waiting { waiter.resume(throwing: error) }
    }

    private func change(from notification: Wire.ChangeNotification) throws -> PhotoLibraryChange {
        var results: [String: FetchResultChanges] = [:]
        for message in notification.fetchResultChanges {
            let details = message.details
            let before: FetchResult<Asset> = state.withLock { $0.current[message.fetchResultID] }
                ?? FetchResult(id: message.fetchResultID, count: details.countBefore, connection: connection)
            let objects = message.insertedAndChangedAssets.map(Asset.init)
            let inserted = Array(objects.prefix(details.insertedIndexes.count))
            let changed = Array(objects.dropFirst(details.insertedIndexes.count))
            let after = FetchResult<Asset>(
                id: message.fetchResultAfterID, count: details.countAfter, connection: connection,
                seededFrom: details.hasIncrementalChanges ? before : nil, removed: details.removedIndexes,
                inserted: zip(details.insertedIndexes, inserted).map { $0 }, changed: zip(details.changedIndexes, changed).map { $0 },
                moves: details.moves)
            state.withLock { state in
                state.current[message.fetchResultID] = nil
                state.current[after.fetchResultID] = after
            }
            results[message.fetchResultID] = FetchResultChanges(
                fetchResultBeforeChanges: before, fetchResultAfterChanges: after, details: details,
                insertedObjects: inserted, changedObjects: changed, contentChangedIdentifiers: Set(message.contentChangedIdentifiers))
        }
        var objects: [String: ObjectChanges] = [:]
        for message in notification.objectChanges {
            objects[message.localIdentifier] = ObjectChanges(
                localIdentifier: message.localIdentifier, assetAfterChanges: message.assetAfter.map(Asset.init),
                collectionAfterChanges: try message.collectionAfter.map { (wire) throws(PhotoLibError) in try AssetCollection(wire) },
                collectionListAfterChanges: message.collectionListAfter.map(CollectionList.init),
                assetContentChanged: message.assetContentChanged, objectWasDeleted: message.objectWasDeleted)
        }
        return PhotoLibraryChange(changeToken: notification.changeToken, sinceToken: notification.sinceToken, fetchResults: results, objects: objects)
    }
}

extension PhotoLibrary {
    /// The library's current persistent-change token.
    public func currentChangeToken() async throws -> String {
        try await libraryInfo().currentChangeToken
    }

    /// `fetchPersistentChanges(since:)`: transactions after `token` (nil: from the oldest kept).
    ///
    /// Throws `failedPrecondition` with reason `persistentChangeTokenExpired` when the token is
    /// older than the history the server keeps.
    public func fetchPersistentChanges(since token: String?, limit: Int = 0) async throws -> PersistentChangePage {
        guard limit >= 0 else { throw PhotoLibError(.invalidArgument, "limit (\(limit)) must not be negative") }
        let response = try await connection.unary(
            PhotoLibraryMethods.fetchPersistentChanges, Wire.PersistentChangesRequest(sinceToken: token ?? "", limit: UInt32(clamping: limit)))
        do throws(PhotoLibError) {
            return try PersistentChangePage(response)
        } catch {
            throw PhotoLibError(.internalError, error.message, reason: .protocolViolation)
        }
    }

    /// Starts a change subscription; with `since`, it first delivers every change after that
    /// token (from history), then live ones, with no gap and no duplicate.
    public func subscribe(since token: String? = nil) async throws -> ChangeSubscription {
        let call = try await connection.bidirectional(PhotoLibraryMethods.subscribe)
        let subscription = ChangeSubscription(connection: connection, call: call)
        if let token { try await subscription.resume(since: token) }
        return subscription
    }
}

/// What ``ChangeSubscription/changes`` pulls: the next notification from the backlog, whose
/// credit goes back to the server as the application takes it. Cancelling the task that
/// iterates ends the subscription.
///
/// `@unchecked Sendable`: `backlog` (an iterator) is advanced only by the one task that
/// iterates ``ChangeSubscription/changes`` (an `AsyncThrowingStream` calls its closure
/// once at a time); `subscription` is set once, before the stream can be iterated.
private final class ChangeBacklogReader: @unchecked Sendable {
    private var backlog: AsyncThrowingStream<(PhotoLibraryChange, Int), any Error>.AsyncIterator
    private let connection: ClientConnection
    private let streamID: UInt32
    weak var subscription: ChangeSubscription?

    init(_ backlog: AsyncThrowingStream<(PhotoLibraryChange, Int), any Error>.AsyncIterator, connection: ClientConnection, streamID: UInt32) {
        self.backlog = backlog
        self.connection = connection
        self.streamID = streamID
    }

    func next() async throws -> PhotoLibraryChange? {
        let next = try await withTaskCancellationHandler {
            try await backlog.next()
        } onCancel: { [weak self] in
            self?.subscription?.cancel()
        }
        guard let (change, size) = next else { return nil }
        connection.consumed(size, stream: streamID)
        return change
    }
}
