internal import CSQLite
import PhotoLibCore

/// A prepared SQLite statement, finalized when released.
///
/// A statement belongs to the connection that prepared it and must only be used while that
/// connection's lock is held, hence not `Sendable`.
final class Statement {
    /// The compiled statement.
    private let handle: OpaquePointer
    /// The connection that prepared it, for error messages (SQLite keeps a connection alive,
    /// as a zombie, until its last statement is finalized).
    private let connection: OpaquePointer
    /// The database file, for error messages.
    private let path: String
    /// The SQL text, for error messages.
    let sql: String

    /// Compiles `sql`, which must hold exactly one statement.
    /// Related SQLite documentation: https://www.sqlite.org/c3ref/prepare.html
    init(database: Database, sql: String) throws(PhotoLibError) {
        self.connection = database.handle
        self.path = database.path
        self.sql = sql
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let code = sql.withCString { text in
            sqlite3_prepare_v2(database.handle, text, -1, &statement, &tail)
        }
        guard code == SQLITE_OK, let statement else {
            throw database.error(code: code, sql: sql)
        }
        self.handle = statement
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: Binding

    /// Resets the statement and binds `values` to parameters 1…n.
    /// Related SQLite documentation: https://www.sqlite.org/c3ref/bind_blob.html
    func bind(_ values: [DatabaseValue]) throws(PhotoLibError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw PhotoLibError(.internalError, "statement expects \(expected) parameters, got \(values.count): \(sql.prefix(200))")
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null:
                code = sqlite3_bind_null(handle, index)
            case .integer(let integer):
                code = sqlite3_bind_int64(handle, index, integer)
            case .real(let real):
                code = sqlite3_bind_double(handle, index, real)
            case .text(let text):
                // withCString holds every byte (interior NULs included); the length bounds it.
                let length = Int32(clamping: text.utf8.count)
                code = text.withCString { CSQLite_bind_text_transient(handle, index, $0, length) }
            }
            guard code == SQLITE_OK else { throw error(code: code) }
        }
    }

    // MARK: Stepping

    /// Advances to the next row: `true` when a row is available, `false` when done.
    /// Related SQLite documentation: https://www.sqlite.org/c3ref/step.html
    func step() throws(PhotoLibError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            return false
        case let code:
            let failure = error(code: code)
            sqlite3_reset(handle)
            throw failure
        }
    }

    /// Binds `values` and runs the statement to completion, ignoring rows.
    func execute(_ values: [DatabaseValue] = []) throws(PhotoLibError) {
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Binds `values` and calls `row` for each result row.
    func forEachRow(_ values: [DatabaseValue] = [], _ row: (Statement) throws(PhotoLibError) -> Void) throws(PhotoLibError) {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() { try row(self) }
    }

    /// Binds `values` and calls `row` for each result row while it returns `true`: SQLite
    /// steps no further once it returns `false`.
    func forEachRow(_ values: [DatabaseValue], while row: (Statement) throws(PhotoLibError) -> Bool) throws(PhotoLibError) {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step(), try row(self) {}
    }

    /// Binds `values` and decodes every row with `decode`.
    func rows<T>(_ values: [DatabaseValue], _ decode: (Statement) throws(PhotoLibError) -> T) throws(PhotoLibError) -> [T] {
        var result: [T] = []
        try forEachRow(values) { (statement) throws(PhotoLibError) in result.append(try decode(statement)) }
        return result
    }

    /// Decodes every row of a statement without parameters.
    func rows<T>(_ decode: (Statement) throws(PhotoLibError) -> T) throws(PhotoLibError) -> [T] {
        try rows([], decode)
    }

    /// Decodes the first row of a statement without parameters, if any.
    func firstRow<T>(_ decode: (Statement) throws(PhotoLibError) -> T) throws(PhotoLibError) -> T? {
        try firstRow([], decode)
    }

    /// Binds `values` and decodes the first row, if any.
    func firstRow<T>(_ values: [DatabaseValue], _ decode: (Statement) throws(PhotoLibError) -> T) throws(PhotoLibError) -> T? {
        try bind(values)
        defer { sqlite3_reset(handle) }
        guard try step() else { return nil }
        return try decode(self)
    }

    /// The error for a failed call on this statement.
    private func error(code: Int32) -> PhotoLibError {
        DatabaseError(connection: connection, code: code, sql: sql, path: path).photoLibError
    }

    // MARK: Columns of the current row

    /// Whether column `index` (0-based) is NULL.
    func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// Column `index` as an integer.
    func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// Column `index` as a Swift `Int`.
    func int(_ index: Int32) -> Int { Int(sqlite3_column_int64(handle, index)) }

    /// Column `index` as a double.
    func double(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// Column `index` as a double, `nil` for NULL.
    func optionalDouble(_ index: Int32) -> Double? { isNull(index) ? nil : double(index) }

    /// Column `index` as text (empty for NULL). SQLite returns valid UTF-8 for text it was
    /// given as valid UTF-8; anything else is repaired by `String(decoding:)`.
    func text(_ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Calls `body` with the bytes of column `index` read as text (UTF-8 as stored; empty
    /// for NULL), valid only during the call: no `String` made.
    func withText<R>(_ index: Int32, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        guard let bytes = sqlite3_column_text(handle, index) else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return body(UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, index))))
    }

    /// Column `index` as text, `nil` for NULL.
    func optionalText(_ index: Int32) -> String? { isNull(index) ? nil : text(index) }

    /// Column `index` as a 64-bit integer, `nil` for NULL.
    func optionalInt64(_ index: Int32) -> Int64? { isNull(index) ? nil : int64(index) }
}

@available(*, unavailable)
extension Statement: Sendable {}
