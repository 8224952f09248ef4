import PhotoLibCore
import PhotoLibWire

/// One call's state on the client side.
///
/// Created by the caller (so that a cancellation can name the call before it is open), then
/// confined to the connection's queue: the connection gives it an id when it opens the call.
///
/// Its stored `var`s are `@exclusivity(unchecked)`: confined to one queue, and never accessed
/// while an access to the same one is in progress (docs/ARCHITECTURE.md, "Exclusivity").
final class ClientStream: @unchecked Sendable {
    /// Where the call's response messages go.
    enum Responses {
        /// To a task, one message at a time; their credit goes back when it calls
        /// ``ClientConnection/consumed(_:stream:)``.
        case task(AsyncThrowingStream<[UInt8], any Error>.Continuation)
        /// To a consumer on the connection's queue; their credit goes back as they arrive.
        case queue(any ResponseConsumer)
    }

    /// A request message waiting for send credit.
    struct PendingMessage {
        /// The encoded message.
        var payload: [UInt8]
        /// Whether it is the call's last request message.
        var endStream: Bool
        /// Resumed once the message is written (or failed when the call ends first); `nil`
        /// when nobody waits for it.
        var sent: CheckedContinuation<Void, any Error>?
    }

    let method: MethodInfo
    /// The stream id; 0 until the call is open.
    @exclusivity(unchecked) var id: UInt32 = 0
    /// Where responses go, set when the call opens (``attach(_:)``): a consumer on the queue
    /// or a task's stream. Two optionals rather than a stored ``Responses``: reading a
    /// generic multi-payload enum copies it through the runtime, on every message.
    @exclusivity(unchecked) private(set) var consumer: (any ResponseConsumer)?
    /// The task's stream the responses go to, when it is one (see ``consumer``).
    @exclusivity(unchecked) private(set) var task: AsyncThrowingStream<[UInt8], any Error>.Continuation?
    /// Request messages waiting for send credit (the connection's state machine keeps the
    /// windows, and the unconsumed response bytes whose credit goes back when the call ends).
    @exclusivity(unchecked) var pending: [PendingMessage] = []
    /// The call's deadline in seconds, for its error message (the machine keeps the deadline).
    @exclusivity(unchecked) var timeout: Double?
    /// Whether the call is over (it can end before it opens, when cancelled first).
    @exclusivity(unchecked) private(set) var isEnded = false
    /// Why the call ended (`nil`: it ended well, or has not ended).
    @exclusivity(unchecked) private(set) var outcome: PhotoLibError?

    /// The error a call that was cancelled (or ended otherwise) before it opened answers
    /// whoever waits for it to open.
    var notOpenedError: PhotoLibError { outcome ?? Self.cancelled(method) }

    /// `cancelled` for a call of `method`: "RequestImage was cancelled".
    static func cancelled(_ method: MethodInfo) -> PhotoLibError {
        PhotoLibError(.cancelled, "\(method.name) was cancelled")
    }

    /// Counts the resume of a task that waits for the call's end (see
    /// ``ClientConnection/consume(_:request:timeout:_:)``), when one does.
    private let resumes: ResumedTasks?

    init(method: MethodInfo, resumes: ResumedTasks? = nil) {
        self.method = method
        self.resumes = resumes
    }

    /// The task or consumer the responses go to; a call that has already ended (cancelled
    /// before it opened) reports its outcome there at once.
    func attach(_ responses: Responses) {
        switch responses {
        case .task(let continuation): task = continuation
        case .queue(let consumer): self.consumer = consumer
        }
        if isEnded { report() }
    }

    /// Ends the call: fails waiting sends and reports the outcome where the responses go.
    /// Only the first call has an effect.
    func end(_ error: PhotoLibError?) {
        guard !isEnded else { return }
        isEnded = true
        outcome = error
        let waiting = pending
        pending = []
        for entry in waiting { entry.sent?.resume(throwing: error ?? PhotoLibError(.cancelled, "\(method.name) ended")) }
        report()
    }

    private func report() {
        if let consumer {
            if consumer.resumesInFinish { resumes?.resuming() }
            consumer.finish(outcome)
        } else if let task {
            if let outcome { task.finish(throwing: outcome) } else { task.finish() }
        }
    }
}
