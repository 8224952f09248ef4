import PhotoLibCore

/// Answers to frames that ask for a reply without a call (PING), at most one per interval;
/// beyond a threshold of unanswered ones within an interval the connection is closed.
///
/// Without it a client sending PINGs and reading nothing makes the server queue one PING ACK
/// per PING (a flood grew the send buffer by 128 MiB). A PING that comes sooner than the
/// interval after an answered one is not dropped at once: up to ``maxDeferred`` wait and are
/// answered one per interval (a client's keepalive PING right after its own RTT probe still
/// gets its ACK, ≤ one interval late); more are dropped unanswered. Owned by one
/// connection's queue.
public struct ControlFrameGuard: Sendable {
    /// What to do with one control frame.
    public enum Verdict: Sendable, Equatable {
        /// Answer it now.
        case answer
        /// Answer it after this many nanoseconds (``answerDeferred(now:)`` then).
        case deferred(UInt64)
        /// Drop it unanswered (the interval's answer is spent and enough wait already).
        case drop
        /// Too many within one interval: GOAWAY.
        case goAway
    }

    /// The shortest time between two answers (nanoseconds).
    public let interval: UInt64
    /// Frames not answered at once within one interval beyond which the connection is closed.
    public let threshold: Int
    /// The most frames waiting for a later answer.
    public static let maxDeferred = 4
    private var lastAnswer: UInt64?
    private var intervalStart: UInt64 = 0
    private var unanswered = 0
    /// Frames waiting for their answer.
    public private(set) var deferred = 0

    /// A guard answering once per `interval` seconds and closing past `threshold` unanswered frames.
    public init(interval: Double, threshold: Int) {
        self.interval = UInt64(max(0, interval) * 1e9)
        self.threshold = threshold
    }

    /// The verdict on a control frame received at `now` (uptime nanoseconds).
    public mutating func admit(now: UInt64) -> Verdict {
        if now &- intervalStart >= interval {
            intervalStart = now
            unanswered = 0
        }
        if deferred == 0, lastAnswer.map({ now &- $0 >= interval }) ?? true {
            lastAnswer = now
            return .answer
        }
        unanswered += 1
        if unanswered > threshold { return .goAway }
        guard deferred < Self.maxDeferred else { return .drop }
        deferred += 1
        // Answers are spaced one interval apart: after the last one, and after those waiting.
        let due = (lastAnswer ?? now) &+ UInt64(deferred) &* interval
        return .deferred(due > now ? due - now : 0)
    }

    /// A deferred frame was answered at `now`.
    public mutating func answerDeferred(now: UInt64) {
        deferred = max(0, deferred - 1)
        lastAnswer = now
    }
}
