import Dispatch
import PhotoLibCore

/// Calls waiting for a place among the calls the server lets a connection have open at once
/// (`Welcome.max_concurrent_streams`, 100 by default): a connection opens them in order as
/// calls end, instead of sending a CALL the server would refuse with `RESOURCE_EXHAUSTED`.
/// Many tasks may each ask for an image (PhotoKit has no such limit). What waits is one entry
/// per call the application made and the server has not taken yet (a suspended task's, or a
/// result-handler request's, with its encoded request): the application's own requests bound
/// it, in its own memory; nothing of the server's grows with it.
///
/// A call waits at most its deadline (a unary call's `callTimeout`): one that passes it while
/// waiting fails `DEADLINE_EXCEEDED`, saying it never got a place, and the rest of its deadline
/// counts on from when it opens. Kept on the connection's queue.
struct WaitingCalls {
    /// A call that has not opened yet, with what opening it needs.
    struct Call {
        let stream: ClientStream
        let responses: ClientStream.Responses
        let requests: [[UInt8]]
        let endStream: Bool
        let timeout: Double?
        let opened: CheckedContinuation<Void, any Error>?
        /// When it began to wait (uptime nanoseconds).
        let since: UInt64
        /// When its deadline passes (uptime nanoseconds), if it has one.
        var deadline: UInt64? {
            timeout.map { since &+ UInt64(max(0, min($0, 1e9)) * 1e9) }
        }
    }

    private var calls: [Call] = []
    private var head = 0

    /// Whether any call waits.
    var isEmpty: Bool { head == calls.count }

    /// Adds `call` at the end.
    mutating func append(_ call: Call) {
        calls.append(call)
    }

    /// The first waiting call, taken out.
    mutating func next() -> Call? {
        guard head < calls.count else { return nil }
        let call = calls[head]
        head += 1
        if head == calls.count {
            calls.removeAll(keepingCapacity: calls.count <= 64)
            head = 0
        }
        return call
    }

    /// Takes out and returns the calls whose deadline passed by `now` (uptime nanoseconds),
    /// and those that ended meanwhile (cancelled), keeping the others in order.
    mutating func removeExpiredOrEnded(now: UInt64) -> (expired: [Call], ended: [Call]) {
        var expired: [Call] = [], ended: [Call] = [], kept: [Call] = []
        for call in calls[head...] {
            if call.stream.isEnded {
                ended.append(call)
            } else if let deadline = call.deadline, deadline <= now {
                expired.append(call)
            } else {
                kept.append(call)
            }
        }
        calls = kept
        head = 0
        return (expired, ended)
    }

    /// The earliest deadline among the waiting calls.
    var earliestDeadline: UInt64? {
        calls[head...].compactMap(\.deadline).min()
    }

    /// Takes out every waiting call.
    mutating func removeAll() -> [Call] {
        defer {
            calls = []
            head = 0
        }
        return Array(calls[head...])
    }
}
