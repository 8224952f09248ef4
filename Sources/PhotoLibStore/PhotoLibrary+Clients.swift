import Crypto
import Foundation
import PhotoLibCore

/// Bounds on what unauthenticated and authenticated clients may make the library record.
public enum ClientLimits {
    /// Clients waiting for the owner's decision at once; more requests are refused until the
    /// owner decides (a flood of unauthenticated requests cannot grow the table without bound).
    public static let maxUndecided = 1000
    /// Clients recorded at once, decided or not (revoked ones included).
    public static let maxClients = 10_000
    /// Audit log lines kept (the oldest go first).
    public static let maxAuditEntries = 100_000
    /// Assets in one limited client's selection.
    public static let maxSelectedAssets = 100_000
}

extension PhotoLibrary {
    /// Records a new client asking for `level` and returns its record and its secret token
    /// (32 random bytes as 64 hex digits, returned once: only its SHA-256 is stored). Its
    /// status is `notDetermined` for `level`, or `restricted` when `restricted` says the
    /// server refuses that level by policy. Audited as `requested`.
    ///
    /// Throws `invalidArgument` for a name that is empty, longer than 128 bytes or not
    /// printable, and `resourceExhausted` when ``ClientLimits`` are reached.
    public func registerClient(name: String, level: AccessLevel, restricted: Bool = false, now: Date = Date()) throws(PhotoLibError) -> (ClientRecord, token: String) {
        guard !name.isEmpty, name.utf8.count <= 128, name.unicodeScalars.allSatisfy({ !CharacterSet.controlCharacters.contains($0) }) else {
            throw PhotoLibError(.invalidArgument, "a client name must be 1…128 bytes of printable text")
        }
        let token = OwnerToken.generate()
        let identifier = "client-" + OwnerToken.generate().prefix(32)
        let time = try Microseconds.validated(now, "request time")
        let status: AuthorizationStatus = restricted ? .restricted : .notDetermined
        try write { (database) throws(PhotoLibError) in
            let undecided = try database.prepare(
                "SELECT count(*) FROM client WHERE revoked = 0 AND read_write_status = 0 AND add_only_status = 0"
            ).firstRow { $0.int(0) } ?? 0
            guard undecided < ClientLimits.maxUndecided else {
                throw PhotoLibError(.resourceExhausted, "\(undecided) clients are waiting for the owner's decision already; ask again later")
            }
            let total = try database.prepare("SELECT count(*) FROM client").firstRow { $0.int(0) } ?? 0
            guard total < ClientLimits.maxClients else {
                throw PhotoLibError(.resourceExhausted, "the library has \(total) clients, its limit; the owner must remove some first")
            }
            try database.prepare(
                """
                INSERT INTO client (client_identifier, name, token_sha256, read_write_status, add_only_status, requested_at, requested_level)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """
            ).execute([
                .text(identifier), .text(name), .text(Self.tokenDigest(token)),
                .int(level == .readWrite ? status.rawValue : AuthorizationStatus.notDetermined.rawValue),
                .int(level == .addOnly ? status.rawValue : AuthorizationStatus.notDetermined.rawValue), .integer(time), .int(level.rawValue),
            ])
            try Self.audit(identifier, "requested", "\(level.name) access as '\(name)'\(restricted ? " (restricted by the server's policy)" : "")", at: time, in: database)
        }
        let record = ClientRecord(
            clientIdentifier: identifier, name: name, readWrite: .notDetermined, addOnly: .notDetermined, isRevoked: false,
            requestedAt: Microseconds.date(time), requestedLevel: level)
        var answer = record
        if level == .readWrite { answer.readWrite = status } else { answer.addOnly = status }
        return (answer, token)
    }

    /// The client whose token is `token`, unless it is unknown or revoked.
    public func client(presenting token: String) throws(PhotoLibError) -> ClientRecord? {
        let digest = Self.tokenDigest(token)
        return try withDatabase { (database) throws(PhotoLibError) in
            try database.prepare("SELECT \(Self.clientColumns) FROM client WHERE token_sha256 = ? AND revoked = 0")
                .firstRow([.text(digest)], Self.clientRecord)
        }
    }

    /// Every client not revoked, with the SHA-256 its token is looked up by (what a server
    /// keeps in memory to authenticate without a database read).
    public func clientCredentials() throws(PhotoLibError) -> [(tokenDigest: String, client: ClientRecord)] {
        try withDatabase { (database) throws(PhotoLibError) in
            try database.prepare("SELECT \(Self.clientColumns), token_sha256 FROM client WHERE revoked = 0 ORDER BY id")
                .rows { (row) throws(PhotoLibError) in (row.text(Self.clientColumnCount), try Self.clientRecord(row)) }
        }
    }

    /// The SHA-256 of a client token, hex: what the library stores and looks tokens up by.
    public static func clientTokenDigest(_ token: String) -> String {
        tokenDigest(token)
    }

    /// The client `identifier`, revoked or not; `nil` when unknown.
    public func client(withIdentifier identifier: String) throws(PhotoLibError) -> ClientRecord? {
        try withDatabase { (database) throws(PhotoLibError) in
            try database.prepare("SELECT \(Self.clientColumns) FROM client WHERE client_identifier = ?")
                .firstRow([.text(identifier)], Self.clientRecord)
        }
    }

    /// Every client, in the order they asked.
    public func clients() throws(PhotoLibError) -> [ClientRecord] {
        try withDatabase { (database) throws(PhotoLibError) in
            try database.prepare("SELECT \(Self.clientColumns) FROM client ORDER BY requested_at, id").rows(Self.clientRecord)
        }
    }

    /// The owner's decision for `identifier` at `level`: `authorized` or `denied` (other
    /// statuses are `invalidArgument` here). Audited. `notFound` for an unknown or revoked
    /// client (a revoked credential stays revoked: the client must ask again).
    @discardableResult
    public func decide(client identifier: String, level: AccessLevel, status: AuthorizationStatus, now: Date = Date()) throws(PhotoLibError) -> ClientRecord {
        guard status == .authorized || status == .denied else {
            throw PhotoLibError(.invalidArgument, "the owner decides authorized or denied here, not \(status)")
        }
        let time = try Microseconds.validated(now, "decision time")
        let column = level == .readWrite ? "read_write_status" : "add_only_status"
        return try write { (database) throws(PhotoLibError) in
            try database.prepare("UPDATE client SET \(column) = ?, decided_at = ? WHERE client_identifier = ? AND revoked = 0")
                .execute([.int(status.rawValue), .integer(time), .text(identifier)])
            guard database.changes > 0,
                let record = try database.prepare("SELECT \(Self.clientColumns) FROM client WHERE client_identifier = ?")
                    .firstRow([.text(identifier)], Self.clientRecord)
            else {
                throw PhotoLibError(.notFound, "no client has the identifier \(identifier) (or it was revoked)")
            }
            if level == .readWrite {
                // A limited client authorized or denied: its selection no longer means anything.
                try database.prepare("DELETE FROM client_selection WHERE client_identifier = ?").execute([.text(identifier)])
            }
            try Self.audit(identifier, status == .authorized ? "authorized" : "denied", "\(level.name) access", at: time, in: database)
            return record
        }
    }

    /// Sets whether `identifier`'s changes wait for the owner's confirmation. Audited.
    @discardableResult
    public func setConfirmsEdits(client identifier: String, _ confirms: Bool, now: Date = Date()) throws(PhotoLibError) -> ClientRecord {
        let time = try Microseconds.validated(now, "decision time")
        return try write { (database) throws(PhotoLibError) in
            try database.prepare("UPDATE client SET confirm_edits = ? WHERE client_identifier = ? AND revoked = 0")
                .execute([.int(confirms ? 1 : 0), .text(identifier)])
            guard database.changes > 0,
                let record = try database.prepare("SELECT \(Self.clientColumns) FROM client WHERE client_identifier = ?")
                    .firstRow([.text(identifier)], Self.clientRecord)
            else {
                throw PhotoLibError(.notFound, "no client has the identifier \(identifier) (or it was revoked)")
            }
            try Self.audit(identifier, "policy", confirms ? "its changes wait for the owner's confirmation" : "its changes no longer wait for confirmation", at: time, in: database)
            return record
        }
    }

    /// Revokes `identifier`: every level denied and its credential invalid for good. Audited.
    @discardableResult
    public func revoke(client identifier: String, now: Date = Date()) throws(PhotoLibError) -> ClientRecord {
        let time = try Microseconds.validated(now, "decision time")
        return try write { (database) throws(PhotoLibError) in
            try database.prepare(
                "UPDATE client SET revoked = 1, read_write_status = 2, add_only_status = 2, decided_at = ? WHERE client_identifier = ?"
            ).execute([.integer(time), .text(identifier)])
            guard database.changes > 0,
                let record = try database.prepare("SELECT \(Self.clientColumns) FROM client WHERE client_identifier = ?")
                    .firstRow([.text(identifier)], Self.clientRecord)
            else {
                throw PhotoLibError(.notFound, "no client has the identifier \(identifier)")
            }
            try database.prepare("DELETE FROM client_selection WHERE client_identifier = ?").execute([.text(identifier)])
            try Self.audit(identifier, "revoked", "every access level; the credential no longer opens anything", at: time, in: database)
            return record
        }
    }

    /// Records an event for the owner's audit log (a refused call, …).
    public func audit(client identifier: String, event: String, detail: String, now: Date = Date()) throws(PhotoLibError) {
        let time = try Microseconds.validated(now, "audit time")
        try write { (database) throws(PhotoLibError) in try Self.audit(identifier, event, detail, at: time, in: database) }
    }

    /// The newest `limit` audit entries, oldest first.
    public func auditLog(limit: Int = 1000) throws(PhotoLibError) -> [AuditEntry] {
        try withDatabase { (database) throws(PhotoLibError) in
            try database.prepare("SELECT at, client_identifier, event, detail FROM audit_log ORDER BY id DESC LIMIT ?")
                .rows([.int(max(1, min(limit, ClientLimits.maxAuditEntries)))]) { (row) throws(PhotoLibError) in
                    AuditEntry(date: Microseconds.date(row.int64(0)), clientIdentifier: row.text(1), event: row.text(2), detail: row.text(3))
                }
                .reversed()
        }
    }

    static func audit(_ client: String, _ event: String, _ detail: String, at time: Int64, in database: Database) throws(PhotoLibError) {
        let insert = try database.prepare("INSERT INTO audit_log (at, client_identifier, event, detail) VALUES (?, ?, ?, ?)")
        try insert.execute([.integer(time), .text(client), .text(event), .text(String(detail.prefix(512)))])
        let id = database.lastInsertedRowID
        if id % 1000 == 0 {
            try database.prepare("DELETE FROM audit_log WHERE id <= ?").execute([.integer(id - Int64(ClientLimits.maxAuditEntries))])
        }
    }

    /// The SHA-256 of a client token, hex: what the library stores and looks tokens up by.
    static func tokenDigest(_ token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).map { OwnerToken.hexByte($0) }.joined()
    }

    /// How many columns ``clientColumns`` names (a query may select more after them).
    static let clientColumnCount: Int32 = 9

    static let clientColumns = """
        client_identifier, name, read_write_status, add_only_status, revoked, requested_at, confirm_edits,
        (SELECT count(*) FROM client_selection s WHERE s.client_identifier = client.client_identifier), requested_level
        """

    static func clientRecord(_ row: Statement) throws(PhotoLibError) -> ClientRecord {
        guard let readWrite = AuthorizationStatus(rawValue: row.int(2)), let addOnly = AuthorizationStatus(rawValue: row.int(3)) else {
            throw PhotoLibError(.dataLoss, "client \(row.text(0)) has an invalid status in the database")
        }
        return ClientRecord(
            clientIdentifier: row.text(0), name: row.text(1), readWrite: readWrite, addOnly: addOnly, isRevoked: row.int(4) != 0,
            requestedAt: Microseconds.date(row.int64(5)), confirmsEdits: row.int(6) != 0, selectedAssetCount: row.int(7),
            requestedLevel: AccessLevel(rawValue: row.int(8)))
    }
}
