import PhotoLibStore

/// The database half of ``ImageSource`` (resource records and content generation) for
/// recently requested assets, valid while the database has not changed.
///
/// Every entry is stamped with the database's version (`PhotoLibrary.dataVersion()`:
/// another connection's commit or one of ours moves it); a different stamp empties the
/// cache, so nothing read before a commit is used after it. Confined to
/// ``ImageSourceResolver``'s lock.
final class ImageSourceCache {
    /// What is remembered of an asset: its rows, and the last source made from them with
    /// the identity of the file it was made from and the ``FileIdentityCache`` generation
    /// that identity is remembered under, if it is (``ImageSourceResolver`` hands the
    /// source out again while that file is unchanged). A class: a look-up hands out one
    /// reference, not a copy of every row (the cached-image fast path looks one up per request).
    final class Entry {
        let records: ImageSourceRecords
        var made: (source: ImageSource, file: FileIdentity, generation: Int?)?
        init(records: ImageSourceRecords) {
            self.records = records
        }
    }

    /// At most this many assets are remembered; the cache starts over beyond it.
    let capacity: Int
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
    func store(_ identifier: String, _ records: ImageSourceRecords, stamp: Int) {
        guard stamp == self.stamp else { return }
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[identifier] = Entry(records: records)
    }

    /// Remembers `source`, made from the rows of `identifier` read at `stamp` and from its
    /// file as `file` identified it; nothing when those rows are no longer the entry's.
    func remember(_ identifier: String, source: ImageSource, file: FileIdentity, generation: Int?, stamp: Int) {
        guard stamp == self.stamp else { return }
        entries[identifier]?.made = (source, file, generation)
    }
}
