import Foundation
import PhotoLibCore
import PhotoLibStore

/// The assets of a fetch-result snapshot, in order: a fixed list, or one version of a live
/// result shared by subscribers.
protocol AssetListing: Sendable {
    /// The query the snapshot was fetched with.
    var query: AssetQuery { get }
    /// How many assets (fixed for the snapshot's life).
    var count: Int { get }
    /// The identifiers at `range`; `failedPrecondition` if the snapshot can no longer be read.
    func identifiers(in range: Range<Int>) throws(PhotoLibError) -> [String]
    /// The index of `identifier`, or `nil`.
    func index(of identifier: String) throws(PhotoLibError) -> Int?
    /// About how many bytes the listing holds (for the snapshot memory budget).
    var byteCount: Int { get }
    /// Names the list when several snapshots may share it (charged once), else `nil`.
    var sharedIdentity: ObjectIdentifier? { get }
    /// A change token at or before the state the list was read in (`nil`: unknown): every
    /// transaction after it may have changed the values of its assets.
    var changeToken: Int64? { get }
}

extension AssetListing {
    var sharedIdentity: ObjectIdentifier? { nil }
    var changeToken: Int64? { nil }
}

/// A snapshot as a plain list, taken by `FetchAssets`, stored compactly (16 bytes per asset).
struct StaticAssetListing: AssetListing {
    let query: AssetQuery
    private let storage: CompactIdentifiers

    init(identifiers: [String], query: AssetQuery) {
        self.storage = CompactIdentifiers(identifiers)
        self.query = query
    }

    var count: Int { storage.count }

    /// The bytes the list holds (for the snapshot memory budget).
    var byteCount: Int { storage.byteCount }

    /// Every identifier, in order.
    var identifiers: [String] { storage.all }

    func identifiers(in range: Range<Int>) throws(PhotoLibError) -> [String] {
        storage.identifiers(in: range)
    }

    func index(of identifier: String) throws(PhotoLibError) -> Int? {
        storage.index(of: identifier)
    }
}

/// A snapshot that is one version of a shared ``LiveEntry``: readable while that version is
/// current (a subscriber that keeps up always holds the current one).
struct LiveAssetListing: AssetListing {
    let entry: LiveEntry
    let version: Int
    let count: Int

    var query: AssetQuery { entry.query }

    /// The live entry's memory is bounded by the live-result limit, not by snapshots.
    var byteCount: Int { 64 }

    func identifiers(in range: Range<Int>) throws(PhotoLibError) -> [String] {
        try entry.read(version: version) { live throws(PhotoLibError) in try live.identifiers(in: range) }
    }

    func index(of identifier: String) throws(PhotoLibError) -> Int? {
        try entry.read(version: version) { live throws(PhotoLibError) in live.index(of: identifier) }
    }
}

/// A snapshot answered before it is fully read: the count and first page are known at once;
/// the rest arrives from ``FetchSnapshotReader/readAll()`` on a background queue, and a
/// read past the first page waits for it — on a thread that may block (the library I/O
/// pool or the hub's queue), never on the cooperative pool.
///
/// `@unchecked Sendable`: ``condition`` guards `full`, `failure` and `reader`; the other
/// properties are immutable.
final class PendingAssetListing: AssetListing, @unchecked Sendable {
    /// One thread of its own, in order; reads every pending snapshot's full list and ends its
    /// read transaction. One snapshot is read at a time, so a burst of fetches does not hold
    /// a burst of half-read lists in memory; a snapshot released before its turn is never
    /// read. It runs at nice 10: reading a million identifiers takes a core for a while, and
    /// the requests being served meanwhile (the snapshot's own first pages among them) come
    /// first; the read still gets about a tenth of a busy core, so a page that waits for it
    /// is late, never starved.
    private static let materializer = BlockingPool(name: "photolibd.snapshots", concurrency: 1, idleTimeout: 10, niceness: 10)

    let query: AssetQuery
    let count: Int
    let changeToken: Int64?
    private let first: [String]
    /// Guards `full`, `failure` and `reader`, and wakes the readers waiting in `complete()`
    /// (a condition variable, which `Mutex` has not). A leaf lock: the SQLite read runs
    /// outside it.
    private let condition = NSCondition()
    private var full: StaticAssetListing?
    private var failure: PhotoLibError?
    private var reader: FetchSnapshotReader?
    /// Snapshots holding this listing (identical fetches share one); the background read is
    /// given up when the last lets go.
    private var holders = 0

    init(reader: FetchSnapshotReader, query: AssetQuery, changeToken: Int64? = nil) {
        self.query = query
        self.changeToken = changeToken
        self.count = reader.count
        self.first = reader.firstIdentifiers
        self.reader = reader
        if reader.count <= reader.firstIdentifiers.count {
            full = StaticAssetListing(identifiers: reader.firstIdentifiers, query: query)
            self.reader = nil
            reader.close()
            return
        }
        Self.materializer.submit { [self] in
            condition.lock()
            let pending = self.reader
            self.reader = nil
            condition.unlock()
            guard let pending else { return }
            let result: Result<[String], PhotoLibError>
            do throws(PhotoLibError) { result = .success(try pending.readAll()) } catch { result = .failure(error) }
            condition.lock()
            switch result {
            case .success(let ids): full = StaticAssetListing(identifiers: ids, query: query)
            case .failure(let error): failure = error
            }
            condition.broadcast()
            condition.unlock()
        }
    }

    /// 16 bytes per asset once read (see ``CompactIdentifiers``), plus the first page.
    var byteCount: Int { count * 16 + first.count * 64 + 256 }

    /// Identical fetches at one library version share one pending listing.
    var sharedIdentity: ObjectIdentifier? { ObjectIdentifier(self) }

    /// One more snapshot holds this listing.
    func hold() {
        condition.lock()
        holders += 1
        condition.unlock()
    }

    /// Holds the listing for one more snapshot if it can still be read in full (some snapshot
    /// holds it and it has not failed): only then may another snapshot share it. `false`
    /// otherwise, and nothing changes.
    func holdIfUsable() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard failure == nil, holders > 0 else { return false }
        holders += 1
        return true
    }

    /// A snapshot holding this listing was released or evicted; the last one gives up the
    /// background read.
    func letGo() {
        condition.lock()
        holders -= 1
        let last = holders <= 0
        condition.unlock()
        if last { cancel() }
    }

    /// Gives up the background read.
    private func cancel() {
        condition.lock()
        let pending = reader
        reader = nil
        if full == nil && failure == nil {
            failure = PhotoLibError(.failedPrecondition, "this fetch result was released", reason: .fetchResultExpired)
        }
        condition.broadcast()
        condition.unlock()
        // Ending the read transaction is a SQLite call: on the snapshots queue, which owns
        // the readers' reads (the caller may be a handler on the cooperative pool).
        if let pending { Self.materializer.submit { pending.close() } }
    }

    /// The complete listing, waiting for the background read.
    private func complete() throws(PhotoLibError) -> StaticAssetListing {
        condition.lock()
        defer { condition.unlock() }
        while full == nil && failure == nil { condition.wait() }
        if let failure { throw failure }
        return full!
    }

    func identifiers(in range: Range<Int>) throws(PhotoLibError) -> [String] {
        if range.upperBound <= first.count { return Array(first[range]) }
        return try complete().identifiers(in: range)
    }

    func index(of identifier: String) throws(PhotoLibError) -> Int? {
        try complete().index(of: identifier)
    }
}
