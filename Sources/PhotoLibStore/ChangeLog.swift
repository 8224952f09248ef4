import Foundation
import PhotoLibCore

/// What a committed ``PhotoLibrary/performChanges(_:author:now:)`` did.
public struct ChangeResult: Sendable, Hashable {
    /// The change token of the transaction; when the batch changed nothing, no transaction
    /// is recorded and this is the current token.
    public var token: Int64
    /// Placeholder label → the real identifier (for a deduplicated upload: the existing asset).
    public var placeholders: [String: String]
    /// Exactly what the transaction touched (see `ObjectChange` for the rules).
    public var changes: [ObjectChange]
    /// Absolute paths of the purged assets' files, removed after the commit.
    public var removedFiles: [String]
    /// Files that could not be removed after the commit (the change stands; recovery removes
    /// them at the next exclusive open), one message each.
    public var fileRemovalFailures: [String]

    /// Creates a result value.
    public init(token: Int64, placeholders: [String: String] = [:], changes: [ObjectChange] = [],
                removedFiles: [String] = [], fileRemovalFailures: [String] = []) {
        self.token = token
        self.placeholders = placeholders
        self.changes = changes
        self.removedFiles = removedFiles
        self.fileRemovalFailures = fileRemovalFailures
    }
}

/// The changes one transaction makes, merged per object (see `ObjectChange`).
struct ChangeSet {
    private struct Key: Hashable {
        var type: ObjectChange.ObjectType
        var identifier: String
    }

    private var order: [Key] = []
    private var entries: [Key: (kind: ObjectChange.Kind, content: Bool)] = [:]

    /// Records that the transaction did `kind` to an object.
    mutating func record(_ type: ObjectChange.ObjectType, _ identifier: String, _ kind: ObjectChange.Kind, contentChanged: Bool = false) {
        let key = Key(type: type, identifier: identifier)
        guard let existing = entries[key] else {
            order.append(key)
            entries[key] = (kind, contentChanged)
            return
        }
        switch (existing.kind, kind) {
        case (.inserted, .deleted):
            entries[key] = nil
            order.removeAll { $0 == key }
        case (.inserted, _):
            break
        case (_, .deleted):
            entries[key] = (.deleted, false)
        case (.deleted, _):
            // A deleted object cannot change again in the same transaction; keep the deletion.
            break
        case (.updated, _):
            entries[key] = (.updated, existing.content || contentChanged)
        }
    }

    /// The merged changes, in first-touch order.
    var changes: [ObjectChange] {
        order.compactMap { key in
            entries[key].map { ObjectChange(objectType: key.type, identifier: key.identifier, kind: $0.kind, assetContentChanged: $0.content) }
        }
    }

    /// Whether the transaction changed nothing.
    var isEmpty: Bool { order.isEmpty }
}

/// Reading and writing the change log (`change_transaction`, `change_object`).
enum ChangeLog {
    /// The meta key holding the highest token removed by pruning.
    static let prunedThroughKey = "history_pruned_through"
    /// The longest author name.
    static let maximumAuthorLength = 64

    /// Appends one transaction to the log inside the caller's open transaction and returns
    /// its token; records nothing and returns `nil` when `changes` is empty.
    static func append(_ changes: ChangeSet, author: String, committedAt: Int64, in database: Database) throws(PhotoLibError) -> Int64? {
        guard !changes.isEmpty else { return nil }
        try database.prepare("INSERT INTO change_transaction (committed_at, author) VALUES (?, ?)")
            .execute([.integer(committedAt), .text(author)])
        let token = database.lastInsertedRowID
        let insert = try database.prepare(
            "INSERT INTO change_object (token, seq, object_type, identifier, kind, content_changed) VALUES (?, ?, ?, ?, ?, ?)")
        for (seq, change) in changes.changes.enumerated() {
            try insert.execute([
                .integer(token), .int(seq), .int(change.objectType.rawValue), .text(change.identifier),
                .int(change.kind.rawValue), .bool(change.assetContentChanged),
            ])
        }
        return token
    }

    /// The highest token ever assigned (0 for a new library); survives pruning.
    static func currentToken(in database: Database) throws(PhotoLibError) -> Int64 {
        try database.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'change_transaction'").firstRow { $0.int64(0) } ?? 0
    }

    /// The highest token removed by pruning (0: nothing pruned yet).
    static func prunedThrough(in database: Database) throws(PhotoLibError) -> Int64 {
        try database.prepare("SELECT value FROM meta WHERE key = ?").firstRow([.text(prunedThroughKey)]) { $0.int64(0) } ?? 0
    }

    /// Throws `invalidArgument` unless `author` is 1…64 printable characters.
    static func validateAuthor(_ author: String) throws(PhotoLibError) {
        guard !author.isEmpty, author.unicodeScalars.count <= maximumAuthorLength,
            !author.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw PhotoLibError(
                .invalidArgument, "change author '\(author.prefix(40))' must be 1…\(maximumAuthorLength) characters without control characters",
                reason: .invalidText)
        }
    }
}

extension PhotoLibrary {
    /// The most transactions one ``persistentChanges(since:limit:)`` page holds.
    public static let maximumPersistentChangePage = 10_000

    /// The token of the last committed transaction: 0 for a new library. Every instance and
    /// process sharing the library sees the same value.
    public func currentChangeToken() throws(PhotoLibError) -> Int64 {
        try withDatabase { (database) throws(PhotoLibError) in try ChangeLog.currentToken(in: database) }
    }

    /// The oldest token history still answers for: ``persistentChanges(since:limit:)`` from it
    /// returns every transaction kept (0 until history is first pruned).
    public func retainedHistoryStart() throws(PhotoLibError) -> Int64 {
        try read { (database) throws(PhotoLibError) in try ChangeLog.prunedThrough(in: database) }
    }

    /// The transactions committed after `token`, oldest first, at most `limit` (1…10,000)
    /// of them: PhotoKit's `fetchPersistentChanges(since:)`. A limited view
    /// (``limited(to:)``) lists only the assets of its selection. Pass 0 for a new client's first
    /// call (fails once history has been pruned: start from ``currentChangeToken()`` instead).
    ///
    /// Throws `failedPrecondition` with reason `persistentChangeTokenExpired` when `token` is
    /// older than the retained history (transactions after it were pruned), and
    /// `invalidArgument` for a negative token, a token greater than the current one, or a bad
    /// limit.
    public func persistentChanges(since token: Int64, limit: Int) throws(PhotoLibError) -> PersistentChangePage {
        guard (1...Self.maximumPersistentChangePage).contains(limit) else {
            throw PhotoLibError(.invalidArgument, "limit \(limit) must be within 1…\(Self.maximumPersistentChangePage)")
        }
        guard token >= 0 else {
            throw PhotoLibError(.invalidArgument, "change token \(token) is negative; tokens start at 0")
        }
        return try read { (database) throws(PhotoLibError) in
            let current = try ChangeLog.currentToken(in: database)
            guard token <= current else {
                throw PhotoLibError(
                    .invalidArgument,
                    "change token \(token) is newer than this library's current token \(current); was it issued by another library?")
            }
            let pruned = try ChangeLog.prunedThrough(in: database)
            guard token >= pruned else {
                throw PhotoLibError(
                    .failedPrecondition,
                    "change token \(token) has expired: history up to token \(pruned) was pruned; refetch everything and continue from token \(current)",
                    reason: .persistentChangeTokenExpired)
            }
            let transactions = try database.prepare(
                "SELECT token, committed_at, author FROM change_transaction WHERE token > ? ORDER BY token LIMIT ?"
            ).rows([.integer(token), .int(limit + 1)]) { (row) throws(PhotoLibError) in (row.int64(0), row.int64(1), row.text(2)) }
            // A limited view keeps the assets of its selection (albums and folders are visible
            // to it); a transaction left with nothing keeps its token, so paging goes on.
            let scope = SelectionScope(limitedTo)
            let objects = try database.prepare(
                """
                SELECT object_type, identifier, kind, content_changed FROM change_object WHERE token = ?
                \(limitedTo == nil ? "" : "AND (object_type <> 1 OR " + SelectionScope.condition(column: "identifier") + ")") ORDER BY seq
                """)
            var changes: [PersistentChange] = []
            for (changeToken, committedAt, author) in transactions.prefix(limit) {
                let touched = try objects.rows([.integer(changeToken)] + scope.values) { (row) throws(PhotoLibError) -> ObjectChange in
                    guard let type = ObjectChange.ObjectType(rawValue: row.int(0)), let kind = ObjectChange.Kind(rawValue: row.int(2)) else {
                        throw PhotoLibError(.dataLoss, "change log row of token \(changeToken) has an unknown object type or kind")
                    }
                    return ObjectChange(objectType: type, identifier: row.text(1), kind: kind, assetContentChanged: row.int(3) != 0)
                }
                changes.append(PersistentChange(
                    token: changeToken, committedAt: Microseconds.date(committedAt), author: limitedTo != nil && touched.isEmpty ? "" : author,
                    objects: touched))
            }
            return PersistentChangePage(changes: changes, hasMore: transactions.count > limit, currentToken: current)
        }
    }

    /// Removes old transactions from the change log and returns how many were removed.
    ///
    /// A transaction is kept when any given rule keeps it: it is among the last
    /// `keepingLast`, or it committed at or after `olderThan`. With neither rule, nothing is
    /// removed. Clients whose token is older than what remains get
    /// `persistentChangeTokenExpired` from ``persistentChanges(since:limit:)``.
    @discardableResult
    public func pruneHistory(keepingLast: Int? = nil, olderThan: Date? = nil) throws(PhotoLibError) -> Int {
        if let keepingLast, keepingLast < 0 {
            throw PhotoLibError(.invalidArgument, "keepingLast \(keepingLast) is negative")
        }
        guard keepingLast != nil || olderThan != nil else { return 0 }
        let cutoff = try olderThan.map { (date) throws(PhotoLibError) in try Microseconds.validated(date, "history cut-off") }
        return try write { (database) throws(PhotoLibError) in
            let current = try ChangeLog.currentToken(in: database)
            // Remove tokens ≤ limitToken and older than the cut-off.
            let limitToken = keepingLast.map { current - Int64($0) } ?? current
            let highest = try database.prepare(
                "SELECT max(token), count(*) FROM change_transaction WHERE token <= ? AND committed_at < ?"
            ).firstRow([.integer(limitToken), .integer(cutoff ?? Int64.max)]) { (row) throws(PhotoLibError) in
                (row.isNull(0) ? nil : row.int64(0), row.int(1))
            }
            guard let (maybeHighest, count) = highest, let removedThrough = maybeHighest, count > 0 else { return 0 }
            // Transactions are pruned oldest first: everything up to the highest removed one goes.
            try database.prepare("DELETE FROM change_transaction WHERE token <= ?").execute([.integer(removedThrough)])
            let removed = database.changes
            try database.prepare(
                "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = max(value, ?2)"
            ).execute([.text(ChangeLog.prunedThroughKey), .integer(removedThrough)])
            return removed
        }
    }
}
