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
final class ChangeHub: @unchecked Sendable {
    let queue = DispatchQueue(label: "photolibd.changes")
    private let library: PhotoLibrary
    private let logger: Logger
    private let pollInterval: Double
    private let maxQueuedPerSubscriber: Int
    private var timer: (any DispatchSourceTimer)?
    private(set) var lastToken: Int64 = 0
    private var entries: [AssetQuery: LiveEntry] = [:]
    private var subscribers: [UInt64: Subscriber] = [:]
    private var nextSubscriberID: UInt64 = 1

    init(library: PhotoLibrary, logger: Logger, pollInterval: Double, maxQueuedPerSubscriber: Int) {
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
            for subscriber in subscribers.values { subscriber.finish() }
            subscribers = [:]
        }
    }

    /// Called after this server commits: process at once instead of at the next poll.
    func committed() {
        queue.async { self.process() }
    }

    // MARK: Subscribers

    func makeSubscriber(session: ConnectionSession) -> Subscriber {
        queue.sync {
            let subscriber = Subscriber(id: nextSubscriberID, session: session, maxQueued: maxQueuedPerSubscriber)
            nextSubscriberID += 1
            subscriber.token = lastToken
            subscribers[subscriber.id] = subscriber
            return subscriber
        }
    }

    func remove(_ subscriber: Subscriber) {
        queue.async {
            subscriber.finish()
            self.subscribers[subscriber.id] = nil
            for registration in subscriber.results.values { self.release(registration.entry) }
            subscriber.results = [:]
        }
    }

    /// Applies one request of a subscriber, in order with change processing.
    func handle(_ request: SubscriptionRequest, for subscriber: Subscriber) async throws {
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

    private func apply(_ request: SubscriptionRequest, for subscriber: Subscriber) throws(PhotoLibError) {
        process()
        defer { subscriber.started = true }
        switch request {
        case .resume(let text):
            guard !subscriber.started else {
                throw PhotoLibError(.invalidArgument, "resume must be the first request of a subscription")
            }
            try catchUp(subscriber, since: try Self.token(text))
        case .registerFetch(let fetch):
            let query = try AssetQuery.from(options: fetch.options, collection: fetch.collectionIdentifier, mediaType: fetch.mediaTypes.first)
            var scoped = query
            if !fetch.localIdentifiers.isEmpty { scoped.identifiers = fetch.localIdentifiers }
            if let collection = scoped.collection, try library.assetCollection(withIdentifier: collection) == nil {
                throw PhotoLibError(.notFound, "no album or smart album has the identifier \(collection)")
            }
            let entry = try self.entry(for: scoped)
            let listing = entry.currentListing()
            let (snapshotID, expiresAt) = subscriber.session.fetchResults.add(.assets(listing))
            subscriber.results[snapshotID] = Subscriber.Registration(entry: entry, snapshotID: snapshotID, count: listing.count)
            let prefetchIDs = try listing.identifiers(in: 0..<min(listing.count, max(0, min(fetch.prefetchCount, 1000))))
            let prefetch = try library.assets(withIdentifiers: prefetchIDs)
            let snapshot = PhotoLibraryService.fitting(prefetch, within: subscriber.session.maxResponseSize) { objects in
                FetchResultSnapshot(fetchResultID: snapshotID, objectType: .asset, count: listing.count, expiresAt: expiresAt, prefetched: .assets(objects))
            }
            subscriber.enqueue(.registeredFetch(snapshot, token: String(subscriber.token))) { nil }
            return
        case .registerFetchResult(let id):
            guard case .assets(let listing) = try subscriber.session.fetchResults.use(id) else {
                throw PhotoLibError(.invalidArgument, "fetch result \(id) holds collections; only asset fetch results can be observed")
            }
            guard subscriber.results[id] == nil else { break }
            let entry = try self.entry(for: listing.query)
            let current = entry.currentListing()
            subscriber.results[id] = Subscriber.Registration(entry: entry, snapshotID: id, count: listing.count)
            let snapshotIDs = try listing.identifiers(in: 0..<listing.count)
            if snapshotIDs != entry.currentIdentifiers() {
                // The snapshot predates changes the entry has seen: bring it up to date.
                let (afterID, _) = subscriber.session.fetchResults.add(.assets(current))
                let details = FetchResultChangeDetails.diff(before: snapshotIDs, after: entry.currentIdentifiers(), changed: [])
                subscriber.results[id] = Subscriber.Registration(entry: entry, snapshotID: afterID, count: current.count)
                subscriber.enqueue(.acknowledged(token: String(subscriber.token))) { nil }
                let message = try fetchMessage(beforeID: id, afterID: afterID, details: details, listing: current, values: [:])
                subscriber.enqueue(.change(ChangeNotification(changeToken: String(subscriber.token), sinceToken: String(subscriber.token), fetchResultChanges: [message], objectChanges: []))) { nil }
                return
            }
        case .unregisterFetchResult(let id):
            if let registration = subscriber.results.removeValue(forKey: id) { release(registration.entry) }
        case .registerObjects(let ids):
            for id in ids { try LocalIdentifier.validate(id) }
            subscriber.objects.formUnion(ids)
        case .unregisterObjects(let ids):
            subscriber.objects.subtract(ids)
        }
        subscriber.enqueue(.acknowledged(token: String(subscriber.token))) { nil }
    }

    static func token(_ text: String) throws(PhotoLibError) -> Int64 {
        if text.isEmpty { return 0 }
        guard let value = Int64(text), value >= 0 else {
            throw PhotoLibError(.invalidArgument, "'\(text.prefix(40))' is not a change token (a decimal number from a notification or photolib token)")
        }
        return value
    }

    private func entry(for query: AssetQuery) throws(PhotoLibError) -> LiveEntry {
        if let existing = entries[query] {
            existing.references += 1
            return existing
        }
        let albumOrdered = query.sortDescriptors.isEmpty && query.collection.map { !$0.hasPrefix("smart-") } == true
        let entry = try LiveEntry.build(query: query, library: library, albumOrdered: albumOrdered)
        entry.references = 1
        entries[query] = entry
        return entry
    }

    private func release(_ entry: LiveEntry) {
        entry.references -= 1
        if entry.references <= 0 { entries[entry.query] = nil }
    }

    // MARK: Catch-up

    /// Queues a notification per transaction after `since` (from history), then the
    /// subscriber continues live from ``lastToken``: no gap, no duplicate.
    private func catchUp(_ subscriber: Subscriber, since: Int64) throws(PhotoLibError) {
        guard since <= lastToken else {
            throw PhotoLibError(.invalidArgument, "change token \(since) is newer than the library's current token \(lastToken)")
        }
        var cursor = since
        while cursor < lastToken {
            let page = try library.persistentChanges(since: cursor, limit: 500)
            for change in page.changes where change.token <= lastToken {
                let objects = try objectMessages(change.objects.map(\.identifier), changes: change.objects)
                let notification = ChangeNotification(changeToken: String(change.token), sinceToken: String(cursor), fetchResultChanges: [], objectChanges: objects)
                subscriber.enqueue(.change(notification)) { resync(subscriber, since: since, through: lastToken) }
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

    private func deliver(_ changes: [ObjectChange], through token: Int64) throws(PhotoLibError) {
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
        var results: [ObjectIdentifier: (FetchResultChangeDetails, LiveAssetListing)] = [:]
        for entry in entries.values {
            var matching = Set<String>()
            if !touched.isEmpty {
                var probe = entry.query
                probe.fetchLimit = 0
                probe.identifiers = (entry.query.identifiers.map { Set($0) }.map { allowed in touched.filter(allowed.contains) }) ?? touched
                if !(probe.identifiers ?? []).isEmpty { matching = Set(try library.fetchAssetIdentifiers(probe)) }
            }
            let albumChanged = entry.query.collection.map(albums.contains) ?? false
            if let details = try entry.apply(touched: touched, matching: matching, values: values, contentChanged: contentChanged, albumChanged: albumChanged, library: library) {
                results[ObjectIdentifier(entry)] = (details, entry.currentListing())
            }
        }
        let changedObjects = changes.map(\.identifier)
        for subscriber in subscribers.values where subscriber.started {
            var fetchMessages: [FetchResultChangeMessage] = []
            for (key, registration) in subscriber.results {
                guard let (details, listing) = results[ObjectIdentifier(registration.entry)] else { continue }
                let (afterID, _) = subscriber.session.fetchResults.add(.assets(listing))
                fetchMessages.append(try fetchMessage(beforeID: registration.snapshotID, afterID: afterID, details: details, listing: listing, values: values))
                if registration.snapshotID != key { subscriber.session.fetchResults.release(registration.snapshotID) }
                subscriber.results[key] = Subscriber.Registration(entry: registration.entry, snapshotID: afterID, count: listing.count)
            }
            let watched = changedObjects.filter(subscriber.objects.contains)
            let objectMessages = try objectMessages(watched, changes: changes.filter { subscriber.objects.contains($0.identifier) })
            guard !fetchMessages.isEmpty || !objectMessages.isEmpty else { continue }
            let notification = ChangeNotification(changeToken: String(token), sinceToken: String(subscriber.token), fetchResultChanges: fetchMessages, objectChanges: objectMessages)
            let since = subscriber.token
            subscriber.enqueue(.change(notification)) { resync(subscriber, since: since, through: token) }
            subscriber.token = token
        }
        lastToken = token
    }

    private func fetchMessage(beforeID: String, afterID: String, details: FetchResultChangeDetails, listing: LiveAssetListing, values: [String: Asset]) throws(PhotoLibError) -> FetchResultChangeMessage {
        let indexes = details.insertedIndexes + details.changedIndexes
        var ids: [String] = []
        for index in indexes { ids += try listing.identifiers(in: index..<(index + 1)) }
        let missing = ids.filter { values[$0] == nil }
        var known = values
        for asset in try library.assets(withIdentifiers: missing) { known[asset.localIdentifier] = asset }
        return FetchResultChangeMessage(
            fetchResultID: beforeID, fetchResultAfterID: afterID, hasIncrementalChanges: details.hasIncrementalChanges,
            removedIndexes: details.removedIndexes, insertedIndexes: details.insertedIndexes, changedIndexes: details.changedIndexes,
            moves: details.moves.map { IndexMoveMessage(from: $0.from, to: $0.to) }, countBefore: details.countBefore, countAfter: details.countAfter,
            insertedAndChanged: .assets(ids.compactMap { known[$0] }))
    }

    /// Object details with current values (or deleted) for `identifiers`.
    private func objectMessages(_ identifiers: [String], changes: [ObjectChange]) throws(PhotoLibError) -> [ObjectChangeMessage] {
        var seen = Set<String>()
        var messages: [ObjectChangeMessage] = []
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
                messages.append(ObjectChangeMessage(localIdentifier: id, objectType: .asset, after: .assets(assets[id].map { [$0] } ?? []), assetContentChanged: contentChanged, objectWasDeleted: assets[id] == nil))
            case .assetCollection:
                messages.append(ObjectChangeMessage(localIdentifier: id, objectType: .assetCollection, after: .assetCollections(albums[id].map { [$0] } ?? []), assetContentChanged: false, objectWasDeleted: albums[id] == nil))
            case .collectionList:
                let folder = try library.collectionList(withIdentifier: id)
                messages.append(ObjectChangeMessage(localIdentifier: id, objectType: .collectionList, after: .collectionLists(folder.map { [$0] } ?? []), assetContentChanged: false, objectWasDeleted: folder == nil))
            }
        }
        return messages
    }

    // MARK: Resync

    /// The notification that replaces a subscriber's backlog: every registered result,
    /// non-incremental, at the current version.
    private func resync(_ subscriber: Subscriber, since: Int64, through token: Int64) -> SubscriptionEvent {
        var messages: [FetchResultChangeMessage] = []
        for (key, registration) in subscriber.results {
            let listing = registration.entry.currentListing()
            let (afterID, _) = subscriber.session.fetchResults.add(.assets(listing))
            messages.append(FetchResultChangeMessage(
                fetchResultID: registration.snapshotID, fetchResultAfterID: afterID, hasIncrementalChanges: false,
                removedIndexes: [], insertedIndexes: [], changedIndexes: [], moves: [], countBefore: registration.count,
                countAfter: listing.count, insertedAndChanged: .assets([])))
            subscriber.results[key] = Subscriber.Registration(entry: registration.entry, snapshotID: afterID, count: listing.count)
        }
        return .change(ChangeNotification(changeToken: String(token), sinceToken: String(since), fetchResultChanges: messages, objectChanges: []))
    }

    private func forceResync(_ subscriber: Subscriber, through token: Int64) {
        let since = subscriber.token
        subscriber.enqueue(resync(subscriber, since: since, through: token)) { nil }
        subscriber.token = token
    }
}
