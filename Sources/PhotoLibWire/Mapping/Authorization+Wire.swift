import Foundation
import PhotoLibCore

// Clients and their authorization (PhotoLibCore) ⇄ authorization.proto.

extension Wire.AccessLevel {
    /// The PhotoLibCore level; `nil` for unspecified or unknown numbers.
    public var domain: AccessLevel? { AccessLevel(rawValue: Int(rawValue)) }
}

extension Wire.AuthorizationStatus {
    /// The PhotoLibCore status; `nil` for unknown numbers.
    public var domain: AuthorizationStatus? { AuthorizationStatus(rawValue: Int(rawValue)) }
}

extension Wire.ClientRecord {
    /// The message for `client`: `access_level` is the level it asked for (unspecified when
    /// the library does not know), and `status` the decision for it (when unknown: its
    /// read-write decision unless only add-only was decided).
    public init(_ client: ClientRecord) {
        let level: AccessLevel = client.requestedLevel
            ?? (client.readWrite == .notDetermined && client.addOnly != .notDetermined ? .addOnly : .readWrite)
        self.init(
            clientIdentifier: client.clientIdentifier, clientName: client.name, status: .init(client.status(for: level)),
            accessLevel: client.requestedLevel.map { Wire.AccessLevel($0) } ?? Wire.AccessLevel(rawValue: 0), requestedAtMs: Wire.milliseconds(client.requestedAt),
            selectedAssetCount: UInt64(client.selectedAssetCount),
            readWriteStatus: .init(client.readWrite), addOnlyStatus: .init(client.addOnly), revoked: client.isRevoked,
            confirmEdits: client.confirmsEdits)
    }

    /// The PhotoLibCore record; unknown statuses read as denied.
    public var domain: ClientRecord {
        ClientRecord(
            clientIdentifier: clientIdentifier, name: clientName, readWrite: readWriteStatus.domain ?? .denied,
            addOnly: addOnlyStatus.domain ?? .denied, isRevoked: revoked, requestedAt: Date(timeIntervalSince1970: Double(requestedAtMs) / 1000),
            confirmsEdits: confirmEdits, selectedAssetCount: Int(clamping: selectedAssetCount), requestedLevel: accessLevel.domain)
    }
}

extension Wire.AuditLogEntry {
    /// The message for `entry`.
    public init(_ entry: AuditEntry) {
        self.init(atMs: Wire.milliseconds(entry.date), clientIdentifier: entry.clientIdentifier, event: entry.event, detail: entry.detail)
    }

    /// The PhotoLibCore entry.
    public var domain: AuditEntry {
        AuditEntry(date: Date(timeIntervalSince1970: Double(atMs) / 1000), clientIdentifier: clientIdentifier, event: event, detail: detail)
    }
}
