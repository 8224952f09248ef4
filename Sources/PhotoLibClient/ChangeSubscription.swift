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
    ///
    /// The details are keyed by the *latest* result of each registration: the one registered,
    /// until a change, then that change's ``FetchResultChanges/fetchResultAfterChanges``.
    /// Passing an older result (the one first registered, after a change to it) answers `nil`
    /// too, as in PhotoKit, where you replace your stored result with the result after the
    /// changes each time:
    ///
    /// ```swift
    /// var assets = try await subscription.registerFetch()
    /// for try await change in subscription.changes {
    ///     guard let details = change.changeDetails(for: assets) else { continue }
    ///     assets = details.fetchResultAfterChanges
    ///     // update the UI from details.removedIndexes, insertedIndexes, changedIndexes, moves
    /// }
    /// ```
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
/// objects, then iterate ``changes`` — or, opened with a change handler
/// (``PhotoLibrary/subscribe(since:changeHandler:)``), have each change handed to it. The
/// subscription follows each registered fetch result: after a change,
/// ``FetchResultChanges/fetchResultAfterChanges`` is what later changes are relative to.
public final class ChangeSubscription: Sendable {
    /// The changes, in token order. Iterating slowly slows the server's sending down
    /// (flow control); a subscriber far behind receives a resync instead of a backlog.
    /// A subscription with a change handler delivers there instead: this sequence is empty.
    public let changes: Changes

    /// The changes of a subscription, in token order (``ChangeSubscription/changes``): an
    /// asynchronous sequence that one task iterates at a time. It ends (`nil`) when the
    /// subscription does: after throwing the error it ended with, once, if it failed.
    /// Cancelling the task that waits for a change cancels the subscription.
    public struct Changes: AsyncSequence, Sendable {
        /// A change.
        public typealias Element = PhotoLibraryChange
        let backlog: ChangeBacklog

        /// An iterator over the changes (one task at a time: a second one waiting at once
        /// gets `failedPrecondition`).
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(backlog: backlog)
        }

        /// Reads a subscription's changes.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let backlog: ChangeBacklog

            /// The next change, waiting until it arrives; `nil` once the subscription ended.
            public mutating func next() async throws -> PhotoLibraryChange? {
                try await backlog.next()
            }
        }
    }

    private let connection: ClientConnection
    /// The call; its id is set once it is open (before ``open(on:)`` returns).
    private let stream: ClientStream
    private var streamID: UInt32 { stream.id }
    /// Takes the call's events on the connection's queue.
    private let events: SubscriptionEvents
    /// The connection's registration results, shared by its subscriptions.
    private let registrations: SharedRegistrations

    private init(
        connection: ClientConnection, stream: ClientStream, events: SubscriptionEvents, registrations: SharedRegistrations,
        changes: Changes
    ) {
        self.connection = connection
        self.stream = stream
        self.events = events
        self.registrations = registrations
        self.changes = changes
    }

    /// Opens a `Subscribe` call on `connection`, whose subscriptions share `shared`; changes
    /// go to `handler` if given, else to ``changes``.
    static func open(
        on connection: ClientConnection, sharing shared: SharedChangeDecoding, registrations: SharedRegistrations,
        handler: (@Sendable (Result<PhotoLibraryChange, any Error>) -> Void)? = nil
    ) async throws -> ChangeSubscription {
        let stream = ClientStream(method: PhotoLibraryMethods.subscribe.info)
        if let handler {
            let events = SubscriptionEvents(connection: connection, stream: stream, shared: shared, delivery: .handler(handler))
            try await connection.openBidirectional(stream, consumer: events)
            return ChangeSubscription(
                connection: connection, stream: stream, events: events, registrations: registrations,
                changes: Changes(backlog: .ended(connection: connection, stream: stream)))
        }
        // Notifications wait in the backlog (with their credit not yet returned) until the
        // application takes them from ``changes``, so a slow reader slows the server through
        // flow control — while acknowledgements behind them are still answered at once (a
        // resumed subscription receives its catch-up before the answers to its first requests).
        let backlog = ChangeBacklog(connection: connection, stream: stream)
        let events = SubscriptionEvents(connection: connection, stream: stream, shared: shared, delivery: .backlog(backlog))
        try await connection.openBidirectional(stream, consumer: events)
        return ChangeSubscription(connection: connection, stream: stream, events: events, registrations: registrations, changes: Changes(backlog: backlog))
    }

    /// Registers a fetch result obtained on this library connection.
    ///
    /// A result fetched through another `PhotoLibrary` (another connection, whose snapshots
    /// this server connection does not know) is refused before anything is sent, with
    /// `invalidArgument`: fetch it again on this subscription's library, or use
    /// ``registerFetch(with:in:)``.
    public func register(_ fetchResult: FetchResult<Asset>) async throws {
        guard fetchResult.connection === connection else {
            throw PhotoLibError(
                .invalidArgument,
                "fetch result \(fetchResult.fetchResultID) belongs to another connection (another PhotoLibrary): a snapshot lives on the connection that fetched it; fetch again through this subscription's library, or use registerFetch")
        }
        events.follow(fetchResult)
        _ = try await request(.registerFetchResult(Wire.RegisterFetchResult(fetchResultID: fetchResult.fetchResultID)))
    }

    /// Fetches with `options` (in a collection, if given) and registers the result at once.
    public func registerFetch(with options: FetchOptions = FetchOptions(), in collection: String? = nil) async throws -> FetchResult<Asset> {
        let event = try await request(.registerFetch(Wire.FetchAssetsRequest(
            options: try Wire.FetchOptions(options, collectionIdentifier: collection), prefetchCount: UInt32(FetchResult<Asset>.pageSize))))
        guard case .registeredFetchResult(let registered) = event, let snapshot = registered.snapshot else {
            throw PhotoLibError(.internalError, "the server acknowledged registerFetch without a snapshot", reason: .protocolViolation)
        }
        let result = try registrations.result(for: snapshot, connection: connection)
        events.follow(result)
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
        // The sequence ends (in order) before the call's end can reach it: ended the other
        // way round, the connection's CANCELLED could fail a read that must answer nil.
        events.endBacklog()
        connection.cancel(streamID)
    }

    func resume(since token: String) async throws {
        _ = try await request(.resume(Wire.ResumeFrom(sinceToken: token)))
    }

    private func request(_ request: Wire.SubscriptionRequest.Request) async throws -> Wire.SubscriptionEvent.Event {
        let payload = Wire.SubscriptionRequest(request: request).encoded()
        let connection = self.connection, streamID = self.streamID, events = self.events
        return try await withCheckedThrowingContinuation { continuation in
            // Waiting before the request leaves: its acknowledgement cannot come first.
            events.awaitAcknowledgement(continuation)
            Task {
                do {
                    try await connection.send(payload, stream: streamID, endStream: false)
                } catch {
                    events.failOldestPending(error)
                }
            }
        }
    }
}

/// The events of one subscription, taken on the connection's queue as they arrive (no task
/// per event): acknowledgements resume the request waiting for them, notifications become
/// ``PhotoLibraryChange`` values in the backlog that ``ChangeSubscription/changes`` reads, or
/// go to the subscription's change handler.
/// A change the server fans out to several subscriptions of one connection arrives as the
/// same bytes on each and is decoded and built once (``SharedChangeDecoding``).
///
/// `@unchecked Sendable`: `receive`/`finish` run on the connection's queue; what requests
/// touch too is in ``state``, behind its `Mutex`.
private final class SubscriptionEvents: ResponseConsumer, @unchecked Sendable {
    /// What ``state`` guards.
    private struct State {
        /// Requests waiting for their acknowledgement, oldest first.
        var pending: [CheckedContinuation<Wire.SubscriptionEvent.Event, any Error>] = []
        /// The latest snapshot of each followed fetch result, by its id.
        var current = FollowedResults()
        /// Why the call ended, once it has: later requests fail with it (a subscription the
        /// server refused says why, not just that the call is over).
        var ended: PhotoLibError?
    }

    /// Guards ``State``. A leaf lock: continuations are resumed after it is released.
    private let state = Mutex(State())
    private let connection: ClientConnection
    private let stream: ClientStream
    /// Where changes go.
    enum Delivery {
        /// To the backlog ``ChangeSubscription/changes`` reads, with each message's size (its
        /// credit goes back when the application takes it).
        case backlog(ChangeBacklog)
        /// To a handler on the connection's queue (credit goes back as it returns).
        case handler(@Sendable (Result<PhotoLibraryChange, any Error>) -> Void)
    }

    /// The ``Delivery``, as two optionals: a change is handed on without copying an enum
    /// out (its generic copy retained the handler's context for every notification).
    private let handler: (@Sendable (Result<PhotoLibraryChange, any Error>) -> Void)?
    private let backlog: ChangeBacklog?
    /// Shared with the connection's other subscriptions.
    private let shared: SharedChangeDecoding

    init(connection: ClientConnection, stream: ClientStream, shared: SharedChangeDecoding, delivery: Delivery) {
        self.connection = connection
        self.shared = shared
        self.stream = stream
        switch delivery {
        case .handler(let handler):
            (self.handler, backlog) = (handler, nil)
        case .backlog(let backlog):
            (handler, self.backlog) = (nil, backlog)
        }
        returnsCreditOnReceipt = handler != nil
    }

    /// A backlog keeps each notification's credit until the application takes it; a
    /// handler's credit goes back as it returns (the connection's queue waits for it).
    let returnsCreditOnReceipt: Bool

    func receive(_ payload: [UInt8]) throws(PhotoLibError) {
        let entry = try shared.entry(payload)
        guard let event = entry.event.event else {
            throw PhotoLibError(.internalError, "a SubscriptionEvent carries no event", reason: .protocolViolation)
        }
        switch event {
        case .registeredAtToken, .registeredFetchResult:
            if !returnsCreditOnReceipt { connection.consumed(payload.count, stream: stream.id) }
            let waiter = state.withLock { $0.pending.isEmpty ? nil : $0.pending.removeFirst() }
            waiter?.resume(returning: event)
        case .change(let notification):
            let change = try sharedOrNewChange(from: notification, entry: entry)
            if let handler {
                handler(.success(change))
            } else {
                backlog?.append(change, size: payload.count)
            }
        }
    }

    func finish(_ error: PhotoLibError?) {
        if let handler {
            if let error { handler(.failure(error)) }
        } else {
            backlog?.finish(error)
        }
        let reason = error ?? PhotoLibError(.cancelled, "the subscription ended")
        state.withLock { $0.ended = reason }
        failPending(reason)
    }

    /// Follows `fetchResult`: changes to it are relative to it.
    func follow(_ fetchResult: FetchResult<Asset>) {
        state.withLock { $0.current[fetchResult.fetchResultID] = fetchResult }
    }

    /// `continuation` gets the acknowledgement of the next request sent.
    /// When the call has ended already, `continuation` fails at once with why it ended.
    func awaitAcknowledgement(_ continuation: CheckedContinuation<Wire.SubscriptionEvent.Event, any Error>) {
        let ended: PhotoLibError? = state.withLock { state in
            if let ended = state.ended { return ended }
            state.pending.append(continuation)
            return nil
        }
        if let ended { continuation.resume(throwing: ended) }
    }

    /// A request could not be sent: the oldest waiting request fails with `error`, or with
    /// why the call ended when it has (the server's refusal rather than "the call has ended").
    func failOldestPending(_ error: any Error) {
        let (waiter, ended) = state.withLock { state in
            (state.pending.isEmpty ? nil : state.pending.removeFirst(), state.ended)
        }
        waiter?.resume(throwing: ended ?? error)
    }

    /// Ends ``ChangeSubscription/changes`` (the subscription was cancelled).
    func endBacklog() {
        backlog?.finish(nil)
    }

    private func failPending(_ error: PhotoLibError) {
        let waiting = state.withLock { state -> [CheckedContinuation<Wire.SubscriptionEvent.Event, any Error>] in
            defer { state.pending = [] }
            return state.pending
        }
        for waiter in waiting { waiter.resume(throwing: error) }
    }

    /// The change `notification` (the event of `entry`) makes for this subscription: the one
    /// another subscription of the connection built from the same bytes, or a new one (then
    /// offered to the next).
    private func sharedOrNewChange(from notification: Wire.ChangeNotification, entry: SharedChangeDecoding.Entry) throws(PhotoLibError) -> PhotoLibraryChange {
        let reused: PhotoLibraryChange? = state.withLock { state in
            guard let (change, after) = entry.sharedChange(current: { state.current[$0] }) else { return nil }
            for message in notification.fetchResultChanges {
                state.current.replace(message.fetchResultID, with: after[message.fetchResultAfterID])
            }
            return change
        }
        if let reused { return reused }
        let before = state.withLock { state in
            Dictionary(notification.fetchResultChanges.map { ($0.fetchResultID, state.current[$0.fetchResultID]) }, uniquingKeysWith: { first, _ in first })
        }
        let change = try change(from: notification)
        var after: [String: FetchResult<Asset>] = [:]
        for details in change.changedFetchResults { after[details.fetchResultAfterChanges.fetchResultID] = details.fetchResultAfterChanges }
        entry.change = (change, before, after)
        return change
    }

    private func change(from notification: Wire.ChangeNotification) throws(PhotoLibError) -> PhotoLibraryChange {
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
                state.current.replace(message.fetchResultID, with: after)
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
        let subscription = try await ChangeSubscription.open(on: connection, sharing: sharedChangeDecoding, registrations: sharedRegistrations)
        if let token { try await subscription.resume(since: token) }
        return subscription
    }

    /// PhotoKit's `register(_:)` of a `PHPhotoLibraryChangeObserver`: a subscription whose
    /// changes go to `changeHandler` as they arrive (``ChangeSubscription/changes`` stays
    /// empty), or, once, the error that ended it (`cancelled` after
    /// ``ChangeSubscription/cancel()``, a lost connection, the server's status). With `since`,
    /// as in ``subscribe(since:)``.
    ///
    /// As in PhotoKit, the handler runs on a serial queue: this connection's, so it should
    /// return quickly (hand longer work to a queue or task of your own): while it runs, the
    /// connection's other calls wait, and its flow-control credit goes back only as it
    /// returns. No task is involved, which makes this the cheapest way to follow many
    /// subscriptions.
    public func subscribe(
        since token: String? = nil, changeHandler: @escaping @Sendable (Result<PhotoLibraryChange, any Error>) -> Void
    ) async throws -> ChangeSubscription {
        let subscription = try await ChangeSubscription.open(on: connection, sharing: sharedChangeDecoding, registrations: sharedRegistrations, handler: changeHandler)
        if let token { try await subscription.resume(since: token) }
        return subscription
    }
}

/// The latest snapshot of each fetch result a subscription follows, by id. A handful at most
/// (one per registration, which the server bounds per connection), looked up on every change:
/// a list compared by id (a short id compares in a word or two) instead of a hashed map.
struct FollowedResults {
    private var entries: [(id: String, result: FetchResult<Asset>)] = []

    /// The snapshot followed as `id`.
    subscript(id: String) -> FetchResult<Asset>? {
        get { entries.first { $0.id == id }?.result }
        set {
            guard let index = entries.firstIndex(where: { $0.id == id }) else {
                if let newValue { entries.append((id, newValue)) }
                return
            }
            if let newValue { entries[index].result = newValue } else { entries.remove(at: index) }
        }
    }

    /// The result followed as `id` is now `after` (followed by its own id), or, when `after`
    /// is `nil`, no longer followed.
    mutating func replace(_ id: String, with after: FetchResult<Asset>?) {
        guard let index = entries.firstIndex(where: { $0.id == id }) else {
            if let after { self[after.fetchResultID] = after }
            return
        }
        if let after { entries[index] = (after.fetchResultID, after) } else { entries.remove(at: index) }
    }
}
