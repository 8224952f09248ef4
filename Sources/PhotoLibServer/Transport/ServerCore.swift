import Crypto
import Synchronization
import Foundation
import Logging
import PhotoLibCore
import PhotoLibWire

/// What every connection of a server shares: configuration, router, credentials, logger.
final class ServerCore: Sendable {
    let configuration: ServerConfiguration
    let router: RPCRouter
    let logger: Logger
    let libraryIdentifier: String
    /// The server-wide memory budget of every connection's fetch-result snapshots.
    let snapshotBudget: SnapshotBudget
    private let ownerTokenDigest: [UInt8]
    /// The library directory as given and as resolved: spellings of server paths that must
    /// never reach a client (see ``clientVisible(_:)``).
    private let serverPaths: ServerPathScrubber

    /// The library's clients, for authentication and per-call checks.
    let clients: ClientDirectory
    /// Connections open without a token (see ``admitTokenless()``).
    private let tokenless = Atomic<Int>(0)
    /// Connections not yet through the handshake, by connection id and peer address (see
    /// ``admitHandshake(id:from:)``). One `Mutex` because the two change together; taken on
    /// the server's queue (accept) and connection queues (handshake done, close).
    private let pendingHandshakes = Mutex(PendingHandshakes())

    /// The connections waiting for their HELLO.
    private struct PendingHandshakes {
        /// Connection id → peer address (`nil`: a socket handed to the server). Ids grow with
        /// every accept, so the smallest is the oldest.
        var addresses: [UInt64: String?] = [:]
        var byAddress: [String: Int] = [:]

        mutating func remove(_ id: UInt64) {
            guard let address = addresses.removeValue(forKey: id) else { return }
            guard let address, let count = byAddress[address] else { return }
            if count <= 1 { byAddress[address] = nil } else { byAddress[address] = count - 1 }
        }
    }

    init(configuration: ServerConfiguration, router: RPCRouter, logger: Logger, libraryIdentifier: String, ownerToken: String, libraryDirectory: String, clients: ClientDirectory) {
        self.clients = clients
        let resolved = URL(fileURLWithPath: libraryDirectory).resolvingSymlinksInPath().path
        let absolute = URL(fileURLWithPath: libraryDirectory).standardizedFileURL.path
        self.serverPaths = ServerPathScrubber(paths: [libraryDirectory, resolved, absolute])
        self.configuration = configuration
        self.snapshotBudget = SnapshotBudget(limit: configuration.snapshotMemoryBytes)
        self.router = router
        self.logger = logger
        self.libraryIdentifier = libraryIdentifier
        self.ownerTokenDigest = Array(SHA256.hash(data: Array(ownerToken.utf8)))
    }

    /// Who a HELLO token belongs to: the owner (compared in constant time), a client (by the
    /// SHA-256 of its token, in memory), nobody yet for an empty token; `nil` for a token
    /// that is not valid for this library (or a revoked client's).
    func authenticate(token: String) -> ConnectionIdentity? {
        // Spaces and line ends around the token are not part of it (owner.token ends with a
        // newline; a client that sends the file's text as it is must get in).
        let token = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { return .unauthenticated }
        let digest = Array(SHA256.hash(data: Array(token.utf8)))
        var difference: UInt8 = 0
        for (a, b) in zip(digest, ownerTokenDigest) { difference |= a ^ b }
        if difference == 0 { return .owner }
        return clients.client(presenting: token).map { .client($0.clientIdentifier) }
    }

    /// Counts one more connection without a token; `false` (nothing counted) when
    /// `maxTokenlessConnections` are open already.
    func admitTokenless() -> Bool {
        if tokenless.add(1, ordering: .relaxed).newValue <= configuration.maxTokenlessConnections { return true }
        tokenless.subtract(1, ordering: .relaxed)
        return false
    }

    /// Counts connection `id`, new from `address` (`nil`: a socket handed to the server,
    /// which counts only server-wide), as waiting for its handshake. When
    /// `maxPendingHandshakesPerAddress` from that address, or `maxPendingHandshakes` in all,
    /// are waiting already, the **oldest** of them (from that address first) stops counting
    /// and is returned with the error to close it with: a flood of silent connections
    /// replaces itself instead of filling the server, and a client that sends its HELLO as
    /// soon as it connects (with a credential or not) gets in.
    func admitHandshake(id: UInt64, from address: String?) -> (evicted: UInt64, error: PhotoLibError)? {
        let total = configuration.maxPendingHandshakes, perAddress = configuration.maxPendingHandshakesPerAddress
        return pendingHandshakes.withLock { (state: inout PendingHandshakes) -> (UInt64, PhotoLibError)? in
            var evicted: (UInt64, PhotoLibError)?
            if let address, state.byAddress[address, default: 0] >= perAddress,
                let oldest = state.addresses.filter({ $0.value == address }).keys.min()
            {
                state.remove(oldest)
                evicted = (oldest, PhotoLibError(
                    .resourceExhausted,
                    "\(perAddress) newer connections from \(address) are waiting for their handshake (the server's limit per address): this one sent no HELLO in time; send HELLO as soon as you connect"))
            } else if state.addresses.count >= total, let oldest = state.addresses.keys.min() {
                state.remove(oldest)
                evicted = (oldest, PhotoLibError(
                    .resourceExhausted,
                    "\(total) newer connections are waiting for their handshake (the server's limit): this one sent no HELLO in time; send HELLO as soon as you connect"))
            }
            state.addresses[id] = .some(address)
            if let address { state.byAddress[address, default: 0] += 1 }
            return evicted
        }
    }

    /// Connection `id` completed or abandoned its handshake (or was evicted: then nothing).
    func releaseHandshake(id: UInt64) {
        pendingHandshakes.withLock { $0.remove(id) }
    }

    /// A connection without a token closed.
    func releaseTokenless() {
        tokenless.subtract(1, ordering: .relaxed)
    }

    /// Why `session` may not call `method` now (checked when each call opens, against the
    /// client's current decision); `nil` when it may. A refused client call is audited.
    /// The method's requirement is the one its route looked up once (``RPCRoute/access``).
    func refusal(for route: RPCRoute, session: ConnectionSession) -> PhotoLibError? {
        let method = route.method
        let client = session.clientIdentifier.flatMap { clients.client($0) }
        guard let refusal = route.access.refusal(identity: session.identity, client: client, method: method.name) else {
            return nil
        }
        if let identifier = session.clientIdentifier {
            clients.auditRefusal(client: identifier, detail: "\(method.name): \(refusal.message)")
        }
        return refusal
    }

    /// `error` as a client may see it: any spelling of the library's path on the server is
    /// replaced by "<library>" (messages built deep in the store or by SQLite may hold one; a
    /// client has no business knowing the server's file layout). The owner sees the full
    /// message in the server log.
    func clientVisible(_ error: PhotoLibError) -> PhotoLibError {
        guard serverPaths.mayName(in: error.message) else { return error }
        var visible = error
        visible.message = serverPaths.scrubbed(error.message)
        guard visible.message != error.message else { return error }
        logger.notice("server path removed from a client's error", metadata: ["message": "\(error.message)"])
        return visible
    }
}
