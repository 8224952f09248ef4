import PhotoLibWire

/// Limits and timings of a client connection.
public struct ClientConfiguration: Sendable {
    /// Largest frame payload accepted from the server (bytes).
    public var maxFrameSize: Int = WireLimits.defaultMaxFrameSize
    /// Initial per-call credit granted to the server for responses (bytes).
    public var initialStreamWindow: Int = WireLimits.defaultStreamWindow
    /// Initial connection credit granted to the server (bytes).
    public var initialConnectionWindow: Int = WireLimits.defaultConnectionWindow
    /// How long to wait for the TCP connection (seconds).
    public var connectTimeout: Double = 10
    /// Deadline of unary calls (seconds; `nil`: none).
    public var callTimeout: Double? = 60

    /// The defaults.
    public init() {}
}
