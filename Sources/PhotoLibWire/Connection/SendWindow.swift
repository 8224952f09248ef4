import PhotoLibCore

/// The credit for sending MESSAGE bytes to the peer, on one stream or the connection:
/// what the peer announced, clamped to this end's own maximum (the server's configured share).
///
/// ``announced`` follows the client's accounting exactly (so a WINDOW_UPDATE that pushes the
/// window past 2^31−1 is still the protocol violation section 9.3 says it is); ``usable`` is
/// the credit the server spends, never above `maximum`. Credit beyond the maximum is
/// forgotten (a sender may always send less than the window allows): a client announcing a
/// 2^31−1 window gets at most `maximum` unacknowledged bytes, not its whole window, queued
/// towards it. Owned by one connection's queue.
public struct SendWindow: Sendable, Hashable {
    /// The client's view of the window.
    public private(set) var announced: FlowWindow
    /// The credit the server may spend now (≤ ``announced``'s and ≤ ``maximum``).
    public private(set) var usable: Int
    /// The most credit the server holds at once.
    public let maximum: Int

    /// A window of `initial` bytes as announced, of which at most `maximum` are used.
    public init(initial: Int, maximum: Int) {
        announced = FlowWindow(initial: initial)
        self.maximum = maximum
        usable = min(initial, maximum)
    }

    /// Whether a payload of `count` bytes may be sent now.
    public func allows(_ count: Int) -> Bool { count <= usable }

    /// Spends `count` bytes of credit (after ``allows(_:)``).
    public mutating func spend(_ count: Int) throws(PhotoLibError) {
        try announced.spend(count)
        usable -= count
    }

    /// The client's WINDOW_UPDATE: adds `increment`, keeping at most ``maximum`` usable.
    /// Throws as `FlowWindow.grant(_:)` does for an increment of 0 or a window past 2^31−1.
    public mutating func grant(_ increment: Int) throws(PhotoLibError) {
        try announced.grant(increment)
        usable = min(usable + increment, maximum)
    }
}
