import PhotoLibCore

/// Credit for MESSAGE payload bytes in one direction, per stream or per connection.
///
/// The sender spends credit with ``spend(_:)``; the receiver's WINDOW_UPDATE adds it back
/// with ``grant(_:)``. Not thread-safe: owned by one connection's queue.
public struct FlowWindow: Sendable, Hashable {
    /// Bytes that may still be sent.
    public private(set) var available: Int

    /// Creates a window with `initial` bytes of credit.
    public init(initial: Int) { available = initial }

    /// Whether a payload of `count` bytes may be sent now.
    public func allows(_ count: Int) -> Bool { count <= available }

    /// Uses `count` bytes of credit; throws `protocolViolation` when there is not enough.
    public mutating func spend(_ count: Int) throws(PhotoLibError) {
        guard count <= available else {
            throw PhotoLibError(.resourceExhausted, "flow control: a \(count)-byte message exceeds the \(available) bytes of credit left", reason: .protocolViolation)
        }
        available -= count
    }

    /// Adds credit; throws when `increment` is 0 or the window would pass 2^31−1.
    public mutating func grant(_ increment: Int) throws(PhotoLibError) {
        guard increment > 0, available + increment <= WireLimits.maxWindow else {
            throw PhotoLibError(.invalidArgument, "flow control: WINDOW_UPDATE of \(increment) is 0 or takes the window past 2^31−1", reason: .protocolViolation)
        }
        available += increment
    }
}
