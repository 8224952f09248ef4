import Dispatch
import Foundation
import PhotoLibCore
import Synchronization

/// Questions clients wait on the owner to answer: edit confirmations (PhotoKit asks the
/// person before an app modifies a photo; the answer is confirm or decline) and limited
/// clients' requests for more assets (the answer is the assets picked). In memory: a
/// question a restart interrupts fails as unanswered, and the client asks again.
final class OwnerQuestions<Answer: Sendable>: Sendable {
    /// One question waiting.
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
        var continuation: CheckedContinuation<Answer?, Never>
    }

    /// Guards the waiting questions. A leaf lock; continuations resume after it is released.
    private let waiting = Mutex<[String: Entry]>([:])
    /// What the question ids start with (`edit-`, `more-`): one id names one kind.
    let idPrefix: String
    /// What a refusal says is waiting ("changes wait for the owner's confirmation").
    let what: String

    /// Questions waiting per client, and in all; more are refused (`resourceExhausted`).
    static var maxPerClient: Int { 16 }
    static var maxTotal: Int { 256 }

    /// Questions whose ids start with `idPrefix`; `what` names them in refusals.
    init(idPrefix: String, what: String) {
        self.idPrefix = idPrefix
        self.what = what
    }

    /// Waits for the owner's answer to `summary` from `client`; `nil` when nobody answered
    /// within `timeout` seconds or the caller was cancelled. Throws `resourceExhausted` when
    /// too many wait already.
    func ask(client: String, clientName: String, summary: String, timeout: Double) async throws(PhotoLibError) -> Answer? {
        let id = idPrefix + UUID().uuidString.lowercased().prefix(13)
        let now = Date()
        let pending = Pending(id: String(id), client: client, clientName: clientName, summary: summary, requestedAt: now, expiresAt: now.addingTimeInterval(timeout))
        var refused: PhotoLibError?
        let what = self.what
        let answer: Answer? = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Answer?, Never>) in
                let accepted = waiting.withLock { waiting -> Bool in
                    guard !Task.isCancelled else { return false }
                    guard waiting.count < Self.maxTotal, waiting.values.filter({ $0.pending.client == client }).count < Self.maxPerClient else {
                        refused = PhotoLibError(.resourceExhausted, "too many \(what) already; retry later")
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

    /// Answers a waiting question; `false` when there is none with `id` (answered or expired).
    @discardableResult
    func answer(_ id: String, with answer: Answer) -> Bool {
        resolve(id, with: answer)
    }

    /// What waits now, oldest first.
    var pending: [Pending] {
        waiting.withLock { $0.values.map(\.pending) }.sorted { $0.requestedAt < $1.requestedAt }
    }

    @discardableResult
    private func resolve(_ id: String, with answer: Answer?) -> Bool {
        guard let entry = waiting.withLock({ $0.removeValue(forKey: id) }) else { return false }
        entry.continuation.resume(returning: answer)
        return true
    }
}
