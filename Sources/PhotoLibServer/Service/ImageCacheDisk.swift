import Foundation
import Logging
import PhotoLibCore

/// Rendered images on disk under `DIR/cache/images/<2 hex>/<sha256 of the key>`, bounded
/// by a byte budget (least recently used files removed first).
///
/// Each file is a 16-byte header (`PLIC`, format 1, width, height, flags, JPEG length) and
/// the JPEG. Writes go to `DIR/cache/tmp` and are renamed into place, so a reader never
/// sees a partial file; a file whose header or length does not check out (e.g. after a
/// power loss) is deleted and treated as a miss. Writes happen on a background queue.
final class ImageCacheDisk: @unchecked Sendable {
    /// Directories of the cache: the owner's alone.
    static var directoryAttributes: [FileAttributeKey: Any] { [.posixPermissions: 0o700] }

    private struct Entry {
        var size: Int
        var lastUse: UInt64
    }

    let budget: Int
    let root: String
    private let temporary: String
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var totalBytes = 0
    private var clock: UInt64 = 0
    /// Writes and evictions, one at a time, in the background. Internal so that tests can
    /// hold it up (a slow disk).
    let writer = DispatchQueue(label: "photolibd.image-cache.disk", qos: .utility)
    /// The most bytes of images waiting for ``writer`` at once: a store beyond it is skipped
    /// (it is a cache), so a disk slower than the renders cannot make the queue grow.
    let maxQueuedBytes: Int
    /// Bytes of the images waiting for ``writer`` now (guarded by ``lock``).
    private var queuedBytes = 0
    /// Stores skipped because ``maxQueuedBytes`` was reached (guarded by ``lock``).
    private var skipped = 0
    private let logger: Logger
    private static let magic: [UInt8] = Array("PLIC".utf8)
    private static let headerSize = 16

    /// Opens (creating) the cache in `directory` (`DIR/cache`), indexing the files there and
    /// removing leftovers of interrupted writes.
    init(directory: String, budget: Int, maxQueuedBytes: Int = 64 << 20, logger: Logger) {
        self.budget = max(0, budget)
        self.maxQueuedBytes = max(0, maxQueuedBytes)
        self.root = directory + "/images"
        self.temporary = directory + "/tmp"
        self.logger = logger
        let manager = FileManager.default
        try? manager.removeItem(atPath: temporary)
        // Renders are the library's pixels: private like the library (0700 / 0600).
        try? manager.createDirectory(atPath: temporary, withIntermediateDirectories: true, attributes: Self.directoryAttributes)
        try? manager.createDirectory(atPath: root, withIntermediateDirectories: true, attributes: Self.directoryAttributes)
        for folder in (try? manager.contentsOfDirectory(atPath: root)) ?? [] {
            for name in (try? manager.contentsOfDirectory(atPath: root + "/" + folder)) ?? [] {
                let path = root + "/" + folder + "/" + name
                let size = (try? manager.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
                guard let size, name.count == 64 else {
                    try? manager.removeItem(atPath: path)
                    continue
                }
                clock += 1
                entries[name] = Entry(size: size, lastUse: clock)
                totalBytes += size
            }
        }
        if totalBytes > budget { writer.async { self.evict() } }
    }

    /// Bytes on disk.
    var bytes: Int { lock.withLock { totalBytes } }

    private func path(_ digest: String) -> String {
        root + "/" + digest.prefix(2) + "/" + digest
    }

    /// The image for `key`, or `nil` (missing or damaged).
    func get(_ key: ImageCacheKey) -> CachedImage? {
        guard budget > 0 else { return nil }
        let digest = key.digest
        let known: Bool = lock.withLock {
            guard entries[digest] != nil else { return false }
            clock += 1
            entries[digest]!.lastUse = clock
            return true
        }
        guard known else { return nil }
        guard let data = FileManager.default.contents(atPath: path(digest)), let image = Self.parse([UInt8](data)) else {
            drop(digest)
            return nil
        }
        return image
    }

    /// Stores `image` in the background, unless ``maxQueuedBytes`` of images wait for the
    /// disk already (then it is not stored: a later request renders it again).
    func put(_ key: ImageCacheKey, _ image: CachedImage) {
        let size = image.jpeg.count + Self.headerSize
        guard budget > 0, size <= budget / 4 else { return }
        let queued: Bool = lock.withLock {
            guard queuedBytes + size <= maxQueuedBytes else {
                skipped += 1
                return false
            }
            queuedBytes += size
            return true
        }
        guard queued else { return }
        let digest = key.digest
        writer.async {
            self.write(digest, image)
            self.lock.withLock { self.queuedBytes -= size }
        }
    }

    /// Bytes of images waiting to be written, and the stores skipped because too many were.
    var queue: (bytes: Int, skipped: Int) { lock.withLock { (queuedBytes, skipped) } }

    /// Waits until every queued write is on disk (tests, shutdown).
    func flush() {
        writer.sync {}
    }

    private func write(_ digest: String, _ image: CachedImage) {
        var bytes = Self.magic
        bytes.append(1)
        bytes.append(image.degraded ? 1 : 0)
        bytes.append(contentsOf: Self.uint16(image.width) + Self.uint16(image.height))
        bytes.append(contentsOf: Self.uint32(image.jpeg.count))
        bytes.append(contentsOf: [0, 0])
        bytes.append(contentsOf: image.jpeg)
        let temporaryPath = temporary + "/" + UUID().uuidString
        let finalPath = path(digest)
        do {
            try FileManager.default.createDirectory(
                atPath: root + "/" + digest.prefix(2), withIntermediateDirectories: true, attributes: Self.directoryAttributes)
            guard FileManager.default.createFile(atPath: temporaryPath, contents: Data(bytes), attributes: [.posixPermissions: 0o600]),
                chmod(temporaryPath, 0o600) == 0
            else {
                throw PhotoLibErrorText(SystemError(errno: errno, action: "write \(temporaryPath)").description)
            }
            guard rename(temporaryPath, finalPath) == 0 else {
                throw PhotoLibErrorText(SystemError(errno: errno, action: "rename to \(finalPath)").description)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporaryPath)
            logger.warning("cannot write the image cache file", metadata: ["path": "\(finalPath)", "error": "\(error)"])
            return
        }
        lock.withLock {
            if let old = entries[digest] { totalBytes -= old.size }
            clock += 1
            entries[digest] = Entry(size: bytes.count, lastUse: clock)
            totalBytes += bytes.count
        }
        evict()
    }

    /// Removes least recently used files until the cache is at most 90 % of its budget.
    private func evict() {
        let victims: [(String, Int)] = lock.withLock {
            guard totalBytes > budget else { return [] }
            let target = budget / 10 * 9
            var excess = totalBytes - target
            var chosen: [(String, Int)] = []
            for (digest, entry) in entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                guard excess > 0 else { break }
                chosen.append((digest, entry.size))
                excess -= entry.size
            }
            for (digest, size) in chosen {
                entries[digest] = nil
                totalBytes -= size
            }
            return chosen
        }
        for (digest, _) in victims { unlink(path(digest)) }
    }

    private func drop(_ digest: String) {
        lock.withLock {
            if let entry = entries.removeValue(forKey: digest) { totalBytes -= entry.size }
        }
        unlink(path(digest))
    }

    static func parse(_ bytes: [UInt8]) -> CachedImage? {
        guard bytes.count > headerSize, Array(bytes[0..<4]) == magic, bytes[4] == 1 else { return nil }
        let width = Int(bytes[6]) << 8 | Int(bytes[7])
        let height = Int(bytes[8]) << 8 | Int(bytes[9])
        let length = Int(bytes[10]) << 24 | Int(bytes[11]) << 16 | Int(bytes[12]) << 8 | Int(bytes[13])
        guard width > 0, height > 0, length == bytes.count - headerSize,
            bytes[headerSize] == 0xFF, bytes[headerSize + 1] == 0xD8,
            bytes[bytes.count - 2] == 0xFF, bytes[bytes.count - 1] == 0xD9
        else { return nil }
        return CachedImage(jpeg: Array(bytes[headerSize...]), width: width, height: height, degraded: bytes[5] == 1)
    }

    private static func uint16(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    private static func uint32(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}

/// A plain error message (for logs).
struct PhotoLibErrorText: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
