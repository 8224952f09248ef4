import PhotoLibCore
import PhotoLibWire

/// The server's credit for sending MESSAGE bytes to a client, on one stream or the connection:
/// what the client announced, clamped to the server's own maximum.
///
/// ``announced`` follows the client's accounting exactly (so a WINDOW_UPDATE that pushes the
/// window past 2^31−1 is still the protocol violation section 9.3 says it is); ``usable`` is
/// the credit the server spends, never above `maximum`. Credit beyond the maximum is
/// forgotten (a sender may always send less than the window allows): a client announcing a
/// 2^31−1 window gets at most `maximum` unacknowledged bytes, not its whole window, queued
/// towards it. Owned by one connection's queue.
struct SendWindow: Sendable {
    /// The client's view of the window.
    private(set) var announced: FlowWindow
    /// The credit the server may spend now (≤ ``announced``'s and ≤ ``maximum``).
    private(set) var usable: Int
    /// The most credit the server holds at once.
    let maximum: Int

    /// A window of `initial` bytes as announced, of which at most `maximum` are used.
    init(initial: Int, maximum: Int) {
        announced = FlowWindow(initial: initial)
        self.maximum = maximum
        usable = min(initial, maximum)
    }

    /// Whether a payload of `count` bytes may be sent now.
    func allows(_ count: Int) -> Bool { count <= usable }

    /// Spends `count` bytes of credit (after ``allows(_:)``).
    mutating func spend(_ count: Int) throws(PhotoLibError) {
        try announced.spend(count)
        usable -= count
    }

    /// The client's WINDOW_UPDATE: adds `increment`, keeping at most ``maximum`` usable.
    /// Throws as `FlowWindow.grant(_:)` does for an increment of 0 or a window past 2^31−1.
    mutating func grant(_ increment: Int) throws(PhotoLibError) {
        try announced.grant(increment)
        usable = min(usable + increment, maximum)
    }
}

/// Answers to frames that ask for a reply without a call (PING), at most one per interval;
/// beyond a threshold of unanswered ones within an interval the connection is closed.
///
/// Without it a client sending PINGs and reading nothing makes the server queue one PING ACK
/// per PING (a flood grew the send buffer by 128 MiB). A PING that comes sooner than the
/// interval after an answered one is not dropped at once: up to ``maxDeferred`` wait and are
/// answered one per interval (a client's keepalive PING right after its own RTT probe still
/// gets its ACK, ≤ one interval late); more are dropped unanswered. Owned by one
/// connection's queue.
struct ControlFrameGuard: Sendable {
    /// What to do with one control frame.
    enum Verdict: Equatable {
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
    let interval: UInt64
    /// Frames not answered at once within one interval beyond which the connection is closed.
    let threshold: Int
    /// The most frames waiting for a later answer.
    static let maxDeferred = 4
    private var lastAnswer: UInt64?
    private var intervalStart: UInt64 = 0
    private var unanswered = 0
    /// Frames waiting for their answer.
    private(set) var deferred = 0

    /// A guard answering once per `interval` seconds and closing past `threshold` unanswered frames.
    init(interval: Double, threshold: Int) {
        self.interval = UInt64(max(0, interval) * 1e9)
        self.threshold = threshold
    }

    /// The verdict on a control frame received at `now` (uptime nanoseconds).
    mutating func admit(now: UInt64) -> Verdict {
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
    mutating func answerDeferred(now: UInt64) {
        deferred = max(0, deferred - 1)
        lastAnswer = now
    }
}
