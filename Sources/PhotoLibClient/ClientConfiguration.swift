import PhotoLibWire

/// Limits and timings of a client connection.
public struct ClientConfiguration: Sendable {
    /// Largest frame payload accepted from the server (bytes).
    public var maxFrameSize: Int = WireLimits.defaultMaxFrameSize
    /// Initial per-call credit granted to the server for responses (bytes): by default twice
    /// the largest frame (2 MiB), so that the credit of small messages goes back in batches
    /// (a quarter of the window) rather than one WINDOW_UPDATE per message. Credit is held back
    /// only while the window left still takes a largest message (docs/PROTOCOL.md 9.3); a
    /// window of one largest message never does once a byte is in flight, so each change
    /// notification of a subscription cost a WINDOW_UPDATE written here and read, decoded and
    /// acted on by the server (a tenth of the server's CPU with 10,000 subscribers).
    public var initialStreamWindow: Int = 2 * WireLimits.defaultMaxFrameSize
    /// Initial connection credit granted to the server (bytes): by default 16 MiB, room for
    /// eight calls' stream windows, so that up to eight calls left unread (each holding at
    /// most its stream window, docs/PROTOCOL.md 9.3) do not starve the others; also the most
    /// a server uses by default (`ServerConfiguration.maxResponseConnectionWindow`).
    public var initialConnectionWindow: Int = 16 << 20
    /// How long a task's request waits at most for the tasks resumed before it (seconds):
    /// their next requests usually follow at once and leave with it in one `send`
    /// (`SocketChannel.holdsWrites`), but one of them may never run soon (a main-actor task
    /// while the main thread waits for this very call). Tests raise it to observe the hold.
    var requestHoldLimit: Double = 0.001
    /// How long to wait for the TCP connection, and then again for the server's WELCOME
    /// (seconds): a server that accepts connections but does not answer (stopped, overloaded)
    /// fails `connect` with `UNAVAILABLE` instead of leaving it waiting.
    public var connectTimeout: Double = 10
    /// How long the server has to answer the keepalive PING (seconds) before the connection
    /// is taken for lost and every call on it fails with `UNAVAILABLE`. The PING goes out when
    /// nothing was sent for half the server's idle timeout, or when calls wait and nothing
    /// arrived for a quarter of it: a subscription or a download from a server that stopped,
    /// or across a network that went quiet without closing the socket, ends instead of
    /// waiting for ever.
    public var keepaliveTimeout: Double = 20
    /// Deadline of unary calls (seconds; `nil`: none).
    public var callTimeout: Double? = 60
    /// TLS, and how the server's certificate is trusted (``ClientTLS``); `nil`: plain TCP,
    /// for loopback.
    public var tls: ClientTLS?

    /// The defaults.
    public init() {}

    /// The smallest windows the protocol allows (128 KiB frames, a 128 KiB window per call,
    /// 192 KiB per connection): the server can have at most 192 KiB of responses in flight
    /// to this connection, and every message waits for the credit of the one before. For
    /// clients that hold many connections at once (load tests) or little memory.
    public static var minimalWindows: ClientConfiguration {
        var configuration = ClientConfiguration()
        configuration.maxFrameSize = 128 << 10
        configuration.initialStreamWindow = 128 << 10
        configuration.initialConnectionWindow = 192 << 10
        return configuration
    }

    /// The defaults with windows for moving large resources (``AssetResourceManager/writeData(for:type:toFile:verify:progress:)``
    /// of a video or a RAW original): 4 MiB per call and 16 MiB per connection, the most a
    /// server uses by default, so the server never waits for credit while the client keeps
    /// up. The client buffers at most that much of what the server sent ahead.
    public static var bulkTransfer: ClientConfiguration {
        var configuration = ClientConfiguration()
        configuration.initialStreamWindow = 4 << 20
        configuration.initialConnectionWindow = 16 << 20
        return configuration
    }
}
