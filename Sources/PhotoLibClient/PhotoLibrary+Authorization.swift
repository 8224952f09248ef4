import Foundation
import PhotoLibCore
import PhotoLibWire

/// What `requestAuthorization` gives a new client: who it is, its secret token (shown once:
/// store it, e.g. in a ``CredentialStore``) and the owner's decision so far.
public struct ClientGrant: Sendable, Hashable, Codable {
    /// The client's identifier (`client-…`), as the owner sees it.
    public var clientIdentifier: String
    /// The token to connect with from now on.
    public var token: String
    /// The status for the level asked for (not determined until the owner decides).
    public var status: AuthorizationStatus
    /// The level asked for.
    public var accessLevel: AccessLevel

    /// Creates a grant.
    public init(clientIdentifier: String, token: String, status: AuthorizationStatus, accessLevel: AccessLevel) {
        self.clientIdentifier = clientIdentifier
        self.token = token
        self.status = status
        self.accessLevel = accessLevel
    }
}


/// Something a client waits for the owner to answer.
public struct PendingRequest: Sendable, Hashable {
    /// What kind of answer it waits for.
    public enum Kind: Sendable, Hashable {
        /// Access to the library (answer with `setAuthorization`).
        case authorization
        /// Changes from a client whose edits need confirmation (answer with `answer(_:confirm:)`).
        case editConfirmation
        /// A limited client asks for more assets (answer with `answer(_:picking:)`).
        case limitedPicker
    }

    /// Its identifier (a client identifier for authorization, `edit-…` for changes, `more-…`
    /// for more assets).
    public var requestIdentifier: String
    /// The client asking.
    public var clientIdentifier: String
    /// The client's name.
    public var clientName: String
    /// What kind of answer it waits for.
    public var kind: Kind
    /// What is asked, for a person.
    public var summary: String
    /// When it was asked.
    public var requestedAt: Date
}

extension PhotoLibrary {
    /// `PHPhotoLibrary.requestAuthorization(for:)`: asks the server at `server` (`HOST:PORT`)
    /// to register this program as a client wanting `level`, under `name` (what the owner
    /// sees). The owner decides later; wait for it with ``authorizationStatus(for:waitingForDecision:timeout:)``
    /// on a connection made with the grant's token.
    public static func requestAuthorization(
        for level: AccessLevel, name: String, server: String, configuration: ClientConfiguration = ClientConfiguration()
    ) async throws -> ClientGrant {
        let library = try await connect(to: server, token: "", clientName: name, configuration: configuration)
        defer { library.close() }
        let state = try await library.connection.unary(
            PhotoLibraryMethods.requestAuthorization, Wire.AuthorizationRequest(accessLevel: .init(level), clientName: name))
        return ClientGrant(
            clientIdentifier: state.clientIdentifier, token: state.clientToken, status: state.status.domain ?? .denied, accessLevel: level)
    }

    /// `PHPhotoLibrary.authorizationStatus(for:)` of this connection's client (the owner:
    /// authorized). With `waitingForDecision`, a not-determined status is answered only
    /// once the owner decides, or after `timeout` seconds (then it is still not determined).
    public func authorizationStatus(for level: AccessLevel, waitingForDecision: Bool = false, timeout: Double = 600) async throws -> AuthorizationStatus {
        do {
            let state = try await connection.unary(
                PhotoLibraryMethods.getAuthorizationStatus, Wire.AuthorizationStatusRequest(accessLevel: .init(level), waitForDecision: waitingForDecision),
                timeout: waitingForDecision ? timeout : nil)
            return state.status.domain ?? .denied
        } catch let error as PhotoLibError where error.code == .deadlineExceeded && waitingForDecision {
            return .notDetermined
        }
    }

    /// Owner only: every client of the library.
    public func clients() async throws -> [ClientRecord] {
        try await connection.unary(PhotoLibraryMethods.listClients, Wire.Empty()).clients.map(\.domain)
    }

    /// Owner only: authorizes or denies `client` for `level`. Denying ends the client's open
    /// connections at once.
    public func setAuthorization(_ status: AuthorizationStatus, for level: AccessLevel, client: String) async throws {
        _ = try await connection.unary(
            PhotoLibraryMethods.setClientAuthorization,
            Wire.SetClientAuthorizationRequest(clientIdentifier: client, status: .init(status), accessLevel: .init(level)))
    }

    /// Owner only: revokes `client` (every level denied, its token void); its open
    /// connections end at once.
    public func revoke(client: String) async throws {
        _ = try await connection.unary(PhotoLibraryMethods.setClientAuthorization, Wire.SetClientAuthorizationRequest(clientIdentifier: client, revoke: true))
    }

    /// Owner only: the newest `limit` audit entries (decisions and refused calls), oldest first.
    public func auditLog(limit: Int = 1000) async throws -> [AuditEntry] {
        try await connection.unary(PhotoLibraryMethods.getAuditLog, Wire.AuditLogRequest(limit: UInt32(clamping: limit))).entries.map(\.domain)
    }

    /// Owner only: what clients wait for, oldest first.
    public func pendingRequests() async throws -> [PendingRequest] {
        try await connection.unary(PhotoLibraryMethods.listPendingRequests, Wire.Empty()).requests.map {
            PendingRequest(
                requestIdentifier: $0.requestID, clientIdentifier: $0.clientIdentifier, clientName: $0.clientName,
                kind: $0.kind == .editConfirmation ? .editConfirmation : $0.kind == .limitedPicker ? .limitedPicker : .authorization, summary: $0.summary,
                requestedAt: Date(timeIntervalSince1970: Double($0.requestedAtMs) / 1000))
        }
    }

    /// Owner only: confirms or declines a client's changes waiting for confirmation.
    public func answer(_ request: String, confirm: Bool) async throws {
        _ = try await connection.unary(PhotoLibraryMethods.answerPendingRequest, Wire.AnswerPendingRequestRequest(requestID: request, confirm: confirm))
    }

    /// Owner only: whether `client`'s changes wait for the owner's confirmation.
    public func setConfirmsEdits(_ confirms: Bool, client: String) async throws {
        _ = try await connection.unary(
            PhotoLibraryMethods.setClientAuthorization,
            Wire.SetClientAuthorizationRequest(clientIdentifier: client, confirmEdits: confirms ? .on : .off, policyOnly: true))
    }

    /// Owner only: limits `client`'s read-write access to `assets` (PhotoKit's "Select
    /// Photos"; replaces any earlier selection). The client sees only those assets, everywhere.
    public func limit(client: String, to assets: [String]) async throws {
        _ = try await connection.unary(
            PhotoLibraryMethods.setClientAuthorization,
            Wire.SetClientAuthorizationRequest(clientIdentifier: client, status: .limited, accessLevel: .readWrite, selectedAssetIdentifiers: assets))
    }

    /// Owner only: adds assets to and removes assets from a limited client's selection; its
    /// open subscriptions see them inserted and removed.
    public func editSelection(client: String, adding: [String] = [], removing: [String] = []) async throws {
        _ = try await connection.unary(
            PhotoLibraryMethods.setClientAuthorization,
            Wire.SetClientAuthorizationRequest(
                clientIdentifier: client, addSelectedAssetIdentifiers: adding, removeSelectedAssetIdentifiers: removing, selectionOnly: true))
    }

    /// Owner only: answers a limited client's request for more assets with the assets
    /// picked (they join its selection; none: nothing changes).
    public func answer(_ request: String, picking assets: [String]) async throws {
        _ = try await connection.unary(
            PhotoLibraryMethods.answerPendingRequest, Wire.AnswerPendingRequestRequest(requestID: request, pickedAssetIdentifiers: assets))
    }

    /// `PHPhotoLibrary.presentLimitedLibraryPicker`: a limited client asks the owner for more
    /// assets and waits (at most `timeout` seconds) for the answer: the identifiers newly
    /// added to its selection, only those (empty when the owner picked none or did not answer).
    public func presentLimitedLibraryPicker(timeout: Double = 600) async throws -> [String] {
        do {
            return try await connection.unary(PhotoLibraryMethods.requestMoreAssets, Wire.Empty(), timeout: timeout).newlySelectedIdentifiers
        } catch let error as PhotoLibError where error.code == .deadlineExceeded {
            return []
        }
    }
}
