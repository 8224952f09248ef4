internal import CSQLite
import PhotoLibCore

/// One SQLite connection, closed when released.
///
/// Not thread-safe: ``DatabasePool`` owns them and hands each to one thread at a time.
final class Database {
    /// What a connection is for.
    enum Role {
        /// Reads and writes; switches the file to WAL.
        case writer
        /// Reads only (`PRAGMA query_only`): a WAL reader beside the writer.
        case reader
    }

    /// The connection handle.
    let handle: OpaquePointer
    /// The database file.
    let path: String
    /// Statements compiled once and reused, keyed by their SQL.
    private var statementCache: [String: Statement] = [:]
    /// How many write transactions this connection committed (`PRAGMA data_version` does
    /// not move for a connection's own commits).
    private(set) var localCommitCount = 0

    /// How long a statement waits for another connection's lock before failing with
    /// `SQLITE_BUSY`: `photolibd import` writes from another process while the server runs.
    static let busyTimeoutMilliseconds: Int32 = 5_000

    /// The oldest SQLite accepted: 3.38 has the JSON functions built in (`json_each`).
    static let minimumSQLiteVersion: Int32 = 3_038_000

    /// Opens (creating if needed) the database file at `path` and configures the connection:
    /// WAL journal, `synchronous=FULL`, foreign keys, busy timeout, no double-quoted strings;
    /// a reader also refuses to write (`query_only`).
    ///
    /// On failure the half-open connection is closed before throwing.
    /// Related SQLite documentation: https://www.sqlite.org/c3ref/open.html
    init(path: String, role: Role = .writer) throws(PhotoLibError) {
        guard sqlite3_libversion_number() >= Self.minimumSQLiteVersion else {
            throw PhotoLibError(
                .failedPrecondition,
                "SQLite \(String(cString: sqlite3_libversion())) is too old: PhotoLib needs 3.38 or later (install a newer libsqlite3)")
        }
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let error = DatabaseError(connection: connection, code: code, sql: nil, path: path).photoLibError
            sqlite3_close_v2(connection)
            throw error
        }
        self.handle = connection
        self.path = path
        sqlite3_extended_result_codes(connection, 1)
        sqlite3_busy_timeout(connection, Self.busyTimeoutMilliseconds)
        CSQLite_disable_double_quoted_strings(connection)
        CSQLite_enable_defensive(connection)
        // On any failure below, `deinit` closes the connection.
        try configure(role)
    }

    deinit {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Per-connection settings.
    ///
    /// `synchronous=FULL` rather than NORMAL: in WAL mode NORMAL already survives `kill -9`,
    /// but a power cut may roll back the last commits, after the caller was told the import
    /// succeeded (and after recovery removed the then-unreferenced original). FULL syncs the
    /// WAL at every commit; an import already pays two fsyncs for its file, so one more is
    /// a small price for "acknowledged means durable".
    /// Related SQLite documentation: https://www.sqlite.org/pragma.html#pragma_synchronous
    private func configure(_ role: Role) throws(PhotoLibError) {
        // The writer switches the file to WAL (persistent); a reader only checks it.
        let mode = try prepare(role == .writer ? "PRAGMA journal_mode = WAL" : "PRAGMA journal_mode").firstRow { $0.text(0) }
        guard mode?.lowercased() == "wal" else {
            throw PhotoLibError(
                .failedPrecondition,
                "\(path) could not be switched to WAL journal mode (it reports '\(mode ?? "nothing")'); is it on a network file system?")
        }
        try execute("PRAGMA synchronous = FULL")
        try execute("PRAGMA foreign_keys = ON")
        guard try prepare("PRAGMA foreign_keys").firstRow({ $0.int(0) }) == 1 else {
            throw PhotoLibError(.failedPrecondition, "this SQLite build cannot enforce foreign keys, which PhotoLib relies on")
        }
        if role == .reader { try execute("PRAGMA query_only = 1") }
    }

    /// The store error for a failed call on this connection.
    func error(code: Int32, sql: String?) -> PhotoLibError {
        DatabaseError(connection: handle, code: code, sql: sql, path: path).photoLibError
    }

    // MARK: Statements

    /// Runs one or more SQL statements without parameters (schema changes, pragmas).
    /// Related SQLite documentation: https://www.sqlite.org/c3ref/exec.html
    func execute(_ sql: String) throws(PhotoLibError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code: code, sql: sql) }
    }

    /// A compiled statement for `sql`, reused across calls.
    func prepare(_ sql: String) throws(PhotoLibError) -> Statement {
        if let statement = statementCache[sql] { return statement }
        let statement = try Statement(database: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// A compiled statement for SQL built at run time (not cached: there may be many shapes).
    func prepareUncached(_ sql: String) throws(PhotoLibError) -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// The rowid of the last row inserted on this connection.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// How many rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// `PRAGMA data_version`: moves when another connection commits.
    /// Related SQLite documentation: https://www.sqlite.org/pragma.html#pragma_data_version
    func dataVersion() throws(PhotoLibError) -> Int {
        try prepare("PRAGMA data_version").firstRow { $0.int(0) } ?? 0
    }

    /// The WAL-index header as this connection's mapping of the `-shm` file shows it now: it
    /// changes with every commit by any connection (SQLite's file format, see
    /// `CSQLite_copy_wal_index_header`), and reading it takes no lock and no system call.
    /// `nil` before the connection has mapped the WAL-index (call it after a read).
    func walIndexHeader() -> WALIndexHeader? {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        let copied = withUnsafeMutableBytes(of: &words) { raw in
            CSQLite_copy_wal_index_header(handle, raw.baseAddress!.assumingMemoryBound(to: UInt64.self))
        }
        guard copied == 1 else { return nil }
        return WALIndexHeader(words: words)
    }

    // MARK: Transactions

    /// Runs `body` in a write transaction and commits it, or rolls back if `body` throws.
    ///
    /// `BEGIN IMMEDIATE` takes the write lock up front, so writers in other processes queue
    /// on the busy timeout instead of failing with a deadlock when a reader upgrades, and a
    /// read inside `body` cannot be invalidated by another writer before the commit.
    /// Related SQLite documentation: https://www.sqlite.org/lang_transaction.html
    func inTransaction<T>(_ body: () throws(PhotoLibError) -> T) throws(PhotoLibError) -> T {
        try execute("BEGIN IMMEDIATE")
        let result: T
        do {
            result = try body()
            try execute("COMMIT")
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
        localCommitCount += 1
        return result
    }

    /// Rolls back the open transaction, if any. A failure here leaves nothing to undo:
    /// SQLite rolls back itself when it cannot, and the caller already reports the first error.
    private func rollbackIgnoringErrors() {
        if sqlite3_get_autocommit(handle) == 0 {
            sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
        }
    }

    /// Runs `body` in a read transaction, so that every statement in it sees one snapshot.
    func inReadTransaction<T>(_ body: () throws(PhotoLibError) -> T) throws(PhotoLibError) -> T {
        try execute("BEGIN DEFERRED")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
    }
}
