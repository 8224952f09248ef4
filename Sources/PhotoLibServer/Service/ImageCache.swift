import Foundation
import Logging
import PhotoLibCore

/// The image side of the service: the memory and disk caches of rendered images, the
/// pre-render bookkeeping of `StartCachingImages`, and counters that tests and logs read.
final class ImageCache: @unchecked Sendable {
    let memory: ImageCacheMemory
    let disk: ImageCacheDisk
    let prefetch: ImageCachePrefetch
    let counters = ImageCounters()

    init(directory: String, configuration: ServerConfiguration, logger: Logger) {
        memory = ImageCacheMemory(budget: configuration.imageMemoryCacheBytes)
        disk = ImageCacheDisk(directory: directory + "/cache", budget: configuration.imageDiskCacheBytes, logger: logger)
        prefetch = ImageCachePrefetch(limitPerConnection: configuration.maxCachingRequestsPerConnection)
    }

    /// The memory cache's image for `key`, counted as a memory hit; never blocks.
    func lookupInMemory(_ key: ImageCacheKey) -> CachedImage? {
        guard let image = memory.get(key) else { return nil }
        counters.add(\.memoryHits)
        return image
    }

    /// The disk cache's image for `key` (promoted to memory), counted as a disk hit or a
    /// miss. Reads a file: call it on a thread that may block, after ``lookupInMemory(_:)``.
    func lookupOnDisk(_ key: ImageCacheKey) -> CachedImage? {
        if let image = disk.get(key) {
            counters.add(\.diskHits)
            memory.put(key, image)
            return image
        }
        counters.add(\.misses)
        return nil
    }

    /// Stores a render in memory and (in the background) on disk.
    func store(_ key: ImageCacheKey, _ image: CachedImage) {
        memory.put(key, image)
        disk.put(key, image)
    }
}

/// Counts of what the image service did (logged at debug level with each render).
final class ImageCounters: @unchecked Sendable {
    struct Values: Sendable {
        var rendersStarted = 0
        var rendersFinished = 0
        var rendersCancelled = 0
        var rendersFailed = 0
        var memoryHits = 0
        var diskHits = 0
        var misses = 0
        var prerenders = 0
    }

    private let lock = NSLock()
    private var values = Values()

    func add(_ field: WritableKeyPath<Values, Int>) {
        lock.withLock { values[keyPath: field] += 1 }
    }

    var snapshot: Values { lock.withLock { values } }
}

/// Per-connection registrations of `StartCachingImages`, bounded per connection.
///
/// Entries are keyed by the connection's id and hold the session weakly: once a connection
/// is gone (its session freed) its registrations are dropped at the next use and its
/// queued pre-renders are skipped.
final class ImageCachePrefetch: @unchecked Sendable {
    /// One caching registration: an asset at a size.
    struct Entry: Hashable, Sendable {
        var assetIdentifier: String
        var targetSize: PixelSize
        var contentMode: ContentMode
        var resizeMode: ResizeMode
        var version: ImageVersion
    }

    private final class Registrations {
        weak var session: ConnectionSession?
        var entries: Set<Entry> = []
        init(session: ConnectionSession) { self.session = session }
    }

    let limitPerConnection: Int
    private let lock = NSLock()
    private var connections: [UInt64: Registrations] = [:]

    init(limitPerConnection: Int) {
        self.limitPerConnection = max(1, limitPerConnection)
    }

    /// Adds entries for `session`; returns the ones that were new. Throws
    /// `resourceExhausted` when the connection would hold more than the limit.
    func add(_ entries: [Entry], session: ConnectionSession) throws(PhotoLibError) -> [Entry] {
        lock.lock()
        defer { lock.unlock() }
        purge()
        let registrations = connections[session.connectionID] ?? Registrations(session: session)
        connections[session.connectionID] = registrations
        let new = Array(Set(entries.filter { !registrations.entries.contains($0) }))
        guard registrations.entries.count + new.count <= limitPerConnection else {
            throw PhotoLibError(.resourceExhausted, "this connection already caches \(registrations.entries.count) images; at most \(limitPerConnection) at once: stopCaching the ones that scrolled away first")
        }
        registrations.entries.formUnion(new)
        return new
    }

    /// Removes entries of `session`.
    func remove(_ entries: [Entry], session: ConnectionSession) {
        lock.withLock {
            connections[session.connectionID]?.entries.subtract(entries)
            purge()
        }
    }

    /// Removes every entry of `session`.
    func removeAll(session: ConnectionSession) {
        lock.withLock {
            connections[session.connectionID] = nil
            purge()
        }
    }

    /// Whether `entry` is still wanted by a live connection `connectionID`.
    func isWanted(_ entry: Entry, connectionID: UInt64) -> Bool {
        lock.withLock {
            guard let registrations = connections[connectionID], registrations.session != nil else { return false }
            return registrations.entries.contains(entry)
        }
    }

    /// Registrations held for a connection.
    func count(connectionID: UInt64) -> Int {
        lock.withLock { connections[connectionID]?.entries.count ?? 0 }
    }

    private func purge() {
        connections = connections.filter { $0.value.session != nil && !$0.value.entries.isEmpty }
    }
}
