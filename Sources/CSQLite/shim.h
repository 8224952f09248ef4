// CSQLite: the system sqlite3 (Debian libsqlite3-dev), plus the few helpers Swift cannot
// express itself. Every helper carries the CSQLite_ prefix and says why it exists.
#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

// MARK: Destructor sentinels
//
// SQLITE_TRANSIENT is `((sqlite3_destructor_type)-1)`: a cast of an integer to a function
// pointer, which the Clang importer drops. Binding with it makes SQLite copy the bytes
// before the call returns, so Swift may free its temporary buffer right after.

/// sqlite3_bind_text with SQLITE_TRANSIENT: SQLite copies `text` (`length` bytes, UTF-8).
/// Related SQLite documentation: https://www.sqlite.org/c3ref/bind_blob.html
static inline int CSQLite_bind_text_transient(sqlite3_stmt *statement, int index,
                                              const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

/// sqlite3_bind_blob with SQLITE_TRANSIENT: SQLite copies the `length` bytes at `bytes`.
/// Related SQLite documentation: https://www.sqlite.org/c3ref/bind_blob.html
static inline int CSQLite_bind_blob_transient(sqlite3_stmt *statement, int index,
                                              const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

// MARK: Extended result codes
//
// The extended codes are macros built with `|` and `<<` (`SQLITE_CONSTRAINT | (8<<8)`),
// which the Clang importer does not evaluate. Constants give them Swift names.

/// A UNIQUE constraint failed.
static const int CSQLite_CONSTRAINT_UNIQUE = SQLITE_CONSTRAINT_UNIQUE;
/// A PRIMARY KEY constraint failed.
static const int CSQLite_CONSTRAINT_PRIMARYKEY = SQLITE_CONSTRAINT_PRIMARYKEY;
/// A FOREIGN KEY constraint failed.
static const int CSQLite_CONSTRAINT_FOREIGNKEY = SQLITE_CONSTRAINT_FOREIGNKEY;

// MARK: Variadic configuration
//
// sqlite3_db_config is variadic, and Swift cannot call C variadic functions.

/// Turns off double-quoted string literals in DDL and DML, so that a misspelt column name
/// is an error instead of silently becoming a string. No-op before SQLite 3.29.
/// Related SQLite documentation: https://www.sqlite.org/quirks.html#dblquote
static inline void CSQLite_disable_double_quoted_strings(sqlite3 *db) {
#if SQLITE_VERSION_NUMBER >= 3029000
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (void *)0);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (void *)0);
#endif
}

/// Turns on defensive mode: ordinary SQL can no longer corrupt the file
/// (writable_schema, journal_mode=OFF and friends are refused).
/// Related SQLite documentation: https://www.sqlite.org/c3ref/c_dbconfig_defensive.html
static inline void CSQLite_enable_defensive(sqlite3 *db) {
#if SQLITE_VERSION_NUMBER >= 3026000
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (void *)0);
#endif
}

// MARK: The WAL-index header
//
// In WAL mode every commit, by any connection of any process, rewrites the WAL-index header
// in the `-shm` file that each connection maps (the header's change counter, last frame,
// salts and checksum move; the copy at offset 0 is written last, once the commit is
// visible to new readers). Reading it through the mapping SQLite's own VFS made for the
// connection costs no lock and no system call, where starting a read transaction (what
// `PRAGMA data_version` does) takes a shared-memory lock with `fcntl`. The format is SQLite's
// documented, stable on-disk format for the `-shm` file.
// Related SQLite documentation: https://www.sqlite.org/walformat.html#the_wal_index_header
// and https://www.sqlite.org/c3ref/io_methods.html (xShmMap)

/// Copies the first 48-byte copy of the WAL-index header of `db`'s main database into
/// `out` (six 64-bit words) through the VFS's own mapping of region 0, and returns 1; returns
/// 0 (and leaves `out` alone) when the VFS has no shared memory or none is mapped yet. A
/// copy taken while a commit rewrites the header may mix old and new bytes: it then equals
/// neither reading, which a caller comparing readings treats as a change.
static inline int CSQLite_copy_wal_index_header(sqlite3 *db, unsigned long long out[6]) {
    sqlite3_file *file = 0;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || file == 0) return 0;
    const struct sqlite3_io_methods *methods = file->pMethods;
    if (methods == 0 || methods->iVersion < 2 || methods->xShmMap == 0) return 0;
    volatile void *region = 0;
    if (methods->xShmMap(file, 0, 32768, 0, &region) != SQLITE_OK || region == 0) return 0;
    const volatile unsigned long long *header = (const volatile unsigned long long *)region;
    for (int index = 0; index < 6; index++) out[index] = header[index];
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return 1;
}

#endif
