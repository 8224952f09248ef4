import Foundation

/// Whether a client may use the library: PhotoKit's `PHAuthorizationStatus`.
public enum AuthorizationStatus: Int, Sendable, Hashable, CaseIterable, Codable {
    /// The owner has not decided yet.
    case notDetermined = 0
    /// Access is restricted by policy.
    case restricted = 1
    /// The owner denied access.
    case denied = 2
    /// Full access.
    case authorized = 3
    /// Access to a selection of assets only.
    case limited = 4
}

/// What a client asks to do: PhotoKit's `PHAccessLevel`.
public enum AccessLevel: Int, Sendable, Hashable, CaseIterable, Codable {
    /// Only add assets.
    case addOnly = 1
    /// Read and change the library.
    case readWrite = 2
}

/// A client other than the owner, as the library records it (PhotoKit's app, seen from the
/// Settings screen): who it says it is, and the owner's decision per access level.
public struct ClientRecord: Sendable, Hashable {
    /// The identifier the server gave it (`client-` + 32 hex digits).
    public var clientIdentifier: String
    /// The name it gave when it asked.
    public var name: String
    /// The decision for ``AccessLevel/readWrite``.
    public var readWrite: AuthorizationStatus
    /// The decision for ``AccessLevel/addOnly``.
    public var addOnly: AuthorizationStatus
    /// Revoked by the owner: its credential no longer opens anything.
    public var isRevoked: Bool
    /// When it first asked.
    public var requestedAt: Date
    /// Whether its changes wait for the owner's confirmation (PhotoKit asks the person
    /// before an app modifies a photo).
    public var confirmsEdits: Bool
    /// How many assets its selection holds (meaningful when ``readWrite`` is `limited`).
    public var selectedAssetCount: Int
    /// The level it asked for; `nil` when the library does not know (a client recorded
    /// before libraries kept it, whose request the audit log does not name either).
    public var requestedLevel: AccessLevel?

    /// Creates a record.
    public init(
        clientIdentifier: String, name: String, readWrite: AuthorizationStatus, addOnly: AuthorizationStatus, isRevoked: Bool, requestedAt: Date,
        confirmsEdits: Bool = false, selectedAssetCount: Int = 0, requestedLevel: AccessLevel? = nil
    ) {
        self.requestedLevel = requestedLevel
        self.confirmsEdits = confirmsEdits
        self.selectedAssetCount = selectedAssetCount
        self.clientIdentifier = clientIdentifier
        self.name = name
        self.readWrite = readWrite
        self.addOnly = addOnly
        self.isRevoked = isRevoked
        self.requestedAt = requestedAt
    }

    /// Whether the client may read: authorized or limited for read-write.
    public var canRead: Bool { !isRevoked && (readWrite == .authorized || readWrite == .limited) }

    /// Whether the client sees only its selection (limited read-write access).
    public var isLimited: Bool { !isRevoked && readWrite == .limited }

    /// The decision for `level`.
    public func status(for level: AccessLevel) -> AuthorizationStatus {
        switch level {
        case .readWrite: return readWrite
        case .addOnly: return addOnly
        }
    }
}

/// One line of the owner's audit log: a decision, or a call that was refused.
public struct AuditEntry: Sendable, Hashable {
    /// When it happened.
    public var date: Date
    /// The client it concerns (`owner` for the owner's own decisions' subject-less events).
    public var clientIdentifier: String
    /// What happened: `requested`, `authorized`, `denied`, `revoked`, `refused` …
    public var event: String
    /// Details a person can read (the access level, the method refused …).
    public var detail: String

    /// Creates an entry.
    public init(date: Date, clientIdentifier: String, event: String, detail: String) {
        self.date = date
        self.clientIdentifier = clientIdentifier
        self.event = event
        self.detail = detail
    }
}

extension AccessLevel {
    /// `read-write` or `add-only`, as the CLI and the audit log write it.
    public var name: String {
        switch self {
        case .readWrite: return "read-write"
        case .addOnly: return "add-only"
        }
    }
}

extension AuthorizationStatus {
    /// `not determined`, `restricted`, `denied`, `authorized`, `limited`.
    public var name: String {
        switch self {
        case .notDetermined: return "not determined"
        case .restricted: return "restricted"
        case .denied: return "denied"
        case .authorized: return "authorized"
        case .limited: return "limited"
        }
    }
}
