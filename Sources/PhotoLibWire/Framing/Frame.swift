/// The kind of a frame (docs/PROTOCOL.md, "Frame types").
public enum FrameType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// Client → server, stream 0: the handshake (`Hello`).
    case hello = 1
    /// Server → client, stream 0: the handshake answer (`Welcome`).
    case welcome = 2
    /// Client → server: opens a call on a new stream (`CallStart`).
    case call = 3
    /// Either way, stream > 0: one request or response message.
    case message = 4
    /// Server → client: ends a call (`Status`).
    case status = 5
    /// Client → server: abandons a call (`Cancel`).
    case cancel = 6
    /// Either way: grants flow-control credit (`WindowUpdate`); stream 0 is the connection.
    case windowUpdate = 7
    /// Either way, stream 0: keepalive (`Ping`), answered with the ACK flag.
    case ping = 8
    /// Either way, stream 0: the sender is closing the connection (`GoAway`).
    case goAway = 9

    /// The upper-case name used in the protocol document.
    public var description: String {
        switch self {
        case .hello: return "HELLO"
        case .welcome: return "WELCOME"
        case .call: return "CALL"
        case .message: return "MESSAGE"
        case .status: return "STATUS"
        case .cancel: return "CANCEL"
        case .windowUpdate: return "WINDOW_UPDATE"
        case .ping: return "PING"
        case .goAway: return "GOAWAY"
        }
    }
}

/// Frame flag bits.
public struct FrameFlags: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public var rawValue: UInt8
    /// Creates flags from raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// On CALL or MESSAGE: the client sends no more request messages on this stream.
    public static let endStream = FrameFlags(rawValue: 0x01)
    /// On PING: this is the answer.
    public static let ack = FrameFlags(rawValue: 0x02)
}

/// One protocol frame: a 10-byte header and a payload.
///
/// ```
/// 0       4      5      6             10
/// +-------+------+------+-------------+-----------------+
/// |length | type |flags | stream id   | payload (length)|
/// | u32 BE| u8   | u8   | u32 BE      |                 |
/// +-------+------+------+-------------+-----------------+
/// ```
public struct Frame: Sendable, Hashable {
    /// The header size in bytes.
    public static let headerSize = 10
    /// The largest stream id (the top bit is reserved).
    public static let maxStreamID: UInt32 = 0x7FFF_FFFF

    /// What the frame is.
    public var type: FrameType
    /// Flag bits.
    public var flags: FrameFlags
    /// 0 for connection frames, the call's stream otherwise.
    public var streamID: UInt32
    /// The encoded message.
    public var payload: [UInt8]

    /// Creates a frame.
    public init(_ type: FrameType, stream streamID: UInt32 = 0, flags: FrameFlags = [], payload: [UInt8] = []) {
        self.type = type
        self.flags = flags
        self.streamID = streamID
        self.payload = payload
    }

    /// Appends the frame's bytes to `buffer`.
    public func encode(into buffer: inout [UInt8]) {
        Frame.encodeHeader(type, stream: streamID, flags: flags, length: payload.count, reserving: payload.count, into: &buffer)
        buffer.append(contentsOf: payload)
    }

    /// Appends the header of a frame whose payload is `length` bytes to `buffer`, with room
    /// for `reserving` more bytes after it.
    static func encodeHeader(_ type: FrameType, stream streamID: UInt32, flags: FrameFlags, length payloadLength: Int, reserving: Int, into buffer: inout [UInt8]) {
        let length = UInt32(payloadLength)
        // Grow geometrically: callers append many frames to one buffer.
        let needed = buffer.count + Frame.headerSize + reserving
        if needed > buffer.capacity { buffer.reserveCapacity(max(needed, 2 * buffer.capacity)) }
        buffer.append(UInt8(truncatingIfNeeded: length >> 24))
        buffer.append(UInt8(truncatingIfNeeded: length >> 16))
        buffer.append(UInt8(truncatingIfNeeded: length >> 8))
        buffer.append(UInt8(truncatingIfNeeded: length))
        buffer.append(type.rawValue)
        buffer.append(flags.rawValue)
        buffer.append(UInt8(truncatingIfNeeded: streamID >> 24))
        buffer.append(UInt8(truncatingIfNeeded: streamID >> 16))
        buffer.append(UInt8(truncatingIfNeeded: streamID >> 8))
        buffer.append(UInt8(truncatingIfNeeded: streamID))
    }

    /// The frame's bytes.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        encode(into: &bytes)
        return bytes
    }
}
