import Foundation
import PhotoLibCore
import PhotoLibStore
import PhotoLibWire

extension PhotoLibraryService {
    /// Registers the authorization methods: clients ask, the owner decides.
    func registerAuthorizationRoutes(in router: inout RPCRouter) {
        router.register(PhotoLibraryMethods.requestAuthorization) { [self] call in try await requestAuthorization(call) }
        router.register(PhotoLibraryMethods.getAuthorizationStatus) { [self] call in try await getAuthorizationStatus(call) }
        router.register(PhotoLibraryMethods.listClients) { [self] call in try await listClients(call) }
        router.register(PhotoLibraryMethods.setClientAuthorization) { [self] call in try await setClientAuthorization(call) }
        router.register(PhotoLibraryMethods.getAuditLog) { [self] call in try await getAuditLog(call) }
        router.register(PhotoLibraryMethods.listPendingRequests) { [self] call in try await listPendingRequests(call) }
        router.register(PhotoLibraryMethods.answerPendingRequest) { [self] call in try await answerPendingRequest(call) }
        router.register(PhotoLibraryMethods.requestMoreAssets) { [self] call in try await requestMoreAssets(call) }
    }

    /// The longest a `GetAuthorizationStatus` waits for the owner when the call has no
    /// shorter deadline (seconds); then it answers the status as it is.
    static let maxDecisionWait: Double = 600

    /// A connection without a credential registers a new client (the answer carries its
    /// token, once); a client asks for another access level; the owner is always authorized.
    func requestAuthorization(_ call: ServerCall<Wire.AuthorizationRequest, Wire.AuthorizationState>) async throws {
        let request = try await call.singleRequest()
        guard let level = request.accessLevel.domain else {
            throw PhotoLibError(.invalidArgument, "AuthorizationRequest.access_level must be ACCESS_LEVEL_READ_WRITE or ACCESS_LEVEL_ADD_ONLY")
        }
        switch call.session.identity {
        case .owner:
            try await call.send(Wire.AuthorizationState(status: .authorized, accessLevel: .init(level)))
        case .client(let identifier):
            // Asking again never re-opens a decision (as in PhotoKit): the status as it is.
            guard let client = clients.client(identifier) else {
                throw PhotoLibError(.permissionDenied, "client \(identifier) was revoked by the library's owner", reason: .notAuthorized)
            }
            try await call.send(Wire.AuthorizationState(status: .init(client.status(for: level)), accessLevel: .init(level), clientIdentifier: identifier))
        case .unauthenticated:
            let name = request.clientName.trimmingCharacters(in: .whitespacesAndNewlines)
            let library = self.library, restricted = configuration.restrictedAccessLevels.contains(level)
            let (client, token) = try await libraryIO.run { () throws(PhotoLibError) in
                try library.registerClient(name: name, level: level, restricted: restricted)
            }
            clients.added(client, token: token)
            logger.notice("a client asks for access", metadata: ["client": "\(client.clientIdentifier)", "name": "\(name)", "level": "\(level.name)"])
            try await call.send(Wire.AuthorizationState(
                status: .init(client.status(for: level)), accessLevel: .init(level), clientToken: token, clientIdentifier: client.clientIdentifier))
        }
    }

    /// The calling client's status for a level; with `wait_for_decision`, a not-determined
    /// status is answered once the owner decides (or the call's deadline passes).
    func getAuthorizationStatus(_ call: ServerCall<Wire.AuthorizationStatusRequest, Wire.AuthorizationState>) async throws {
        let request = try await call.singleRequest()
        let level = request.accessLevel.domain ?? .readWrite
        guard case .client(let identifier) = call.session.identity else {
            // The owner (only credentials reach here: the method needs one).
            return try await call.send(Wire.AuthorizationState(status: .authorized, accessLevel: .init(level)))
        }
        guard var client = clients.client(identifier) else {
            throw PhotoLibError(.permissionDenied, "client \(identifier) was revoked by the library's owner", reason: .notAuthorized)
        }
        if request.waitForDecision {
            let started = Date()
            while client.status(for: level) == .notDetermined {
                let remaining = Self.maxDecisionWait - Date().timeIntervalSince(started)
                guard remaining > 0 else { break }
                let decided = await withTaskGroup(of: ClientRecord??.self) { group -> ClientRecord?? in
                    group.addTask { [clients] in .some(await clients.waitForDecision(identifier)) }
                    group.addTask {
                        try? await Task.sleep(nanoseconds: UInt64(remaining * 1e9))
                        return .none
                    }
                    defer { group.cancelAll() }
                    return await group.next() ?? nil
                }
                try Task.checkCancellation()
                guard case .some(let record) = decided else { break }
                guard let record else {
                    throw PhotoLibError(.resourceExhausted, "\(ClientDirectory.maxWaitersPerClient) waits for a decision are open for this client already")
                }
                client = record
                if client.isRevoked { throw PhotoLibError(.permissionDenied, "client \(identifier) was revoked by the library's owner", reason: .notAuthorized) }
            }
        }
        try await call.send(Wire.AuthorizationState(status: .init(client.status(for: level)), accessLevel: .init(level), clientIdentifier: identifier))
    }

    /// Every client, for the owner.
    func listClients(_ call: ServerCall<Wire.Empty, Wire.ListClientsResponse>) async throws {
        _ = try await call.singleRequest()
        let library = self.library
        let all = try await libraryIO.run { () throws(PhotoLibError) in try library.clients() }
        try await call.send(Wire.ListClientsResponse(clients: all.map(Wire.ClientRecord.init)))
    }

    /// The owner's decision. Denying or revoking ends the client's open connections at once
    /// (their calls with PERMISSION_DENIED).
    func setClientAuthorization(_ call: ServerCall<Wire.SetClientAuthorizationRequest, Wire.AuthorizationState>) async throws {
        let request = try await call.singleRequest()
        let identifier = request.clientIdentifier
        try LocalIdentifier.validate(identifier)
        let library = self.library
        var record: ClientRecord
        var level = request.accessLevel.domain ?? .readWrite
        let before = clients.client(identifier)
        let policy: Bool? = switch request.confirmEdits {
        case .on: true
        case .off: false
        default: nil
        }
        if request.policyOnly {
            guard let policy else { throw PhotoLibError(.invalidArgument, "policy_only needs confirm_edits ON or OFF") }
            record = try await libraryIO.run { () throws(PhotoLibError) in try library.setConfirmsEdits(client: identifier, policy) }
            clients.decided(record)
            return try await call.send(Wire.AuthorizationState(status: .init(record.status(for: level)), accessLevel: .init(level), clientIdentifier: identifier))
        }
        if request.selectionOnly {
            let adding = request.addSelectedAssetIdentifiers, removing = request.removeSelectedAssetIdentifiers
            // Both ways at once is no edit anyone means: refused, not resolved in some order.
            if let both = Set(adding).intersection(removing).sorted().first {
                throw PhotoLibError(.invalidArgument, "\(both) is both added to and removed from the selection; name each asset once")
            }
            let change = try await libraryIO.run { () throws(PhotoLibError) in
                try library.editSelection(client: identifier, adding: adding, removing: removing)
            }
            clients.decided(change.client)
            hub.selectionChanged(client: identifier, added: change.added, removed: change.removed)
            logger.notice("owner changed a selection", metadata: ["client": "\(identifier)", "added": "\(change.added.count)", "removed": "\(change.removed.count)"])
            return try await call.send(Wire.AuthorizationState(status: .limited, accessLevel: .readWrite, clientIdentifier: identifier))
        }
        if request.revoke {
            record = try await libraryIO.run { () throws(PhotoLibError) in try library.revoke(client: identifier) }
        } else {
            guard let wanted = request.accessLevel.domain else {
                throw PhotoLibError(.invalidArgument, "SetClientAuthorizationRequest.access_level must be ACCESS_LEVEL_READ_WRITE or ACCESS_LEVEL_ADD_ONLY")
            }
            level = wanted
            switch request.status.domain {
            case .authorized?, .denied?:
                let status = request.status.domain!
                record = try await libraryIO.run { () throws(PhotoLibError) in try library.decide(client: identifier, level: wanted, status: status) }
            case .limited?:
                guard wanted == .readWrite else {
                    throw PhotoLibError(.invalidArgument, "LIMITED applies to read-write access (a selection of photos); add-only access is authorized or denied")
                }
                let selection = request.selectedAssetIdentifiers
                let change = try await libraryIO.run { () throws(PhotoLibError) in try library.limit(client: identifier, to: selection) }
                record = change.client
                if before?.isLimited == true {
                    // Still limited: the open subscriptions move to the new selection.
                    hub.selectionChanged(client: identifier, added: change.added, removed: change.removed)
                }
            default:
                throw PhotoLibError(.invalidArgument, "the owner decides AUTHORIZED or DENIED (or revoke), not \(request.status)")
            }
        }
        if let policy, !record.isRevoked {
            record = try await libraryIO.run { () throws(PhotoLibError) in try library.setConfirmsEdits(client: identifier, policy) }
        }
        clients.decided(record)
        if record.isRevoked || record.status(for: level) == .denied {
            clientConnections.close(
                client: identifier,
                error: PhotoLibError(.permissionDenied, record.isRevoked ? "the library's owner revoked this client" : "the library's owner denied this client \(level.name) access", reason: .notAuthorized))
        } else if let before, before.canRead, before.isLimited != record.isLimited {
            // From everything to a selection or back: the connection's snapshots and live
            // results belong to the other view. The client reconnects and sees the new one.
            clientConnections.close(
                client: identifier,
                error: PhotoLibError(
                    .permissionDenied,
                    record.isLimited ? "the library's owner limited this client to a selection of photos; reconnect" : "the library's owner gave this client access to the whole library; reconnect",
                    reason: .notAuthorized))
        }
        logger.notice("owner decided", metadata: ["client": "\(identifier)", "level": "\(level.name)", "status": "\(record.isRevoked ? "revoked" : record.status(for: level).name)"])
        try await call.send(Wire.AuthorizationState(status: .init(record.status(for: level)), accessLevel: .init(level), clientIdentifier: identifier))
    }

    /// The newest audit entries, for the owner.
    func getAuditLog(_ call: ServerCall<Wire.AuditLogRequest, Wire.AuditLogResponse>) async throws {
        let request = try await call.singleRequest()
        let library = self.library, limit = request.limit == 0 ? 1000 : Int(request.limit)
        let entries = try await libraryIO.run { () throws(PhotoLibError) in try library.auditLog(limit: limit) }
        try await call.send(Wire.AuditLogResponse(entries: entries.map(Wire.AuditLogEntry.init)))
    }

    /// What clients wait for: authorization decisions and edit confirmations, oldest first.
    func listPendingRequests(_ call: ServerCall<Wire.Empty, Wire.PendingRequestsResponse>) async throws {
        _ = try await call.singleRequest()
        let library = self.library
        let undecided = try await libraryIO.run { () throws(PhotoLibError) in
            try library.clients().filter { !$0.isRevoked && ($0.readWrite == .notDetermined && $0.addOnly == .notDetermined) }
        }
        var requests = undecided.map { client in
            Wire.PendingRequest(
                requestID: client.clientIdentifier, clientIdentifier: client.clientIdentifier, clientName: client.name, kind: .authorization,
                summary: "\(client.requestedLevel.map { "\($0.name) access" } ?? "access") to the library (photolib clients approve \(client.clientIdentifier))",
                requestedAtMs: Wire.milliseconds(client.requestedAt))
        }
        requests += editConfirmations.pending.map { pending in
            Wire.PendingRequest(
                requestID: pending.id, clientIdentifier: pending.client, clientName: pending.clientName, kind: .editConfirmation,
                summary: pending.summary, requestedAtMs: Wire.milliseconds(pending.requestedAt), expiresAtMs: Wire.milliseconds(pending.expiresAt))
        }
        requests += pickerRequests.pending.map { pending in
            Wire.PendingRequest(
                requestID: pending.id, clientIdentifier: pending.client, clientName: pending.clientName, kind: .limitedPicker,
                summary: pending.summary, requestedAtMs: Wire.milliseconds(pending.requestedAt), expiresAtMs: Wire.milliseconds(pending.expiresAt))
        }
        try await call.send(Wire.PendingRequestsResponse(requests: requests))
    }

    /// Confirms or declines a client's waiting changes. Audited.
    func answerPendingRequest(_ call: ServerCall<Wire.AnswerPendingRequestRequest, Wire.Empty>) async throws {
        let request = try await call.singleRequest()
        let id = request.requestID
        if id.hasPrefix(pickerRequests.idPrefix) { return try await answerPickerRequest(call, request) }
        guard id.hasPrefix(editConfirmations.idPrefix) else {
            throw PhotoLibError(.invalidArgument, "'\(id.prefix(64))' is not an edit confirmation or a request for more assets; authorization requests are answered with SetClientAuthorization (photolib clients approve|deny)")
        }
        let client = editConfirmations.pending.first { $0.id == id }
        guard let client, editConfirmations.answer(id, with: request.confirm) else {
            throw PhotoLibError(.notFound, "no change waits for confirmation as \(id.prefix(64)) (answered or expired)")
        }
        let library = self.library, confirm = request.confirm
        try await libraryIO.run { () throws(PhotoLibError) in
            try library.audit(client: client.client, event: confirm ? "confirmed" : "declined", detail: client.summary)
        }
        try await call.send(Wire.Empty())
    }

    /// The longest a request for more assets waits for the owner when the call has no
    /// shorter deadline (seconds); then it answers with nothing picked.
    static let maxPickerWait: Double = 600

    /// A limited client asks for more assets (PhotoKit's `presentLimitedLibraryPicker`): the
    /// request waits for the owner, who picks; the answer lists the newly selected assets only.
    func requestMoreAssets(_ call: ServerCall<Wire.Empty, Wire.MoreAssetsResponse>) async throws {
        _ = try await call.singleRequest()
        guard let identifier = call.session.clientIdentifier, let client = clients.client(identifier), client.isLimited else {
            throw PhotoLibError(.failedPrecondition, "only a client with limited access asks for more assets; this connection sees the whole library")
        }
        let library = self.library
        try await libraryIO.run { () throws(PhotoLibError) in
            try library.audit(client: identifier, event: "asked", detail: "more assets (it has \(client.selectedAssetCount))")
        }
        let picked = try await pickerRequests.ask(
            client: identifier, clientName: client.name,
            summary: "more assets (it had \(client.selectedAssetCount) selected when it asked; photolib clients answer REQUEST --pick ID…)", timeout: Self.maxPickerWait)
        try Task.checkCancellation()
        try await call.send(Wire.MoreAssetsResponse(newlySelectedIdentifiers: picked ?? []))
    }

    /// The owner answers a request for more assets: the picked assets join the client's
    /// selection (its subscriptions see them inserted), and the waiting request is answered
    /// with those that were not selected already.
    private func answerPickerRequest(_ call: ServerCall<Wire.AnswerPendingRequestRequest, Wire.Empty>, _ request: Wire.AnswerPendingRequestRequest) async throws {
        let id = request.requestID
        guard let pending = pickerRequests.pending.first(where: { $0.id == id }) else {
            throw PhotoLibError(.notFound, "no request for more assets waits as \(id.prefix(64)) (answered or expired)")
        }
        let library = self.library, picked = request.pickedAssetIdentifiers
        let change = try await libraryIO.run { () throws(PhotoLibError) in
            try library.editSelection(client: pending.client, adding: picked, removing: [])
        }
        clients.decided(change.client)
        hub.selectionChanged(client: pending.client, added: change.added, removed: [])
        guard pickerRequests.answer(id, with: change.added) else {
            // The client stopped waiting meanwhile; the assets stay selected.
            throw PhotoLibError(.notFound, "the request \(id.prefix(64)) expired while it was answered; the \(change.added.count) assets picked were added to the selection")
        }
        try await call.send(Wire.Empty())
    }
}
