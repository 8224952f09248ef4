/// The database half of ``ImageSource`` (resource records and content generation) for
/// recently requested assets, valid while the database has not changed.
///
/// Every entry is stamped with the database's version (``PhotoLibrary/dataVersion()``:
/// another connection's commit or one of ours moves it); a different stamp empties the
/// cache, so nothing read before a commit is used after it. Confined to the library's lock.
final class ImageSourceCache {
    /// What one asset's rows say.
    struct Entry {
        var resources: [AssetResourceRecord]
        var generation: Int
    }

    /// At most this many assets are remembered; the cache starts over beyond it.
    let capacity: Int
    /// The last `PRAGMA data_version` read and when (uptime nanoseconds, taken just before
    /// reading it): a request that arrived before then can use it instead of reading again.
    var lastVersionCheck: (at: UInt64, dataVersion: Int)?
    private var stamp: Int?
    private var entries: [String: Entry] = [:]

    init(capacity: Int = 50_000) {
        self.capacity = max(1, capacity)
    }

    /// The entry of `identifier` if it was read while the database was at `stamp`.
    func entry(_ identifier: String, stamp: Int) -> Entry? {
        guard stamp == self.stamp else {
            entries.removeAll(keepingCapacity: true)
            self.stamp = stamp
            return nil
        }
        return entries[identifier]
    }

    /// Remembers what was read while the database was at `stamp` (read before the rows).
    func store(_ identifier: String, _ entry: Entry, stamp: Int) {
        guard stamp == self.stamp else { return }
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[identifier] = entry
    }
}
