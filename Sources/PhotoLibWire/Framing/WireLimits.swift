/// The protocol's sizes and defaults (docs/PROTOCOL.md, "Limits").
public enum WireLimits {
    /// The protocol version this code speaks.
    public static let protocolVersion: UInt32 = 1
    /// Default largest frame payload a side accepts: 1 MiB.
    public static let defaultMaxFrameSize = 1 << 20
    /// Smallest maximum frame size a side may announce: 16 KiB.
    public static let minimumMaxFrameSize = 16 << 10
    /// Largest maximum frame size a side may announce: 16 MiB.
    public static let maximumMaxFrameSize = 16 << 20
    /// Largest HELLO the server reads before the handshake: 64 KiB.
    public static let maxHelloSize = 64 << 10
    /// Default initial credit per stream: 1 MiB.
    public static let defaultStreamWindow = 1 << 20
    /// Default initial credit per connection: 8 MiB.
    public static let defaultConnectionWindow = 8 << 20
    /// The largest a window may grow.
    public static let maxWindow = Int(Int32.max)
    /// Bulk data (image, resource, upload) is sent in messages of at most this many bytes.
    public static let chunkSize = 64 << 10

    /// Resolves an announced maximum frame size (0 means the default) into the allowed range.
    public static func maxFrameSize(announced: UInt32) -> Int {
        announced == 0 ? defaultMaxFrameSize : min(max(Int(announced), minimumMaxFrameSize), maximumMaxFrameSize)
    }

    /// Resolves an announced initial window (0 means `fallback`), never below the frame size.
    public static func window(announced: UInt32, fallback: Int, atLeast frameSize: Int) -> Int {
        let value = announced == 0 ? fallback : Int(announced)
        return min(max(value, frameSize), maxWindow)
    }
}
