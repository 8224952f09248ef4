import Dispatch
import Foundation
import Logging
import PhotoLibCore
import PhotoLibStore
import Synchronization

/// The library's clients as the server knows them, in memory: who a HELLO token belongs to
/// and what each client may do now, answered on a connection's queue without touching the
/// database. The store is the truth; every registration and decision goes through the
/// store first and then here. Clients waiting for a decision (`GetAuthorizationStatus` with
/// `wait_for_decision`) are woken from here.
final class ClientDirectory: Sendable {
    private struct State {
        /// Clients not revoked, by token digest.
        var byDigest: [String: ClientRecord] = [:]
        /// The same, by identifier.
        var byIdentifier: [String: ClientRecord] = [:]
        /// Waiters for a decision, by client.
        var waiters: [String: [UInt64: CheckedContinuation<ClientRecord?, Never>]] = [:]
        var nextWaiter: UInt64 = 1
    }

    /// Guards the maps and the waiters. A leaf lock; continuations resume after it is released.
    private let state = Mutex(State())
    let library: PhotoLibrary
    private let logger: Logger
    /// Serial; writes audit lines of refused calls (SQLite, off the connections' queues).
    private let auditQueue = DispatchQueue(label: "photolibd.audit", qos: .utility)
    /// Audit lines queued and not yet written; beyond ``maxPendingAudits`` they are counted
    /// (``droppedAudits``) and dropped (a client hammering refused calls cannot grow the queue).
    private let pendingAudits = Atomic<Int>(0)
    /// Audit lines dropped since the last written line said so (in the server's log).
    private let droppedAudits = Atomic<Int>(0)
    private static let maxPendingAudits = 1000

    /// Waiters per client at once; more waits are refused.
    static let maxWaitersPerClient = 16

    init(library: PhotoLibrary, logger: Logger) throws(PhotoLibError) {
        self.library = library
        self.logger = logger
        let known = try library.clientCredentials()
        state.withLock { state in
            for (digest, client) in known {
                state.byDigest[digest] = client
                state.byIdentifier[client.clientIdentifier] = client
            }
        }
    }

    /// The client presenting `token`, if any (unknown or revoked: `nil`). Memory only.
    func client(presenting token: String) -> ClientRecord? {
        let digest = PhotoLibrary.clientTokenDigest(token)
        return state.withLock { $0.byDigest[digest] }
    }

    /// The current record of `identifier` (`nil`: unknown or revoked). Memory only.
    func client(_ identifier: String) -> ClientRecord? {
        state.withLock { $0.byIdentifier[identifier] }
    }

    /// Records a registration (after the store has).
    func added(_ client: ClientRecord, token: String) {
        let digest = PhotoLibrary.clientTokenDigest(token)
        state.withLock { state in
            state.byDigest[digest] = client
            state.byIdentifier[client.clientIdentifier] = client
        }
    }

    /// Records a decision (after the store has) and wakes the client's waiters.
    func decided(_ client: ClientRecord) {
        let woken = state.withLock { state -> [CheckedContinuation<ClientRecord?, Never>] in
            if client.isRevoked {
                state.byDigest = state.byDigest.filter { $0.value.clientIdentifier != client.clientIdentifier }
                state.byIdentifier[client.clientIdentifier] = nil
            } else {
                for (digest, known) in state.byDigest where known.clientIdentifier == client.clientIdentifier { state.byDigest[digest] = client }
                state.byIdentifier[client.clientIdentifier] = client
            }
            return Array(state.waiters.removeValue(forKey: client.clientIdentifier)?.values ?? [:].values)
        }
        for waiter in woken { waiter.resume(returning: client) }
    }

    /// Waits until the owner decides anything for `identifier`, or the task is cancelled
    /// (deadline, CANCEL, closed connection); returns the record then (`nil` when cancelled,
    /// or when ``maxWaitersPerClient`` waits are pending already).
    func waitForDecision(_ identifier: String) async -> ClientRecord? {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ClientRecord?, Never>) in
                let accepted = state.withLock { state -> Bool in
                    // Checked under the lock: a cancellation either finds this waiter or is seen here.
                    guard !Task.isCancelled, (state.waiters[identifier]?.count ?? 0) < Self.maxWaitersPerClient else { return false }
                    state.waiters[identifier, default: [:]][id] = continuation
                    return true
                }
                if !accepted { continuation.resume(returning: nil) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters[identifier]?.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }

    /// Writes an audit line for a refused call, in the background.
    func auditRefusal(client: String, detail: String) {
        guard pendingAudits.add(1, ordering: .relaxed).newValue <= Self.maxPendingAudits else {
            pendingAudits.subtract(1, ordering: .relaxed)
            droppedAudits.add(1, ordering: .relaxed)
            return
        }
        let library = self.library, logger = self.logger
        auditQueue.async { [self] in
            defer { pendingAudits.subtract(1, ordering: .relaxed) }
            do throws(PhotoLibError) {
                try library.audit(client: client, event: "refused", detail: detail)
            } catch {
                logger.warning("audit log write failed: \(error.message)")
            }
            let dropped = droppedAudits.exchange(0, ordering: .relaxed)
            if dropped > 0 {
                logger.warning("\(dropped) audit lines of refused calls were dropped: more than \(Self.maxPendingAudits) were waiting to be written")
            }
        }
    }
}
