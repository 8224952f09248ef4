import Foundation
import PhotoLibCore

/// The SQL that keeps a limited client's view to its selection (`client_selection`, by
/// asset identifier). A view of the whole library adds nothing.
struct SelectionScope {
    /// The limited client, or `nil` for the whole library.
    let client: String?

    init(_ client: String?) {
        self.client = client
    }

    /// `column IN (the client's selection)`, with one `?` for the client.
    static func condition(column: String) -> String {
        "\(column) IN (SELECT asset_identifier FROM client_selection WHERE client_identifier = ?)"
    }

    /// ` AND <condition>` for a limited view, else nothing.
    func and(_ column: String) -> String {
        client == nil ? "" : " AND " + Self.condition(column: column)
    }

    /// `WHERE <condition>` for a limited view, else nothing.
    func `where`(_ column: String) -> String {
        client == nil ? "" : "WHERE " + Self.condition(column: column)
    }

    /// The parameter of the condition (none for the whole library).
    var values: [DatabaseValue] {
        client.map { [.text($0)] } ?? []
    }

    /// Whether the asset `identifier` is in the view (always, for the whole library; an
    /// unknown asset is not in a limited one).
    func contains(_ identifier: String, in database: Database) throws(PhotoLibError) -> Bool {
        guard let client else { return true }
        return try database.prepare("SELECT 1 FROM client_selection WHERE client_identifier = ? AND asset_identifier = ?")
            .firstRow([.text(client), .text(identifier)]) { _ in true } ?? false
    }
}

/// Result of an owner's edit of a limited client's selection.
public struct SelectionChange: Sendable, Hashable {
    /// The client's record after the edit.
    public var client: ClientRecord
    /// Assets that joined the selection (were not in it before), in the order given.
    public var added: [String]
    /// Assets that left it.
    public var removed: [String]

    /// Creates a change.
    public init(client: ClientRecord, added: [String], removed: [String]) {
        self.client = client
        self.added = added
        self.removed = removed
    }
}

extension PhotoLibrary {
    /// `query` as this view may run it: restricted to the selection of ``limitedTo``.
    func scoped(_ query: AssetQuery) -> AssetQuery {
        guard let limitedTo else { return query }
        var query = query
        query.limitedTo = limitedTo
        return query
    }

    /// Throws the `notFound` an unknown asset gets (`message`) when `identifier` is outside
    /// this view; the same code and message, so a limited client cannot tell the two apart.
    func requireVisible(_ identifier: String, in database: Database, message: String) throws(PhotoLibError) {
        guard try SelectionScope(limitedTo).contains(identifier, in: database) else {
            throw PhotoLibError(.notFound, message)
        }
    }

    /// The owner limits `client`'s read-write access to `selection` (the complete new
    /// selection, replacing any earlier one): PhotoKit's "Select Photos". Audited. Every
    /// identifier must name an asset (`notFound` otherwise); at most
    /// ``ClientLimits/maxSelectedAssets``. Returns what joined and left the selection.
    @discardableResult
    public func limit(client identifier: String, to selection: [String], now: Date = Date()) throws(PhotoLibError) -> SelectionChange {
        try Self.validateIdentifierList(selection)
        let time = try Microseconds.validated(now, "decision time")
        return try write { (database) throws(PhotoLibError) in
            let before = Set(try Self.selection(of: identifier, in: database))
            try database.prepare("UPDATE client SET read_write_status = ?, decided_at = ? WHERE client_identifier = ? AND revoked = 0")
                .execute([.int(AuthorizationStatus.limited.rawValue), .integer(time), .text(identifier)])
            guard database.changes > 0 else {
                throw PhotoLibError(.notFound, "no client has the identifier \(identifier) (or it was revoked)")
            }
            try database.prepare("DELETE FROM client_selection WHERE client_identifier = ?").execute([.text(identifier)])
            let change = try Self.changeSelection(of: identifier, adding: selection, removing: [], before: before, in: database)
            let removed = before.subtracting(selection).sorted()
            try Self.audit(identifier, "limited", "read-write access to \(selection.count) selected assets", at: time, in: database)
            return SelectionChange(client: try Self.requireClient(identifier, in: database), added: change.added, removed: removed)
        }
    }

    /// The owner adds assets to and removes assets from a limited client's selection
    /// (`failedPrecondition` unless the client is limited). Audited.
    @discardableResult
    public func editSelection(client identifier: String, adding: [String], removing: [String], now: Date = Date()) throws(PhotoLibError) -> SelectionChange {
        try Self.validateIdentifierList(adding)
        try Self.validateIdentifierList(removing)
        let time = try Microseconds.validated(now, "decision time")
        return try write { (database) throws(PhotoLibError) in
            let record = try Self.requireClient(identifier, in: database)
            guard !record.isRevoked, record.readWrite == .limited else {
                throw PhotoLibError(
                    .failedPrecondition,
                    "client \(identifier) is not limited (its read-write access is \(record.isRevoked ? "revoked" : record.readWrite.name)); limit it first (photolib clients limit)")
            }
            let before = Set(try Self.selection(of: identifier, in: database))
            let change = try Self.changeSelection(of: identifier, adding: adding, removing: removing, before: before, in: database)
            try Self.audit(
                identifier, "selection", "\(change.added.count) assets added to its selection, \(change.removed.count) removed", at: time, in: database)
            // The record as it is now: its selection count is the edited one (the server's
            // directory of clients keeps this record).
            return SelectionChange(client: try Self.requireClient(identifier, in: database), added: change.added, removed: change.removed)
        }
    }

    /// The assets a limited client may see, by identifier.
    public func selection(of client: String) throws(PhotoLibError) -> [String] {
        try read { (database) throws(PhotoLibError) in try Self.selection(of: client, in: database) }
    }

    /// How many assets each limited client has selected, by client identifier.
    public func selectedAssetCounts() throws(PhotoLibError) -> [String: Int] {
        try read { (database) throws(PhotoLibError) in
            Dictionary(
                try database.prepare("SELECT client_identifier, count(*) FROM client_selection GROUP BY client_identifier")
                    .rows { (row) throws(PhotoLibError) in (row.text(0), row.int(1)) },
                uniquingKeysWith: { first, _ in first })
        }
    }

    /// Which of `identifiers` this view shows (all of them for the whole library).
    public func visibleIdentifiers(among identifiers: [String]) throws(PhotoLibError) -> Set<String> {
        guard let limitedTo else { return Set(identifiers) }
        guard !identifiers.isEmpty else { return [] }
        try Self.validateIdentifierList(identifiers)
        return try read { (database) throws(PhotoLibError) in
            Set(try database.prepare(
                """
                SELECT j.value FROM json_each(?) j
                WHERE j.value IN (SELECT asset_identifier FROM client_selection WHERE client_identifier = ?)
                """
            ).rows([.text(JSONText.array(identifiers)), .text(limitedTo)]) { $0.text(0) })
        }
    }

    static func selection(of client: String, in database: Database) throws(PhotoLibError) -> [String] {
        try database.prepare("SELECT asset_identifier FROM client_selection WHERE client_identifier = ? ORDER BY asset_identifier")
            .rows([.text(client)]) { $0.text(0) }
    }

    static func requireClient(_ identifier: String, in database: Database) throws(PhotoLibError) -> ClientRecord {
        guard let record = try database.prepare("SELECT \(clientColumns) FROM client WHERE client_identifier = ?")
            .firstRow([.text(identifier)], clientRecord)
        else {
            throw PhotoLibError(.notFound, "no client has the identifier \(identifier)")
        }
        return record
    }

    /// Adds (existing assets only: `notFound` naming an unknown one) and removes selection
    /// rows; returns what actually changed relative to `before`.
    static func changeSelection(
        of client: String, adding: [String], removing: [String], before: Set<String>, in database: Database
    ) throws(PhotoLibError) -> (added: [String], removed: [String]) {
        let exists = try database.prepare("SELECT 1 FROM asset WHERE local_identifier = ?")
        let insert = try database.prepare("INSERT OR IGNORE INTO client_selection (client_identifier, asset_identifier) VALUES (?, ?)")
        var added: [String] = []
        var seen = Set<String>()
        for asset in adding where seen.insert(asset).inserted {
            guard try exists.firstRow([.text(asset)], { _ in true }) ?? false else {
                throw PhotoLibError(.notFound, "no asset has the identifier \(asset)")
            }
            try insert.execute([.text(client), .text(asset)])
            if !before.contains(asset) { added.append(asset) }
        }
        let count = try database.prepare("SELECT count(*) FROM client_selection WHERE client_identifier = ?").firstRow([.text(client)]) { $0.int(0) } ?? 0
        guard count <= ClientLimits.maxSelectedAssets else {
            throw PhotoLibError(
                .resourceExhausted, "a limited client may be given at most \(ClientLimits.maxSelectedAssets) assets; this selection would hold \(count)")
        }
        let delete = try database.prepare("DELETE FROM client_selection WHERE client_identifier = ? AND asset_identifier = ?")
        var removed: [String] = []
        for asset in Set(removing).subtracting(adding).sorted() {
            try delete.execute([.text(client), .text(asset)])
            if database.changes > 0 && before.contains(asset) { removed.append(asset) }
        }
        return (added, removed)
    }

    /// Assets a limited view created join its selection (inside the creating transaction).
    static func join(_ assets: [String], selectionOf client: String, in database: Database) throws(PhotoLibError) {
        let insert = try database.prepare("INSERT OR IGNORE INTO client_selection (client_identifier, asset_identifier) VALUES (?, ?)")
        for asset in assets { try insert.execute([.text(client), .text(asset)]) }
    }
}
