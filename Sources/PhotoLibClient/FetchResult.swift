import Foundation
import PhotoLibWire
import Synchronization

/// An object a fetch result can hold: an asset or an asset collection.
public protocol FetchableObject: Sendable {
    /// The object's identifier.
    var localIdentifier: String { get }
}

extension Asset: FetchableObject {}
extension AssetCollection: FetchableObject {}
extension CollectionList: FetchableObject {}

/// An immutable, server-side snapshot of fetched objects: PhotoKit's `PHFetchResult`.
///
/// Only ``count`` and the first page arrive with the fetch; other objects are fetched by
/// index range on demand (and cached), so counting a million assets ships no list.
///
/// Unlike a `PHFetchResult`, it can **expire**: the snapshot lives on the server, on the
/// connection that fetched it, and the server releases it after 600 seconds without use
/// (each use extends it), when the connection holds more than 256 snapshots (the least
/// recently used first), when all snapshots together exceed its memory budget, or when
/// ``release()`` is called or the connection closes (docs/PROTOCOL.md, section 15). Objects
/// already cached still answer; anything that asks the server — ``object(at:)`` or
/// ``objects(in:)`` beyond the cached pages, ``allObjects()``, ``index(of:)`` — then throws
/// `PhotoLibError` with code `failedPrecondition` and reason `fetchResultExpired`. Fetch
/// again (the new result reflects the library as it is now), or keep a result current by
/// registering it with a ``ChangeSubscription``: its ``FetchResultChanges/fetchResultAfterChanges``
/// are fresh snapshots. A result belongs to its connection (its `PhotoLibrary`); another
/// connection does not know it.
public final class FetchResult<Object: FetchableObject>: Sendable {
    /// Objects fetched per request.
    public static var pageSize: Int { 200 }

    /// How many objects the snapshot holds.
    public let count: Int
    /// The server's id of the snapshot.
    public let fetchResultID: String
    /// The connection whose server holds the snapshot (its id means nothing on another).
    let connection: ClientConnection
    /// What ``loaded`` guards: the objects fetched so far, by index.
    ///
    /// The objects a change notification updated live in ``overlay`` above ``cache``: the
    /// result after a change that moved nothing shares its `cache` with the result before it
    /// (copy-on-write) and copies only the small overlay, so following a live result costs
    /// per notification what changed, not every object cached. The overlay is folded into
    /// the cache when it reaches ``maxOverlay`` objects. Objects are kept boxed (``Stored``),
    /// so copying a map copies one reference per object, not every field of each.
    private struct Loaded {
        var cache: [Int: Stored] = [:]
        /// Objects newer than ``cache``'s at their index.
        var overlay: [Int: Stored] = [:]
        /// Indexes the server answered without an object (deleted since the fetch).
        var missing: Set<Int> = []

        /// The object known at `index`.
        subscript(index: Int) -> Object? { (overlay[index] ?? cache[index])?.object }

        /// Every known object by index (the overlay wins).
        var all: [Int: Stored] { overlay.isEmpty ? cache : cache.merging(overlay) { _, new in new } }
    }

    /// One cached object, shared by the results that know it (immutable).
    private final class Stored: Sendable {
        let object: Object
        init(_ object: Object) { self.object = object }
    }

    /// The most objects kept in ``Loaded/overlay`` before it is folded into the cache.
    static var maxOverlay: Int { 64 }

    /// Guards ``Loaded``; pages are fetched outside it. A leaf lock.
    private let loaded: Mutex<Loaded>

    init(snapshot: Wire.FetchResultSnapshot, connection: ClientConnection) throws {
        self.count = Int(clamping: snapshot.count)
        self.fetchResultID = snapshot.fetchResultID
        self.connection = connection
        let first = try Self.objects(snapshot.assets, snapshot.assetCollections, snapshot.collectionLists)
        var cache: [Int: Stored] = [:]
        for (index, object) in first.enumerated() { cache[index] = Stored(object) }
        self.loaded = Mutex(Loaded(cache: cache))
    }

    /// A result known only by its server id and count (objects are fetched on demand).
    init(id: String, count: Int, connection: ClientConnection) {
        self.count = count
        self.fetchResultID = id
        self.connection = connection
        self.loaded = Mutex(Loaded())
    }

    /// The result after a change: the objects `before` had cached move to their new indexes
    /// (following the change-details rules), inserted and changed objects are known, and
    /// everything else is fetched on demand.
    init(id: String, count: Int, connection: ClientConnection, seededFrom before: FetchResult<Object>?, removed: [Int], inserted: [(Int, Object)], changed: [(Int, Object)], moves: [IndexMove]) {
        self.count = count
        self.fetchResultID = id
        self.connection = connection
        var cache: [Int: Stored] = [:]
        if let before, removed.isEmpty, inserted.isEmpty, moves.isEmpty, count == before.count {
            // Only changes (a favourite toggled, an edit): every object keeps its index. The
            // cache is shared with `before`, the changed objects go to the overlay.
            var seeded = before.loaded.withLock { Loaded(cache: $0.cache, overlay: $0.overlay) }
            for (index, object) in changed where index < count { seeded.overlay[index] = Stored(object) }
            if seeded.overlay.count >= Self.maxOverlay {
                seeded.cache = seeded.all
                seeded.overlay = [:]
            }
            self.loaded = Mutex(seeded)
            return
        } else if let before {
            let cached = before.loaded.withLock { $0.all }
            let gone = (removed + moves.map(\.from)).sorted()
            let targets = (inserted.map(\.0) + moves.map(\.to)).sorted()
            for (index, object) in cached {
                guard !Self.contains(gone, index) else { continue }
                // Its rank among the objects that stay, then the matching free slot after.
                var slot = index - Self.countBelow(gone, index)
                for target in targets {
                    if target <= slot { slot += 1 } else { break }
                }
                if slot < count { cache[slot] = object }
            }
            for move in moves {
                if let object = cached[move.from], move.to < count { cache[move.to] = object }
            }
        }
        for (index, object) in inserted + changed where index < count { cache[index] = Stored(object) }
        self.loaded = Mutex(Loaded(cache: cache))
    }

    private static func countBelow(_ sorted: [Int], _ value: Int) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private static func contains(_ sorted: [Int], _ value: Int) -> Bool {
        let index = countBelow(sorted, value)
        return index < sorted.count && sorted[index] == value
    }

    /// Whether the snapshot is empty.
    public var isEmpty: Bool { count == 0 }

    /// `object(at:)`; throws `outOfRange` for a bad index, `notFound` if the object was
    /// deleted since, and `failedPrecondition` (reason `fetchResultExpired`) when the object
    /// is not cached and the snapshot has expired or was released: fetch again.
    public func object(at index: Int) async throws -> Object {
        guard index >= 0, index < count else {
            throw PhotoLibError(.outOfRange, "index \(index) is outside a fetch result of \(count) objects")
        }
        if let cached = loaded.withLock({ $0[index] }) { return cached }
        try await load(index..<min(count, index + Self.pageSize))
        guard let object = loaded.withLock({ $0[index] }) else {
            throw PhotoLibError(.notFound, "the object at index \(index) was deleted after the fetch")
        }
        return object
    }

    /// `objects(at:)` for a range; objects deleted since the fetch are left out. Throws
    /// `outOfRange` for a range outside the result, and `failedPrecondition` (reason
    /// `fetchResultExpired`) when a page is not cached and the snapshot has expired or was
    /// released: fetch again.
    public func objects(in range: Range<Int>) async throws -> [Object] {
        guard range.lowerBound >= 0, range.upperBound <= count else {
            throw PhotoLibError(.outOfRange, "range \(range) is outside a fetch result of \(count) objects")
        }
        var start = range.lowerBound
        while start < range.upperBound {
            let end = min(range.upperBound, start + Self.pageSize)
            let known = loaded.withLock { loaded in (start..<end).allSatisfy { loaded[$0] != nil || loaded.missing.contains($0) } }
            if !known { try await load(start..<end) }
            start = end
        }
        return loaded.withLock { loaded in range.compactMap { loaded[$0] } }
    }

    /// Every object, fetched page by page (the errors of ``objects(in:)``).
    public func allObjects() async throws -> [Object] {
        try await objects(in: 0..<count)
    }

    /// The first object, or `nil` when empty (the errors of ``object(at:)``).
    public var firstObject: Object? {
        get async throws { count == 0 ? nil : try await object(at: 0) }
    }

    /// The last object, or `nil` when empty (the errors of ``object(at:)``).
    public var lastObject: Object? {
        get async throws { count == 0 ? nil : try await object(at: count - 1) }
    }

    /// `index(of:)`: the object's index, or `nil` when not in the snapshot. Throws
    /// `failedPrecondition` (reason `fetchResultExpired`) when the object is not cached and
    /// the snapshot has expired or was released: fetch again.
    public func index(of localIdentifier: String) async throws -> Int? {
        if let hit = loaded.withLock({ $0.all.first { $0.value.object.localIdentifier == localIdentifier }?.key }) { return hit }
        let response = try await connection.unary(
            PhotoLibraryMethods.fetchResultIndex, Wire.FetchResultIndexRequest(fetchResultID: fetchResultID, localIdentifier: localIdentifier))
        return response.found ? Int(clamping: response.index) : nil
    }

    /// `contains(_:)`.
    public func contains(_ localIdentifier: String) async throws -> Bool {
        try await index(of: localIdentifier) != nil
    }

    /// Frees the snapshot on the server (it also expires by itself, after 600 seconds
    /// unused); releasing one already released or expired succeeds.
    public func release() async throws {
        _ = try await connection.unary(PhotoLibraryMethods.releaseFetchResult, Wire.ReleaseFetchResultRequest(fetchResultID: fetchResultID))
    }

    /// Fetches `range` into the cache; the server may answer in shorter pages, so this asks
    /// again from where each answer stopped.
    private func load(_ range: Range<Int>) async throws {
        var start = range.lowerBound
        while start < range.upperBound {
            let response = try await connection.unary(
                PhotoLibraryMethods.fetchResultObjects,
                Wire.FetchResultObjectsRequest(
                    fetchResultID: fetchResultID, offset: UInt64(start), length: UInt32(clamping: range.upperBound - start)))
            guard response.offset == UInt64(start), !response.localIdentifiers.isEmpty else {
                throw PhotoLibError(.internalError, "the server answered a page request at \(start) with \(response.localIdentifiers.count) objects at \(response.offset)", reason: .protocolViolation)
            }
            let objects = try Self.objects(response.assets, response.assetCollections, response.collectionLists)
            let byIdentifier = Dictionary(objects.map { ($0.localIdentifier, $0) }, uniquingKeysWith: { first, _ in first })
            let identifiers = response.localIdentifiers, first = start
            loaded.withLock { loaded in
                for (offset, identifier) in identifiers.enumerated() {
                    let index = first + offset
                    loaded.overlay[index] = nil
                    if let object = byIdentifier[identifier] { loaded.cache[index] = Stored(object) } else { loaded.missing.insert(index) }
                }
            }
            start += response.localIdentifiers.count
        }
    }

    /// The objects of a snapshot or page: the one list that matches `Object` (the others
    /// must be empty).
    private static func objects(
        _ assets: [Wire.Asset], _ collections: [Wire.AssetCollection], _ lists: [Wire.CollectionList]
    ) throws -> [Object] {
        if !assets.isEmpty, Object.self == Asset.self, collections.isEmpty, lists.isEmpty {
            return assets.map(Asset.init) as! [Object]
        }
        if !collections.isEmpty, Object.self == AssetCollection.self, assets.isEmpty, lists.isEmpty {
            return try collections.map { (wire) throws(PhotoLibError) in try AssetCollection(wire) } as! [Object]
        }
        if !lists.isEmpty, Object.self == CollectionList.self, assets.isEmpty, collections.isEmpty {
            return lists.map(CollectionList.init) as! [Object]
        }
        if assets.isEmpty, collections.isEmpty, lists.isEmpty { return [] }
        throw PhotoLibError(
            .internalError,
            "the server returned \(assets.count) assets, \(collections.count) collections and \(lists.count) lists for a fetch of \(Object.self)",
            reason: .protocolViolation)
    }
}
