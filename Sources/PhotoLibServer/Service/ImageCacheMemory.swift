import Foundation

/// Rendered images in memory, dropped when over a byte budget by second chance (CLOCK), an
/// approximation of least recently used: a hit only marks its image, and eviction, walking
/// from the oldest end, moves a marked image to the newest end (clearing the mark) instead
/// of dropping it. A hit so touches no links (relinking on every hit was a tenth of the
/// cached fast path's reference counting).
///
/// A doubly linked list through a dictionary gives O(1) lookup, insert and eviction. Both
/// links are strong (a weak one gives every node a side table, and each relinking would go
/// through it): a node leaves the list through ``unlink(_:)``, which clears them, and
/// ``deinit`` breaks the chain of what is left. Entries of an asset whose content
/// version moved on are dropped as soon as the new version is seen. Thread-safe.
final class ImageCacheMemory: @unchecked Sendable {
    private final class Node {
        let key: ImageCacheKey
        var image: CachedImage
        /// The image as response messages in each form, made on first use by
        /// ``ImageCacheMemory/messages(forCurrent:form:encode:)``.
        var parts: [[UInt8]]?
        var whole: [[UInt8]]?
        var newer: Node?
        var older: Node?
        /// Used since eviction last passed it: it gets a second chance.
        var referenced = false
        init(key: ImageCacheKey, image: CachedImage) {
            self.key = key
            self.image = image
        }

        /// Bytes held: the JPEG and, once made, its messages.
        var cost: Int { image.jpeg.count + Self.size(parts) + Self.size(whole) }

        static func size(_ messages: [[UInt8]]?) -> Int { messages?.reduce(0) { $0 + $1.count } ?? 0 }

        /// The messages kept for `form`.
        subscript(form: ImageMessageForm) -> [[UInt8]]? {
            get { form == .whole ? whole : parts }
            set { if form == .whole { whole = newValue } else { parts = newValue } }
        }
    }

    /// The byte budget: JPEG bytes, plus the response messages of images already served
    /// from here (``messages(forCurrent:form:encode:)`` keeps them, so a cached image served once counts
    /// about twice, and about three times once served in both forms).
    let budget: Int
    private let lock = NSLock()
    private var nodes: [ImageCacheKey: Node] = [:]
    private var byAsset: [String: (version: String, keys: Set<ImageCacheKey>)] = [:]
    /// Least recently used end.
    private var oldest: Node?
    /// Most recently used end.
    private var newest: Node?
    private(set) var bytes = 0

    init(budget: Int) {
        self.budget = max(0, budget)
    }

    deinit {
        // The list's links are strong both ways: break them, or the nodes would keep each other.
        var node = oldest
        while let current = node {
            node = current.newer
            current.newer = nil
            current.older = nil
        }
    }

    /// ``bytes``, read under the lock (from any thread).
    var heldBytes: Int {
        lock.lock()
        defer { lock.unlock() }
        return bytes
    }

    /// Number of entries.
    var count: Int { lock.withLock { nodes.count } }

    /// The image for `key`, marking it used.
    func get(_ key: ImageCacheKey) -> CachedImage? {
        lock.withLock {
            guard let node = nodes[key] else { return nil }
            node.referenced = true
            return node.image
        }
    }

    /// Stores `image`; images larger than a quarter of the budget are not kept.
    func put(_ key: ImageCacheKey, _ image: CachedImage) {
        guard image.jpeg.count <= budget / 4 else { return }
        lock.withLock {
            noteVersionLocked(key.assetIdentifier, key.contentVersion)
            if let existing = nodes[key] {
                bytes -= existing.cost
                existing.image = image
                existing.parts = nil
                existing.whole = nil
                bytes += existing.cost
                unlink(existing)
                append(existing)
                evictOverBudget(sparing: existing)
            } else {
                let node = Node(key: key, image: image)
                nodes[key] = node
                byAsset[key.assetIdentifier, default: (key.contentVersion, [])].keys.insert(key)
                bytes += image.jpeg.count
                append(node)
                evictOverBudget(sparing: node)
            }
        }
    }

    /// The image for `key` as encoded response messages in `form` (made by `encode` on first
    /// use and kept with the image, within the budget), marking it used; on a miss,
    /// `key`'s content version is noted for its asset (``noteContentVersion(asset:version:)``).
    /// One hold of the lock for the look-up and the note: the fast path's only one.
    func messages(forCurrent key: ImageCacheKey, form: ImageMessageForm, encode: (CachedImage) -> [[UInt8]]) -> [[UInt8]]? {
        lock.withLock {
            // A node is held under a key only while the key's content version is the one
            // noted for its asset (noting another drops the asset's nodes first, in `put`
            // too): a hit has nothing to note, and only a miss looks the asset up.
            guard let node = nodes[key] else {
                noteVersionLocked(key.assetIdentifier, key.contentVersion)
                return nil
            }
            return messagesLocked(of: node, form: form, encode: encode)
        }
    }

    private func messagesLocked(of node: Node, form requested: ImageMessageForm, encode: (CachedImage) -> [[UInt8]]) -> [[UInt8]]? {
        node.referenced = true
        // An image over one chunk goes in parts whatever the request takes: one copy of them.
        let form = requested.applied(toByteCount: node.image.jpeg.count)
        if let messages = node[form] { return messages }
        let messages = encode(node.image)
        node[form] = messages
        bytes += Node.size(messages)
        evictOverBudget(sparing: node)
        return messages
    }

    /// Drops images from the oldest end until the budget holds, giving each marked one, and
    /// `spared` (the image just stored or served), a second chance: moved to the newest end,
    /// unmarked. Ends: each step drops an image or unmarks one, and `spared` alone stops it.
    private func evictOverBudget(sparing spared: Node) {
        while bytes > budget, let victim = oldest {
            if victim === spared || victim.referenced {
                if victim !== newest {
                    victim.referenced = false
                    unlink(victim)
                    append(victim)
                    continue
                }
                if victim === spared { break }
            }
            remove(victim)
        }
    }

    /// Records the asset's current content version, dropping entries of older versions.
    func noteContentVersion(asset: String, version: String) {
        lock.withLock { noteVersionLocked(asset, version) }
    }

    /// The largest cached final image of the same asset, content, crop and framing that is
    /// smaller than `width` × `height` (a cheap degraded image: no decode, no encode). Same
    /// framing: an aspect-fit render (the whole image) for an aspect-fit request, an
    /// aspect-fill one of the same target proportions for an aspect-fill request (a fill
    /// render of other proportions, or a fit render, shows another part of the picture).
    func smallerRender(like key: ImageCacheKey, width: Int, height: Int) -> CachedImage? {
        lock.withLock {
            guard let entry = byAsset[key.assetIdentifier], entry.version == key.contentVersion else { return nil }
            var best: CachedImage?
            for candidate in entry.keys where candidate.crop == key.crop && candidate.variant == .final && candidate.version == key.version
                && Self.sameFraming(candidate, key)
            {
                guard let image = nodes[candidate]?.image, !image.degraded,
                    image.width < width || image.height < height,
                    image.width <= width && image.height <= height
                else { continue }
                if best == nil || image.width > best!.width { best = image }
            }
            return best
        }
    }

    /// Whether renders for `a` and `b` show the same part of the picture (see
    /// ``smallerRender(like:width:height:)``); the maximum size is an aspect fit.
    static func sameFraming(_ a: ImageCacheKey, _ b: ImageCacheKey) -> Bool {
        func fits(_ key: ImageCacheKey) -> Bool { key.contentMode == .aspectFit || key.targetSize == .maximum }
        if fits(a) || fits(b) { return fits(a) && fits(b) }
        return a.targetSize.width * b.targetSize.height == b.targetSize.width * a.targetSize.height
    }

    private func noteVersionLocked(_ asset: String, _ version: String) {
        guard let entry = byAsset[asset], entry.version != version else { return }
        for key in entry.keys {
            if let node = nodes[key] { remove(node) }
        }
        byAsset[asset] = (version, [])
    }

    private func remove(_ node: Node) {
        unlink(node)
        nodes[node.key] = nil
        bytes -= node.cost
        if var entry = byAsset[node.key.assetIdentifier] {
            entry.keys.remove(node.key)
            byAsset[node.key.assetIdentifier] = entry.keys.isEmpty && entry.version == node.key.contentVersion ? nil : entry
        }
    }

    private func unlink(_ node: Node) {
        let older = node.older
        let newer = node.newer
        older?.newer = newer
        newer?.older = older
        if oldest === node { oldest = newer }
        if newest === node { newest = older }
        node.newer = nil
        node.older = nil
    }

    private func append(_ node: Node) {
        node.older = newest
        node.newer = nil
        newest?.newer = node
        newest = node
        if oldest == nil { oldest = node }
    }
}
