import Foundation
import PhotoLibCore
import Synchronization

/// The library's SQLite connections, in GRDB's `DatabasePool` shape: one writer and a small
/// pool of WAL readers, so that reads never wait for a write.
///
/// - **The writer** runs every write transaction (`BEGIN IMMEDIATE`), one at a time, under
///   ``writerLock``. Schema migration and crash recovery use it at open.
/// - **Readers** (at most ``readerCount``, opened on first need, `query_only`) run reads. WAL
///   lets each see the last committed state while the writer works; a read starting after a
///   commit sees it. A caller that finds every reader busy waits for one: the pool never
///   grows past its bound, whatever the number of callers (they are blocking-pool threads,
///   never the cooperative pool or an I/O queue).
/// - **The version connection** answers `PRAGMA data_version`, which moves whenever another
///   connection commits — the writer or another process (`photolibd import`) — under its own
///   lock, so polling it never waits for a write or a read. It asks only when the WAL-index
///   header (in the `-shm` mapping, read with no lock or system call) changed since its last
///   answer: every commit, by any process, rewrites that header before it is visible, so an
///   unchanged header means the last answer still holds.
///
/// Every connection keeps its own statement cache. With `readerCount` 0 reads share the
/// writer and its lock (one connection, as before the pool; kept to measure the
/// difference: `photolibd serve --store-readers 0`).
final class DatabasePool: @unchecked Sendable {
    /// The database file.
    let path: String
    /// The most readers open at once (0: reads use the writer).
    let readerCount: Int
    /// The writer connection; use only holding ``writerLock``.
    private let writer: Database
    /// Serializes use of ``writer``: held for a whole write transaction (which may wait on
    /// SQLite's busy timeout for another process, or on the disk). Never taken while holding
    /// ``readers`` or ``versionLock``. Not a `Mutex`: `Database` is not `Sendable`.
    private let writerLock = NSLock()
    /// Guards ``idle`` and ``opened``: taken only to check a reader out or in, never across
    /// SQL. A caller waits on it when every reader is busy.
    private let readers = NSCondition()
    /// Readers not in use.
    private var idle: [Database] = []
    /// Readers opened so far (in use or idle), at most ``readerCount``.
    private var opened = 0
    /// The connection `PRAGMA data_version` is read on; use only holding ``versionLock``.
    private let version: Database
    /// Serializes use of ``version`` and ``lastVersion``: held for one `PRAGMA`, or one
    /// reading of the WAL-index header. A leaf lock.
    private let versionLock = NSLock()
    /// The last `PRAGMA data_version` answer, and the WAL-index header read just before it
    /// was asked (a commit in between only makes the next check ask again).
    private var lastVersion: (header: WALIndexHeader, version: Int)?
    /// How many times ``dataVersion()`` ran the `PRAGMA` (visible to tests: the header check
    /// must save it while nothing commits, and must not while something does).
    private var versionQueryCount = 0
    /// How many write transactions the writer committed.
    private let commits = Atomic<Int>(0)

    /// The default number of readers: one per core, at least 2 and at most 8.
    static var defaultReaderCount: Int { min(8, max(2, ProcessInfo.processInfo.activeProcessorCount)) }
    /// The most readers accepted.
    static let maximumReaderCount = 64

    /// Opens the writer (creating the file if needed) and the version connection; readers
    /// open when first needed, after the caller has migrated the schema with ``writing(_:)``.
    init(path: String, readerCount: Int) throws(PhotoLibError) {
        guard (0...Self.maximumReaderCount).contains(readerCount) else {
            throw PhotoLibError(.invalidArgument, "the store's reader count \(readerCount) must be within 0…\(Self.maximumReaderCount)")
        }
        self.path = path
        self.readerCount = readerCount
        self.writer = try Database(path: path)
        self.version = try Database(path: path, role: .reader)
    }

    /// How many write transactions this pool has committed (no query).
    var localCommitCount: Int { commits.load(ordering: .acquiring) }

    /// `PRAGMA data_version` on the version connection: moves with every commit by any other
    /// connection, this pool's writer included.
    ///
    /// The `PRAGMA` runs only when the WAL-index header changed since the last one: the
    /// header is read first, so a commit landing between the reading and the `PRAGMA` leaves
    /// a header older than the answer, and the next call asks again. (An unchanged header
    /// means no commit was published in between, by this process or another.)
    func dataVersion() throws(PhotoLibError) -> Int {
        versionLock.lock()
        defer { versionLock.unlock() }
        // Only once a read has mapped the WAL-index: before, the mapping would be made here.
        let header = versionQueryCount > 0 ? version.walIndexHeader() : nil
        if let header, let last = lastVersion, last.header == header { return last.version }
        let answer = try version.dataVersion()
        versionQueryCount += 1
        lastVersion = header.map { ($0, answer) }
        return answer
    }

    /// ``versionQueryCount`` read under its lock.
    var dataVersionQueryCount: Int {
        versionLock.lock()
        defer { versionLock.unlock() }
        return versionQueryCount
    }

    /// Runs `body` with exclusive use of the writer, outside any transaction (migrations and
    /// recovery manage their own).
    func writing<T>(_ body: (Database) throws(PhotoLibError) -> T) throws(PhotoLibError) -> T {
        writerLock.lock()
        defer { writerLock.unlock() }
        let before = writer.localCommitCount
        defer { commits.add(writer.localCommitCount - before, ordering: .releasing) }
        return try body(writer)
    }

    /// Runs `body` in one write transaction on the writer.
    func write<T>(_ body: (Database) throws(PhotoLibError) -> T) throws(PhotoLibError) -> T {
        try writing { (database) throws(PhotoLibError) in
            try database.inTransaction { () throws(PhotoLibError) in try body(database) }
        }
    }

    /// Runs `body` on a reader, outside a transaction (each statement sees the latest commit).
    func reading<T>(_ body: (Database) throws(PhotoLibError) -> T) throws(PhotoLibError) -> T {
        guard readerCount > 0 else { return try writing(body) }
        let reader = try checkOut()
        defer { checkIn(reader) }
        return try body(reader)
    }

    /// Runs `body` in one read transaction on a reader (one consistent snapshot).
    func read<T>(_ body: (Database) throws(PhotoLibError) -> T) throws(PhotoLibError) -> T {
        try reading { (database) throws(PhotoLibError) in
            try database.inReadTransaction { () throws(PhotoLibError) in try body(database) }
        }
    }

    /// An idle reader, a new one while fewer than ``readerCount`` are open, or the next one
    /// checked in.
    private func checkOut() throws(PhotoLibError) -> Database {
        readers.lock()
        while idle.isEmpty && opened >= readerCount { readers.wait() }
        if let reader = idle.popLast() {
            readers.unlock()
            return reader
        }
        opened += 1
        readers.unlock()
        do {
            return try Database(path: path, role: .reader)
        } catch {
            readers.lock()
            opened -= 1
            readers.signal()
            readers.unlock()
            throw error
        }
    }

    private func checkIn(_ reader: Database) {
        readers.lock()
        idle.append(reader)
        readers.signal()
        readers.unlock()
    }
}
