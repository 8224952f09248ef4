import Foundation
import Synchronization
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
final class ImageCounters: Sendable {
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

    /// The counts, incremented from any thread.
    private let values = Mutex(Values())

    func add(_ field: WritableKeyPath<Values, Int>) {
        values.withLock { $0[keyPath: field] += 1 }
    }

    var snapshot: Values { values.withLock { $0 } }
}
