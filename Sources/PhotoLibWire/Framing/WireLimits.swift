import PhotoLibCore

/// The protocol's sizes and defaults (docs/PROTOCOL.md, "Limits").
public enum WireLimits {
    /// The protocol version this code speaks.
    public static let protocolVersion: UInt32 = 1
    /// Default largest frame payload a side accepts: 1 MiB.
    public static let defaultMaxFrameSize = 1 << 20
    /// Smallest maximum frame size a side may announce: 128 KiB, so a 64 KiB data chunk and
    /// its message framing always fit.
    public static let minimumMaxFrameSize = 128 << 10
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

    /// Resolves an announced maximum frame size (0 means the default); throws
    /// `invalidArgument` outside 128 KiB…16 MiB.
    public static func maxFrameSize(announced: UInt32) throws(PhotoLibError) -> Int {
        guard announced != 0 else { return defaultMaxFrameSize }
        guard (minimumMaxFrameSize...maximumMaxFrameSize).contains(Int(announced)) else {
            throw PhotoLibError(.invalidArgument, "max_frame_size \(announced) is outside \(minimumMaxFrameSize)…\(maximumMaxFrameSize) bytes (0 means the default)", reason: .protocolViolation)
        }
        return Int(announced)
    }

    /// Resolves an announced initial window (0 means `fallback`); throws `invalidArgument`
    /// when it is smaller than the frame size it must carry or larger than 2^31−1.
    public static func window(announced: UInt32, fallback: Int, atLeast frameSize: Int, name: String) throws(PhotoLibError) -> Int {
        guard announced != 0 else { return max(fallback, frameSize) }
        guard Int(announced) >= frameSize, Int(announced) <= maxWindow else {
            throw PhotoLibError(.invalidArgument, "\(name) \(announced) must be at least the maximum frame size (\(frameSize)) and at most 2^31−1 (0 means the default)", reason: .protocolViolation)
        }
        return Int(announced)
    }
}
