internal import CSQLite
import PhotoLibCore

/// A failed SQLite call: the extended result code, SQLite's message and the SQL that failed.
///
/// Internal: callers of the store see `PhotoLibError` values, made by ``photoLibError``,
/// whose message carries the code and text so that a person can act on it.
struct DatabaseError: Error, Sendable {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_IOERR_FSYNC`…).
    /// Related SQLite documentation: https://www.sqlite.org/rescode.html
    var extendedResultCode: Int32
    /// `sqlite3_errmsg` at the time of the failure.
    var message: String
    /// The statement that failed, if any.
    var sql: String?
    /// The database file.
    var path: String

    /// The primary result code: the low 8 bits of the extended one.
    var primaryResultCode: Int32 { extendedResultCode & 0xff }

    /// Reads the error of the last failed call on `connection`.
    init(connection: OpaquePointer?, code: Int32, sql: String?, path: String) {
        self.extendedResultCode = connection.map { sqlite3_extended_errcode($0) } ?? code
        if self.extendedResultCode & 0xff != code & 0xff { self.extendedResultCode = code }
        if let connection, let text = sqlite3_errmsg(connection) {
            self.message = String(cString: text)
        } else if let text = sqlite3_errstr(code) {
            self.message = String(cString: text)
        } else {
            self.message = "unknown error"
        }
        self.sql = sql
        self.path = path
    }

    /// The store-wide error value: a status code chosen from the SQLite result code.
    var photoLibError: PhotoLibError {
        let code: StatusCode
        let advice: String
        switch primaryResultCode {
        case SQLITE_BUSY, SQLITE_LOCKED:
            code = .unavailable
            advice = "another process (photolibd or photolibd import) held the library locked for longer than the busy timeout; retry"
        case SQLITE_FULL:
            code = .resourceExhausted
            advice = "the disk holding the library is full; free space and retry"
        case SQLITE_NOMEM:
            code = .resourceExhausted
            advice = "SQLite ran out of memory"
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            code = .dataLoss
            advice = "the database file is damaged; restore it from a backup"
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_AUTH:
            code = .failedPrecondition
            advice = "the library cannot be written; check the permissions of its directory and files"
        case SQLITE_CANTOPEN:
            code = .unavailable
            advice = "the database file cannot be opened; check that its directory exists and is accessible"
        case SQLITE_CONSTRAINT:
            switch extendedResultCode {
            case CSQLite_CONSTRAINT_UNIQUE, CSQLite_CONSTRAINT_PRIMARYKEY:
                code = .alreadyExists
                advice = "a row with the same key exists already"
            case CSQLite_CONSTRAINT_FOREIGNKEY:
                code = .failedPrecondition
                advice = "a referenced row does not exist"
            default:
                code = .invalidArgument
                advice = "a value broke a rule of the schema"
            }
        case SQLITE_IOERR:
            code = .unavailable
            advice = "the disk reported an I/O error"
        default:
            code = .internalError
            advice = "this is a bug in PhotoLib"
        }
        var text = "SQLite error \(extendedResultCode) (\(Self.codeName(extendedResultCode))) in \(path): \(message); \(advice)"
        if let sql { text += " [SQL: \(sql.prefix(200))]" }
        var error = PhotoLibError(code, text)
        error.cause = PhotoLibError.Cause(domain: .sqlite, code: extendedResultCode, message: message)
        return error
    }

    /// SQLite's English text for a result code (`sqlite3_errstr`).
    /// Related SQLite documentation: https://www.sqlite.org/c3ref/errcode.html
    static func codeName(_ code: Int32) -> String {
        sqlite3_errstr(code).map { String(cString: $0) } ?? "unknown"
    }
}
