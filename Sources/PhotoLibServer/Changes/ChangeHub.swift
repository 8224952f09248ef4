import Dispatch
import Foundation
import Logging
import PhotoLibCore
import PhotoLibStore
import PhotoLibWire

/// Turns committed transactions into PhotoKit change notifications for every subscriber.
///
/// Every transaction — this server's, or another process's (`photolibd import`) — is in the
/// store's change log; the hub reads the log after each of its own commits and polls the
/// current token otherwise. All state lives on ``queue``; store reads finish before anything
/// is sent (no statement is open while waiting on the network).
///
/// `@unchecked Sendable`: every `var` below is read and written only on ``queue`` (callers
/// hop there with `async`, or `sync` from the server's own queue in ``start()``/``stop()``).
final class ChangeHub: @unchecked Sendable {
    /// Serial; runs change processing, subscription requests and the poll timer. Blocks on
    /// the store (the library's lock, SQLite) and on a pending snapshot's background read
    /// (`registerFetchResult` of a `FetchAssets` snapshot); never on the network.
    let queue = DispatchQueue(label: "photolibd.changes")
    private let library: PhotoLibrary
    private let logger: Logger
    private let pollInterval: Double
    private let maxQueuedPerSubscriber: Int
    /// The registration limits (per connection, server-wide); see ``checkRoomForRegistration(_:query:)``.
    private let limits: ObservationLimits
    private var timer: (any DispatchSourceTimer)?
    private(set) var lastToken: Int64 = 0
    /// Live results by query, with how many registrations hold each (dropped at zero).
    private var entries: [AssetQuery: (entry: LiveEntry, references: Int)] = [:]
    private var subscribers: [UInt64: Subscriber] = [:]
    /// Whether ``stop()`` ran: a subscriber made after it is finished at once (its Subscribe
    /// call ends like the others, instead of running until the grace period ends).
    private var stopped = false
    /// ``subscribers`` grouped by connection, in the order a round visits them: a connection's
    /// subscribers one after the other, so its state is touched once per round while warm,
    /// and its queue can write their notifications while the round goes on with the next
    /// connection. `nil` when a subscriber came or went since it was last made.
    private var deliveryOrder: [Subscriber]?
    private var nextSubscriberID: UInt64 = 1
    /// The registration keys (``Subscriber/results``) of each connection's subscribers, with
    /// how many registrations use each. A key may be a live result's version id, shared by
    /// every subscriber that registered the fetch at that version (``apply(_:for:)``), so a
    /// round releasing a subscriber's before-snapshot spares it while it is a key on the
    /// connection (the client's first `FetchResult` of the registration reads it).
    private var registrationKeys: [UInt64: [String: Int]] = [:]

    init(library: PhotoLibrary, logger: Logger, pollInterval: Double, maxQueuedPerSubscriber: Int, limits: ObservationLimits = ObservationLimits()) {
        self.limits = limits
        self.library = library
        self.logger = logger
        self.pollInterval = pollInterval
        self.maxQueuedPerSubscriber = maxQueuedPerSubscriber
    }

    func start() {
        queue.sync { lastToken = (try? library.currentChangeToken()) ?? 0 }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + pollInterval, repeating: pollInterval)
        timer.setEventHandler { [weak self] in self?.process() }
        timer.resume()
        self.timer = timer
    }

    func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
            stopped = true
            for subscriber in subscribers.values { subscriber.finish() }
            subscribers = [:]
            deliveryOrder = nil
        }
    }

    /// Called after this server commits: process at once instead of at the next poll.
    func committed() {
        queue.async { self.process() }
    }

    // MARK: Subscribers

    /// A new subscriber at ``lastToken``, made on ``queue`` (awaited, not waited for: the
    /// queue may be busy reading the store).
    /// `limitedTo`: the limited client whose selection the subscription sees.
    func makeSubscriber(session: ConnectionSession, limitedTo: String? = nil) async -> Subscriber {
        await withCheckedContinuation { continuation in
            queue.async {
                let subscriber = Subscriber(id: self.nextSubscriberID, session: session, maxQueued: self.maxQueuedPerSubscriber, limitedTo: limitedTo)
                self.nextSubscriberID += 1
                subscriber.token = self.lastToken
                if self.stopped {
                    subscriber.finish()
                } else {
                    self.subscribers[subscriber.id] = subscriber
                    self.deliveryOrder = nil
                }
                continuation.resume(returning: subscriber)
            }
        }
    }

    func remove(_ subscriber: Subscriber) {
        queue.async {
            subscriber.finish()
            self.subscribers[subscriber.id] = nil
            self.deliveryOrder = nil
            for (key, registration) in subscriber.results {
                self.release(registration.entry)
                self.forgetKey(key, of: subscriber)
            }
            subscriber.results = [:]
        }
    }

    private func rememberKey(_ key: String, of subscriber: Subscriber) {
        registrationKeys[subscriber.session.connectionID, default: [:]][key, default: 0] += 1
    }

    private func forgetKey(_ key: String, of subscriber: Subscriber) {
        let connection = subscriber.session.connectionID
        guard let held = registrationKeys[connection]?[key] else { return }
        registrationKeys[connection]?[key] = held > 1 ? held - 1 : nil
        if registrationKeys[connection]?.isEmpty == true { registrationKeys[connection] = nil }
    }

    /// The subscribers grouped by connection (by connection id, then subscriber id): the
    /// order a round visits them in, kept until a subscriber comes or goes.
    private func orderedSubscribers() -> [Subscriber] {
        if let deliveryOrder { return deliveryOrder }
        let order = subscribers.values.sorted { ($0.session.connectionID, $0.id) < ($1.session.connectionID, $1.id) }
        deliveryOrder = order
        return order
    }

    /// Whether a subscriber on `connection` other than `subscriber` follows snapshot `id` or
    /// keeps it pinned. Looks at the connection's subscribers (found by binary search in
    /// ``orderedSubscribers()``): for resyncs only, a slow subscriber's path.
    private func isHeld(_ id: String, on connection: UInt64, besides subscriber: Subscriber) -> Bool {
        let order = orderedSubscribers()
        var low = 0, high = order.count
        while low < high {
            let middle = (low + high) / 2
            if order[middle].session.connectionID < connection { low = middle + 1 } else { high = middle }
        }
        for other in order[low...] {
            guard other.session.connectionID == connection else { break }
            if other !== subscriber && other.results.values.contains(where: { $0.snapshotID == id || $0.pinned.contains(id) }) { return true }
        }
        return false
    }

    /// Whether `id` is the key of a registration of a subscriber on `connection`.
    private func isRegistrationKey(_ id: String, on connection: UInt64) -> Bool {
        registrationKeys[connection]?[id] != nil
    }

    /// Applies one request of a subscriber, in order with change processing.
    func handle(_ request: Wire.SubscriptionRequest, for subscriber: Subscriber) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                do {
                    try self.apply(request, for: subscriber)
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    private func apply(_ request: Wire.SubscriptionRequest, for subscriber: Subscriber) throws(PhotoLibError) {
        process()
        defer { subscriber.started = true }
        switch request.request {
        case nil:
            // A member this server does not know (a newer client): skipped, and answered like
            // every request so that the client's acknowledgements stay in step.
            break
        case .resume(let resume)?:
            let text = resume.sinceToken
            guard !subscriber.started else {
                throw PhotoLibError(.invalidArgument, "resume must be the first request of a subscription")
            }
            // Empty: from now (nothing to catch up), whatever history was pruned.
            try catchUp(subscriber, since: text.isEmpty ? lastToken : try Self.token(text))
        case .registerFetch(let fetch)?:
            var scoped = try (fetch.options ?? Wire.FetchOptions()).assetQuery()
            scoped.limitedTo = subscriber.limitedTo
            try checkRoomForRegistration(subscriber, query: scoped)
            let entry = try self.entry(for: scoped)
            let listing = entry.currentListing()
            // The live version's id, the same for every subscriber registering this fetch at
            // this version, so that their first notifications are the same bytes too (built,
            // encoded and decoded once per connection, not once per subscriber); a second
            // registration of it in one subscription gets an id of its own.
            let shared = entry.snapshotID(version: listing.version)
            let (snapshotID, expiresAt) = subscriber.results[shared] == nil
                ? subscriber.session.fetchResults.add(.assets(listing), id: shared) : subscriber.session.fetchResults.add(.assets(listing))
            subscriber.results[snapshotID] = Subscriber.Registration(entry: entry, snapshotID: snapshotID, count: listing.count)
            rememberKey(snapshotID, of: subscriber)
            let prefetchIDs = try listing.identifiers(in: 0..<min(listing.count, min(Int(fetch.prefetchCount), 1000)))
            let prefetch = try library.assets(withIdentifiers: prefetchIDs)
            let snapshot = PhotoLibraryService.fitting(prefetch, within: subscriber.session.maxResponseSize) { objects in
                Wire.FetchResultSnapshot(
                    fetchResultID: snapshotID, objectType: .asset, count: UInt64(listing.count), expiresAtMs: Wire.milliseconds(expiresAt),
                    assets: objects.map(Wire.Asset.init))
            }
            subscriber.enqueue(.registeredFetchResult(Wire.RegisteredFetch(snapshot: snapshot, registeredToken: String(subscriber.token))))
            return
        case .registerFetchResult(let register)?:
            let id = register.fetchResultID
            guard case .assets(let listing) = try subscriber.session.fetchResults.use(id) else {
                throw PhotoLibError(.invalidArgument, "fetch result \(id) holds collections; only asset fetch results can be observed")
            }
            guard subscriber.results[id] == nil else { break }
            guard listing.query.limitedTo == subscriber.limitedTo else {
                // A snapshot of another view (the client's access changed since): refetch.
                throw PhotoLibError(.failedPrecondition, "fetch result \(id) was made with other access rights than this subscription's; fetch again", reason: .fetchResultExpired)
            }
            try checkRoomForRegistration(subscriber, query: listing.query)
            let entry = try self.entry(for: listing.query)
            let current = entry.currentListing()
            subscriber.results[id] = Subscriber.Registration(entry: entry, snapshotID: id, count: listing.count)
            rememberKey(id, of: subscriber)
            let snapshotIDs = try listing.identifiers(in: 0..<listing.count)
            let currentIDs = entry.currentIdentifiers()
            // Assets whose values may have changed since the snapshot was read (a favourite
            // set meanwhile moves nothing but must reach the client); `nil` when the history
            // no longer reaches back that far (then the client gets a resync).
            let touched = try assetsTouched(since: listing.changeToken)
            let changed = touched.map { $0.intersection(snapshotIDs).intersection(currentIDs) } ?? []
            if snapshotIDs != currentIDs || !changed.isEmpty || touched == nil {
                // The snapshot predates changes the entry has seen: bring it up to date.
                let (afterID, _) = subscriber.session.fetchResults.add(.assets(current))
                let details = touched == nil
                    ? FetchResultChangeDetails(nonIncrementalFrom: snapshotIDs.count, to: currentIDs.count)
                    : FetchResultChangeDetails.diff(before: snapshotIDs, after: currentIDs, changed: changed)
                subscriber.results[id] = Subscriber.Registration(entry: entry, snapshotID: afterID, count: current.count)
                subscriber.enqueue(.registeredAtToken(String(subscriber.token)))
                let message = fetchMessage(beforeID: id, afterID: afterID, details: details, objects: try insertedAndChanged(details, in: current, known: [:]), contentChanged: [])
                subscriber.enqueue(.change(Wire.ChangeNotification(changeToken: String(subscriber.token), fetchResultChanges: [message], sinceToken: String(subscriber.token))))
                return
            }
        case .unregisterFetchResult(let unregister)?:
            // By the id it was registered with, or by any later snapshot id the client got
            // for it (each notification's after-snapshot).
            let id = unregister.fetchResultID
            let key = subscriber.results[id] != nil ? id : subscriber.results.first(where: { $0.value.snapshotID == id })?.key
            if let key, let registration = subscriber.results.removeValue(forKey: key) {
                release(registration.entry)
                forgetKey(key, of: subscriber)
            }
        case .registerObjects(let register)?:
            for id in register.localIdentifiers { try LocalIdentifier.validate(id) }
            let added = Set(register.localIdentifiers).subtracting(subscriber.objects)
            guard subscriber.objects.count + added.count <= limits.maxObjectsPerSubscription else {
                throw PhotoLibError(
                    .resourceExhausted,
                    "a subscription observes at most \(limits.maxObjectsPerSubscription) objects; it has \(subscriber.objects.count) and asked for \(added.count) more")
            }
            subscriber.objects.formUnion(added)
        case .unregisterObjects(let unregister)?:
            subscriber.objects.subtract(unregister.localIdentifiers)
        }
        subscriber.enqueue(.registeredAtToken(String(subscriber.token)))
    }

    static func token(_ text: String) throws(PhotoLibError) -> Int64 {
        if text.isEmpty { return 0 }
        guard let value = Int64(text), value >= 0 else {
            throw PhotoLibError(.invalidArgument, "'\(text.prefix(40))' is not a change token (a decimal number from a notification or photolib token)")
        }
        return value
    }

    /// The most asset changes read from history to bring a registered snapshot up to date;
    /// beyond it the client gets a resync of that result.
    static let maxCatchUpObjects = 100_000

    /// The assets touched by transactions after `token` up to ``lastToken``; empty when
    /// `token` is current, `nil` when it is unknown, the history no longer reaches back to
    /// it, or more than ``maxCatchUpObjects`` changes would have to be read.
    private func assetsTouched(since token: Int64?) throws(PhotoLibError) -> Set<String>? {
        guard let token else { return nil }
        guard token < lastToken else { return [] }
        var touched = Set<String>()
        var cursor = token
        var read = 0
        do {
            while cursor < lastToken {
                let page = try library.persistentChanges(since: cursor, limit: 500)
                for change in page.changes where change.token <= lastToken {
                    for object in change.objects where object.objectType == .asset { touched.insert(object.identifier) }
                    read += change.objects.count
                    cursor = change.token
                }
                guard read <= Self.maxCatchUpObjects else { return nil }
                guard page.hasMore, !page.changes.isEmpty else { break }
            }
        } catch where error.reason == .persistentChangeTokenExpired {
            return nil
        }
        return touched
    }

    /// Throws `resourceExhausted` when `subscriber`'s connection already holds
    /// ``ObservationLimits/maxRegistrationsPerConnection`` registrations, or when `query` would
    /// be a new live result beyond ``ObservationLimits/maxLiveResults`` server-wide (each
    /// distinct live result keeps its whole listing in memory; results shared by several
    /// subscribers cost one).
    private func checkRoomForRegistration(_ subscriber: Subscriber, query: AssetQuery) throws(PhotoLibError) {
        let connection = subscriber.session.connectionID
        let held = subscribers.values.reduce(0) { $0 + ($1.session.connectionID == connection ? $1.results.count : 0) }
        guard held < limits.maxRegistrationsPerConnection else {
            throw PhotoLibError(
                .resourceExhausted,
                "this connection observes \(held) fetch results, the server's limit per connection; unregister some before registering more")
        }
        guard entries[query] == nil else { return }
        guard entries.count < limits.maxLiveResults else {
            throw PhotoLibError(
                .resourceExhausted,
                "the server keeps \(entries.count) distinct live fetch results, its limit; retry later, or observe a fetch others observe already")
        }
        let liveBytes = liveResultBytes
        guard liveBytes < limits.maxLiveResultBytes else {
            throw PhotoLibError(
                .resourceExhausted,
                "the server's live fetch results hold \(liveBytes >> 20) MiB, their share of its memory limit; retry later, or observe a fetch others observe already")
        }
    }

    /// How many distinct live results and registrations the hub holds (for stats); waits
    /// for the hub's queue.
    var registrationCounts: (liveResults: Int, registrations: Int) {
        queue.sync { (entries.count, subscribers.values.reduce(0) { $0 + $1.results.count }) }
    }

    /// The live-result limit.
    var liveResultLimit: Int { limits.maxLiveResults }

    /// The estimated bytes the live results hold (on the hub's queue).
    private var liveResultBytes: Int {
        entries.values.reduce(0) { $0 + $1.entry.memberCount * ServerConfiguration.liveResultBytesPerAsset }
    }

    /// What the live results hold: (count, estimated bytes, byte limit); waits for the hub's queue.
    var liveResultUsage: (count: Int, bytes: Int, byteLimit: Int) {
        queue.sync { (entries.count, liveResultBytes, limits.maxLiveResultBytes) }
    }

    private func entry(for query: AssetQuery) throws(PhotoLibError) -> LiveEntry {
        if let existing = entries[query] {
            entries[query]?.references += 1
            return existing.entry
        }
        let albumOrdered = query.sortDescriptors.isEmpty && query.collection.map { !$0.hasPrefix("smart-") } == true
        let entry = try LiveEntry.build(query: query, library: library, albumOrdered: albumOrdered)
        entries[query] = (entry, 1)
        return entry
    }

    private func release(_ entry: LiveEntry) {
        guard let held = entries[entry.query], held.entry === entry else { return }
        if held.references <= 1 { entries[entry.query] = nil } else { entries[entry.query]?.references -= 1 }
    }

    // MARK: Catch-up

    /// Queues a notification per transaction after `since` (from history), then the
    /// subscriber continues live from ``lastToken``: no gap, no duplicate.
    private func catchUp(_ subscriber: Subscriber, since: Int64) throws(PhotoLibError) {
        guard since <= lastToken else {
            throw PhotoLibError(.invalidArgument, "change token \(since) is newer than the library's current token \(lastToken)")
        }
        var cursor = since
        // A limited subscriber's history holds only its selection's assets.
        let history = subscriber.limitedTo.map(library.limited(to:)) ?? library
        while cursor < lastToken {
            let page = try history.persistentChanges(since: cursor, limit: 500)
            for change in page.changes where change.token <= lastToken {
                let objects = try objectMessages(change.objects.map(\.identifier), changes: change.objects)
                let notification = Wire.ChangeNotification(changeToken: String(change.token), objectChanges: objects, sinceToken: String(cursor))
                subscriber.enqueue(.change(notification)) { replaced in self.resync(subscriber, replacing: replaced) }
                cursor = change.token
            }
            guard page.hasMore, !page.changes.isEmpty else { break }
        }
        subscriber.token = lastToken
    }

    // MARK: Processing

    /// Reads every transaction after ``lastToken`` and notifies subscribers.
    func process() {
        guard let current = try? library.currentChangeToken(), current > lastToken else { return }
        do {
            var changes: [ObjectChange] = []
            var cursor = lastToken
            while true {
                let page = try library.persistentChanges(since: cursor, limit: 1000)
                changes += page.changes.flatMap(\.objects)
                cursor = page.nextToken(after: cursor)
                if !page.hasMore || page.changes.isEmpty { break }
            }
            try deliver(changes, through: max(cursor, current))
        } catch {
            logger.warning("change feed: \(error.message); resynchronizing subscribers")
            let token = current
            for subscriber in subscribers.values { forceResync(subscriber, through: token) }
            lastToken = token
        }
    }

    /// Delivers `changes` to every subscriber. With `selectionOf`, the changes are a limited
    /// client's selection changing (no transaction: the token stays): only that client's live
    /// results and subscribers take part, and the assets in `leftSelection` read as deleted
    /// to it.
    private func deliver(
        _ changes: [ObjectChange], through token: Int64, selectionOf client: String? = nil, leftSelection: Set<String> = []
    ) throws(PhotoLibError) {
        var touched: [String] = []
        var seen = Set<String>()
        var contentChanged = Set<String>()
        var albums = Set<String>()
        for change in changes {
            switch change.objectType {
            case .asset:
                if seen.insert(change.identifier).inserted { touched.append(change.identifier) }
                if change.assetContentChanged { contentChanged.insert(change.identifier) }
            case .assetCollection:
                albums.insert(change.identifier)
            case .collectionList:
                break
            }
        }
        let values = Dictionary(try library.assets(withIdentifiers: touched).map { ($0.localIdentifier, $0) }, uniquingKeysWith: { first, _ in first })
        // Per changed live result, once: its details, its new version, and the assets at its
        // inserted and changed indexes (every subscriber of the result gets the same ones).
        var results: [ObjectIdentifier: (details: FetchResultChangeDetails, listing: LiveAssetListing, objects: [Asset], afterID: String)] = [:]
        for (entry, _) in entries.values where client == nil || entry.query.limitedTo == client {
            let candidates = entry.query.identifiers.map { allowed in touched.filter(Set(allowed).contains) } ?? touched
            let matching = try library.matchingIdentifiers(entry.query, among: candidates)
            let albumChanged = entry.query.collection.map(albums.contains) ?? false
            if let details = try entry.apply(touched: touched, matching: matching, values: values, contentChanged: contentChanged, albumChanged: albumChanged, library: library) {
                let listing = entry.currentListing()
                results[ObjectIdentifier(entry)] = (details, listing, try insertedAndChanged(details, in: listing, known: values), entry.snapshotID(version: listing.version))
            }
        }
        // Object details, once for the round, if anyone observes objects.
        let changedObjects = changes.map(\.identifier)
        // One pass over the subscribers: the objects observed, and the limited clients observing some.
        var observed = Set<String>()
        var observing = Set<String>()
        for subscriber in subscribers.values where !subscriber.objects.isEmpty {
            observed.formUnion(subscriber.objects)
            if let limited = subscriber.limitedTo { observing.insert(limited) }
        }
        observed.formIntersection(changedObjects)
        let objectDetails = Dictionary(
            try objectMessages(changedObjects.filter(observed.contains), changes: changes.filter { observed.contains($0.identifier) }).map { ($0.localIdentifier, $0) },
            uniquingKeysWith: { first, _ in first })
        // What each limited client observing objects may hear about: the assets of its
        // selection (albums and folders are visible to it), computed once per client for the round.
        let changedAssets = changes.filter { $0.objectType == .asset }.map(\.identifier)
        var visibleAssets: [String: Set<String>] = [:]
        for limited in observing where client == nil || limited == client {
            visibleAssets[limited] = try library.limited(to: limited).visibleIdentifiers(among: changedAssets)
        }
        // Fan-out: every subscriber of a live result gets the same snapshot id for its new
        // version (``LiveEntry/snapshotID(version:)``), so the fetch-result message for one
        // (result, before-snapshot) pair is built once, and a notification made only of such
        // messages is encoded once for all the subscribers it is the same for (in steady state:
        // every subscriber of the result). Only per-subscriber state differs: its registry, its
        // token, its queue and credit.
        // The round's fetch-result messages, each built once, by index; a subscriber's
        // notification is named by the indexes of its messages (integers hash cheaply).
        var messageIndex: [MessageKey: Int] = [:]
        var messages: [Wire.FetchResultChangeDetails] = []
        var outgoingCache: [GroupKey: Subscriber.Outgoing] = [:]
        // Snapshot registrations already refreshed (by live result) or released (by message)
        // on a connection this round: the connection's other subscribers of the same result
        // need not touch its registry.
        var refreshed = Set<ConnectionItem>()
        var released = Set<ConnectionItem>()
        /// Releases the snapshot `registration` leaves for `afterID`, once per connection and
        /// message, unless it is the registration's `key`, the snapshot after, one it pins or
        /// another registration's key on the connection. Returns whether the snapshot was one
        /// to release (then the connection's others in the same state need not look again).
        @discardableResult
        func releaseBefore(_ registration: Subscriber.Registration, key: String, afterID: String, message index: Int, of subscriber: Subscriber) -> Bool {
            let before = registration.snapshotID, connection = subscriber.session.connectionID
            guard before != key, before != afterID, !registration.pinned.contains(before) else { return false }
            if released.insert(ConnectionItem(connection: connection, item: UInt64(index))).inserted, !isRegistrationKey(before, on: connection) {
                subscriber.session.fetchResults.release(before)
            }
            return true
        }
        let order = orderedSubscribers()
        // The connection whose subscribers the round is at: the wakes of its subscribers wait
        // until the round is done with it (one wake of its queue, which then pulls them while
        // the round goes on with the next connection), and the notifications queued for them
        // are one copy per shared notification (``Subscriber/Outgoing/init(copying:)``): its
        // queue's reference counting and the hub's never touch the same object at once.
        var current: UInt64?
        var wakes: [ResponseSourceWake] = []
        var copies: [ObjectIdentifier: Subscriber.Outgoing] = [:]
        // The connection's last subscriber with one registration and no observed objects, and
        // what the round made of it: the next one in the same state (the same live result,
        // snapshot and token: in steady state, every subscriber of a shared fetch) gets the
        // same notification, with nothing hashed or looked up.
        var previous: SingleRegistrationRound?
        defer { ResponseSourceWake.wakeAll(wakes) }
        for subscriber in order where subscriber.started && (client == nil || subscriber.limitedTo == client) {
            let connection = subscriber.session.connectionID
            if connection != current {
                ResponseSourceWake.wakeAll(wakes)
                wakes.removeAll(keepingCapacity: true)
                copies.removeAll(keepingCapacity: true)
                previous = nil
                current = connection
            }
            if let same = previous, subscriber.token == same.since, subscriber.objects.isEmpty, subscriber.results.count == 1 {
                let position = subscriber.results.startIndex
                let registration = subscriber.results.values[position]
                if ObjectIdentifier(registration.entry) == same.entry, registration.snapshotID == same.before {
                    // As below: the registry was refreshed for this result on this connection
                    // already; the before-snapshot is released once per connection.
                    if !same.released,
                        releaseBefore(registration, key: subscriber.results.keys[position], afterID: same.afterID, message: same.index, of: subscriber) {
                        previous?.released = true
                    }
                    subscriber.results.values[position].snapshotID = same.afterID
                    subscriber.results.values[position].count = same.count
                    if let wake = subscriber.enqueueDeferringWake(same.outgoing, resync: { replaced in self.resync(subscriber, replacing: replaced) }) {
                        wakes.append(wake)
                    }
                    subscriber.token = token
                    continue
                }
            }
            var fetchMessages: [(key: MessageKey, index: Int)] = []
            // The one registration's snapshots before and after the round (for `previous`).
            var before = "", after = (id: "", count: 0)
            // Registrations are updated in place (by position: no key hashed again, and no
            // `indices` holding the storage, which would make the first write copy it).
            var position = subscriber.results.startIndex
            while position != subscriber.results.endIndex {
                defer { subscriber.results.formIndex(after: &position) }
                let registration = subscriber.results.values[position]
                guard let (details, listing, objects, afterID) = results[ObjectIdentifier(registration.entry)] else { continue }
                if refreshed.insert(ConnectionItem(connection: connection, item: registration.entry.serial)).inserted {
                    _ = subscriber.session.fetchResults.add(.assets(listing), id: afterID)
                }
                let messageKey = MessageKey(serial: registration.entry.serial, before: registration.snapshotID)
                let index: Int
                if let known = messageIndex[messageKey] {
                    index = known
                } else {
                    index = messages.count
                    messages.append(fetchMessage(
                        beforeID: registration.snapshotID, afterID: afterID, details: details, objects: objects, contentChanged: contentChanged))
                    messageIndex[messageKey] = index
                }
                fetchMessages.append((messageKey, index))
                before = registration.snapshotID
                after = (afterID, listing.count)
                releaseBefore(registration, key: subscriber.results.keys[position], afterID: afterID, message: index, of: subscriber)
                subscriber.results.values[position].snapshotID = afterID
                subscriber.results.values[position].count = listing.count
            }
            // One order for everyone: the same registrations give the same bytes.
            if fetchMessages.count > 1 { fetchMessages.sort { $0.key < $1.key } }
            var objectMessages: [Wire.ObjectChangeDetails] = []
            if !subscriber.objects.isEmpty {
                var seen = Set<String>()
                objectMessages = changedObjects.filter { subscriber.objects.contains($0) && seen.insert($0).inserted }.compactMap { objectDetails[$0] }
            }
            if let limited = subscriber.limitedTo, !objectMessages.isEmpty {
                let visible = visibleAssets[limited] ?? []
                objectMessages = objectMessages.compactMap { message in
                    guard message.objectType == .asset else { return message }
                    if leftSelection.contains(message.localIdentifier) {
                        return Wire.ObjectChangeDetails(localIdentifier: message.localIdentifier, objectType: .asset, objectWasDeleted: true)
                    }
                    return visible.contains(message.localIdentifier) ? message : nil
                }
            }
            guard !fetchMessages.isEmpty || !objectMessages.isEmpty else { continue }
            let makeOutgoing = {
                Subscriber.Outgoing(event: .change(Wire.ChangeNotification(
                    changeToken: String(token), fetchResultChanges: fetchMessages.map { messages[$0.index] }, objectChanges: objectMessages,
                    sinceToken: String(subscriber.token))))
            }
            let outgoing: Subscriber.Outgoing
            if objectMessages.isEmpty {
                // The same notification for everyone at this token with these messages:
                // built and encoded once, and the one object queued for each of them.
                let groupKey = GroupKey(since: subscriber.token, messages: fetchMessages.map(\.index))
                let shared: Subscriber.Outgoing
                if let made = outgoingCache[groupKey] {
                    shared = made
                } else {
                    shared = makeOutgoing()
                    outgoingCache[groupKey] = shared
                }
                if let copy = copies[ObjectIdentifier(shared)] {
                    outgoing = copy
                } else {
                    outgoing = Subscriber.Outgoing(copying: shared)
                    copies[ObjectIdentifier(shared)] = outgoing
                }
            } else {
                outgoing = makeOutgoing()
            }
            if let wake = subscriber.enqueueDeferringWake(outgoing, resync: { replaced in self.resync(subscriber, replacing: replaced) }) {
                wakes.append(wake)
            }
            if objectMessages.isEmpty, fetchMessages.count == 1, subscriber.objects.isEmpty, subscriber.results.count == 1,
                let registration = subscriber.results.values.first {
                previous = SingleRegistrationRound(
                    entry: ObjectIdentifier(registration.entry), before: before, since: subscriber.token, afterID: after.id,
                    count: after.count, index: fetchMessages[0].index, outgoing: outgoing)
            }
            subscriber.token = token
        }
        if client == nil { lastToken = token }
    }

    /// The owner changed a limited client's selection: its live results gain the `added`
    /// assets they match and lose the `removed` ones, as exact incremental details (PhotoKit
    /// would only say `hasIncrementalChanges = false`), in a notification whose change token
    /// is its since-token (no transaction happened); its observed objects that left the
    /// selection read as deleted. Asynchronous, in order with change processing.
    func selectionChanged(client: String, added: [String], removed: [String]) {
        guard !added.isEmpty || !removed.isEmpty else { return }
        queue.async {
            self.process()
            let changes = (added + removed).map { ObjectChange(objectType: .asset, identifier: $0, kind: .updated, assetContentChanged: false) }
            do throws(PhotoLibError) {
                try self.deliver(changes, through: self.lastToken, selectionOf: client, leftSelection: Set(removed))
            } catch {
                self.logger.warning("change feed: \(error.message); resynchronizing the limited client's subscribers")
                for subscriber in self.subscribers.values where subscriber.limitedTo == client { self.forceResync(subscriber, through: self.lastToken) }
            }
        }
    }

    /// The assets at the inserted then the changed indexes of `details` in `listing`; `known`
    /// values are used as they are, the others (assets a limit pulled into view) are read.
    private func insertedAndChanged(_ details: FetchResultChangeDetails, in listing: LiveAssetListing, known: [String: Asset]) throws(PhotoLibError) -> [Asset] {
        var ids: [String] = []
        for index in details.insertedIndexes + details.changedIndexes { ids += try listing.identifiers(in: index..<(index + 1)) }
        var values = known
        for asset in try library.assets(withIdentifiers: ids.filter { known[$0] == nil }) { values[asset.localIdentifier] = asset }
        return ids.compactMap { values[$0] }
    }

    /// The message for one result's details; `contentChanged` names the assets whose image
    /// changed in the round, and the changed objects among them are listed.
    private func fetchMessage(beforeID: String, afterID: String, details: FetchResultChangeDetails, objects: [Asset], contentChanged: Set<String>) -> Wire.FetchResultChangeDetails {
        var message = Wire.FetchResultChangeDetails(details, fetchResultID: beforeID, fetchResultAfterID: afterID, insertedAndChangedAssets: objects)
        message.contentChangedIdentifiers = objects.dropFirst(details.insertedIndexes.count).map(\.localIdentifier).filter(contentChanged.contains)
        return message
    }

    /// Object details with current values (or deleted) for `identifiers`.
    private func objectMessages(_ identifiers: [String], changes: [ObjectChange]) throws(PhotoLibError) -> [Wire.ObjectChangeDetails] {
        var seen = Set<String>()
        var messages: [Wire.ObjectChangeDetails] = []
        let byID = Dictionary(grouping: changes, by: \.identifier)
        let assetIDs = changes.filter { $0.objectType == .asset }.map(\.identifier)
        let assets = Dictionary(try library.assets(withIdentifiers: assetIDs).map { ($0.localIdentifier, $0) }, uniquingKeysWith: { first, _ in first })
        let albumIDs = changes.filter { $0.objectType == .assetCollection }.map(\.identifier)
        let albums = Dictionary(try library.assetCollections(withIdentifiers: albumIDs).map { ($0.localIdentifier, $0) }, uniquingKeysWith: { first, _ in first })
        for id in identifiers where seen.insert(id).inserted {
            guard let entries = byID[id], let first = entries.first else { continue }
            let contentChanged = entries.contains(where: \.assetContentChanged)
            switch first.objectType {
            case .asset:
                messages.append(Wire.ObjectChangeDetails(
                    localIdentifier: id, objectType: .asset, assetAfter: assets[id].map(Wire.Asset.init),
                    assetContentChanged: contentChanged, objectWasDeleted: assets[id] == nil))
            case .assetCollection:
                messages.append(Wire.ObjectChangeDetails(
                    localIdentifier: id, objectType: .assetCollection, collectionAfter: albums[id].map(Wire.AssetCollection.init),
                    objectWasDeleted: albums[id] == nil))
            case .collectionList:
                let folder = try library.collectionList(withIdentifier: id)
                messages.append(Wire.ObjectChangeDetails(
                    localIdentifier: id, objectType: .collectionList, collectionListAfter: folder.map(Wire.CollectionList.init),
                    objectWasDeleted: folder == nil))
            }
        }
        return messages
    }

    // MARK: Resync

    /// The notification that replaces a subscriber's backlog: every registered result,
    /// non-incremental, at the current version, relative to the snapshots the client holds
    /// (those before the first replaced notification), covering the tokens the replaced
    /// notifications covered; and the latest details of every object they named.
    private func resync(_ subscriber: Subscriber, replacing replaced: [Wire.ChangeNotification]) -> Wire.SubscriptionEvent.Event {
        let since = replaced.first?.sinceToken ?? String(subscriber.token)
        let through = replaced.last?.changeToken ?? String(subscriber.token)
        // Walk each registration's snapshot chain back through the replaced notifications.
        var previous: [String: (id: String, count: Int)] = [:]
        for notification in replaced {
            for message in notification.fetchResultChanges { previous[message.fetchResultAfterID] = (message.fetchResultID, Int(clamping: message.countBefore)) }
        }
        var messages: [Wire.FetchResultChangeDetails] = []
        for (key, registration) in subscriber.results {
            // `chain`: the snapshots walked through, named only by replaced notifications
            // (the set also stops a cycle).
            var known = (id: registration.snapshotID, count: registration.count)
            var chain = Set<String>()
            while let before = previous[known.id], chain.insert(known.id).inserted { known = before }
            // A static copy: the client reads it after the notification, when the live
            // result may have moved on (a live version is readable only while current).
            let listing = StaticAssetListing(identifiers: registration.entry.currentIdentifiers(), query: registration.entry.query)
            let (afterID, _) = subscriber.session.fetchResults.add(.assets(listing))
            // Snapshots named only by replaced notifications were never sent to this
            // subscriber: release them, unless another subscriber of the connection holds one
            // (a version's snapshot is shared by the connection's subscribers of the result).
            let connection = subscriber.session.connectionID
            for id in chain where id != key && !isRegistrationKey(id, on: connection) && !isHeld(id, on: connection, besides: subscriber) {
                subscriber.session.fetchResults.release(id)
            }
            var pinned = registration.pinned.filter { !chain.contains($0) } + [afterID]
            while pinned.count > Subscriber.maxPinned {
                let oldest = pinned.removeFirst()
                if oldest != known.id && !isHeld(oldest, on: connection, besides: subscriber) { subscriber.session.fetchResults.release(oldest) }
            }
            messages.append(Wire.FetchResultChangeDetails(
                FetchResultChangeDetails(nonIncrementalFrom: known.count, to: listing.count),
                fetchResultID: known.id, fetchResultAfterID: afterID, insertedAndChangedAssets: []))
            subscriber.results[key] = Subscriber.Registration(entry: registration.entry, snapshotID: afterID, count: listing.count, pinned: pinned)
        }
        var order: [String] = []
        var objects: [String: Wire.ObjectChangeDetails] = [:]
        for notification in replaced {
            for object in notification.objectChanges {
                if let earlier = objects[object.localIdentifier] {
                    var merged = object
                    merged.assetContentChanged = merged.assetContentChanged || earlier.assetContentChanged
                    objects[object.localIdentifier] = merged
                } else {
                    order.append(object.localIdentifier)
                    objects[object.localIdentifier] = object
                }
            }
        }
        return .change(Wire.ChangeNotification(
            changeToken: through, fetchResultChanges: messages, objectChanges: order.compactMap { objects[$0] }, sinceToken: since))
    }

    private func forceResync(_ subscriber: Subscriber, through token: Int64) {
        let since = String(subscriber.token)
        let empty = Wire.ChangeNotification(changeToken: String(token), sinceToken: since)
        subscriber.enqueue(resync(subscriber, replacing: [empty])) { replaced in self.resync(subscriber, replacing: replaced) }
        subscriber.token = token
    }
}

/// One fetch-result message of a round: a live result (its serial) and the snapshot the
/// details are relative to. Ordered, so that every subscriber lists its messages alike.
private struct MessageKey: Hashable, Comparable {
    var serial: UInt64
    var before: String

    static func < (lhs: MessageKey, rhs: MessageKey) -> Bool {
        (lhs.serial, lhs.before) < (rhs.serial, rhs.before)
    }
}

/// A notification of a round made only of fetch-result messages: the same for every
/// subscriber at the same since-token with the same messages (their indexes in the round).
private struct GroupKey: Hashable {
    var since: Int64
    var messages: [Int]
}

/// A subscriber with one registration, as a round left it: the next subscriber of the same
/// connection in the same state before the round gets the same (``ChangeHub`` `deliver`).
private struct SingleRegistrationRound {
    /// The live result.
    var entry: ObjectIdentifier
    /// The snapshot the notification's details are relative to, and the token it is since.
    var before: String
    var since: Int64
    /// The registration after the round.
    var afterID: String
    var count: Int
    /// The round's message for (result, before) and the notification queued.
    var index: Int
    var outgoing: Subscriber.Outgoing
    /// Whether the before-snapshot's release on this connection was settled.
    var released = false
}

/// Something of a round (a live result's serial, a message's index) on one connection.
private struct ConnectionItem: Hashable {
    var connection: UInt64
    var item: UInt64
}

/// Bounds on what subscriptions may make the change feed hold.
struct ObservationLimits: Sendable {
    /// Fetch-result registrations (`registerFetch`, `registerFetchResult`) over all of one
    /// connection's subscriptions.
    var maxRegistrationsPerConnection = 64
    /// Distinct live fetch results server-wide (identical fetches share one).
    var maxLiveResults = 512
    /// Objects one subscription observes with `registerObjects`.
    var maxObjectsPerSubscription = 10_000
    /// Estimated bytes all live results may hold (a new distinct result is refused beyond it).
    var maxLiveResultBytes = Int.max
}
