import Dispatch
import Foundation
import PhotoLibCore
import Synchronization

/// Changes by clients whose edits need the owner's confirmation, waiting for it (PhotoKit
/// asks the person before an app modifies a photo). In memory: a confirmation a restart
/// interrupts fails as unanswered, and the client asks again.
final class EditConfirmations: Sendable {
    /// One change waiting.
    struct Pending: Sendable {
        var id: String
        var client: String
        var clientName: String
        var summary: String
        var requestedAt: Date
        var expiresAt: Date
    }

    private struct Entry {
        var pending: Pending
        var continuation: CheckedContinuation<Bool?, Never>
    }

    /// Guards the waiting changes. A leaf lock; continuations resume after it is released.
    private let waiting = Mutex<[String: Entry]>([:])

    /// Confirmations waiting per client, and in all; more are refused (`resourceExhausted`).
    static let maxPerClient = 16
    static let maxTotal = 256

    /// Waits for the owner's answer to `summary` from `client`: `true` confirmed, `false`
    /// declined, `nil` when nobody answered within `timeout` seconds or the caller was
    /// cancelled. Throws `resourceExhausted` when too many wait already.
    func ask(client: String, clientName: String, summary: String, timeout: Double) async throws(PhotoLibError) -> Bool? {
        let id = "edit-" + UUID().uuidString.lowercased().prefix(13)
        let now = Date()
        let pending = Pending(id: String(id), client: client, clientName: clientName, summary: summary, requestedAt: now, expiresAt: now.addingTimeInterval(timeout))
        var refused: PhotoLibError?
        let answer: Bool? = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool?, Never>) in
                let accepted = waiting.withLock { waiting -> Bool in
                    guard !Task.isCancelled else { return false }
                    guard waiting.count < Self.maxTotal, waiting.values.filter({ $0.pending.client == client }).count < Self.maxPerClient else {
                        refused = PhotoLibError(.resourceExhausted, "too many changes wait for the owner's confirmation already; retry later")
                        return false
                    }
                    waiting[pending.id] = Entry(pending: pending, continuation: continuation)
                    return true
                }
                guard accepted else { return continuation.resume(returning: nil) }
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in resolve(pending.id, with: nil) }
            }
        } onCancel: {
            resolve(pending.id, with: nil)
        }
        if let refused { throw refused }
        return answer
    }

    /// Answers a waiting change; `false` when there is none with `id` (answered or expired).
    @discardableResult
    func answer(_ id: String, confirm: Bool) -> Bool {
        resolve(id, with: confirm)
    }

    /// What waits now, oldest first.
    var pending: [Pending] {
        waiting.withLock { $0.values.map(\.pending) }.sorted { $0.requestedAt < $1.requestedAt }
    }

    @discardableResult
    private func resolve(_ id: String, with answer: Bool?) -> Bool {
        guard let entry = waiting.withLock({ $0.removeValue(forKey: id) }) else { return false }
        entry.continuation.resume(returning: answer)
        return true
    }
}
