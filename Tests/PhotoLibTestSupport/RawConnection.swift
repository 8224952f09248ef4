import Foundation
import PhotoLibWire

#if canImport(Glibc)
import Glibc
#endif

/// What a raw connection could not do, for test failures.
public struct RawConnectionError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// A bare connection (TCP, or one end of a socket pair) that sends hand-made bytes and reads
/// frames, with timeouts: the tool for checking the server's reaction to malformed input.
///
/// `@unchecked Sendable`: one test drives it at a time (its reads and writes are not concurrent).
public final class RawConnection: @unchecked Sendable {
    /// What a read produced.
    public enum Read: CustomStringConvertible {
        case frame(Frame)
        /// The server closed the connection (EOF or reset).
        case closed
        /// Nothing arrived in time.
        case timeout
        /// The server sent a header the test cannot parse (unknown type).
        case garbage([UInt8])

        public var description: String {
            switch self {
            case .frame(let frame): return "\(frame.type) frame on stream \(frame.streamID), \(frame.payload.count) bytes"
            case .closed: return "connection closed"
            case .timeout: return "timeout"
            case .garbage(let header): return "unparseable header \(header)"
            }
        }
    }

    private var fd: Int32
    private var buffer: [UInt8] = []

    /// Talks over `fd`, a connected stream socket it now owns (made blocking: reads wait
    /// in `poll` with a timeout).
    public init(connectedSocket fd: Int32) {
        self.fd = fd
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        var sendTimeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Connects to 127.0.0.1:`port`.
    public init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawConnectionError("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let error = errno
            Glibc.close(fd)
            throw RawConnectionError("connect to 127.0.0.1:\(port) failed: errno \(error)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var sendTimeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close() }

    public func close() {
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
    }

    /// Sends raw bytes; returns `false` if the server already closed the connection.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// Sends a frame.
    @discardableResult
    public func send(_ frame: Frame) -> Bool { send(frame.encoded) }

    /// A raw frame: header fields as given (any type byte, any length) and `payload`.
    public static func rawFrame(length: UInt32, type: UInt8, flags: UInt8 = 0, stream: UInt32 = 0, payload: [UInt8] = []) -> [UInt8] {
        [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF), type, flags,
         UInt8(stream >> 24), UInt8((stream >> 16) & 0xFF), UInt8((stream >> 8) & 0xFF), UInt8(stream & 0xFF)] + payload
    }

    /// Reads the next frame, waiting at most `timeout` seconds.
    public func readFrame(timeout: TimeInterval = 10) -> Read {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if buffer.count >= Frame.headerSize {
                let length = Int(buffer[0]) << 24 | Int(buffer[1]) << 16 | Int(buffer[2]) << 8 | Int(buffer[3])
                guard let type = FrameType(rawValue: buffer[4]), length <= 64 << 20 else { return .garbage(Array(buffer.prefix(10))) }
                if buffer.count >= Frame.headerSize + length {
                    let stream = UInt32(buffer[6]) << 24 | UInt32(buffer[7]) << 16 | UInt32(buffer[8]) << 8 | UInt32(buffer[9])
                    let frame = Frame(type, stream: stream, flags: FrameFlags(rawValue: buffer[5]), payload: Array(buffer[Frame.headerSize..<(Frame.headerSize + length)]))
                    buffer.removeFirst(Frame.headerSize + length)
                    return .frame(frame)
                }
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return .timeout }
            switch receive(timeout: remaining) {
            case .data(let bytes): buffer += bytes
            case .closed: return .closed
            case .timeout: return .timeout
            }
        }
    }

    /// Reads frames until one satisfies `match` (returned), the connection closes or times out.
    /// PINGs are answered; other frames are collected in `skipped`.
    public func readUntil(timeout: TimeInterval = 10, _ match: (Frame) -> Bool) -> (Read, skipped: [Frame]) {
        let deadline = Date().addingTimeInterval(timeout)
        var skipped: [Frame] = []
        while true {
            let read = readFrame(timeout: max(0, deadline.timeIntervalSinceNow))
            guard case .frame(let frame) = read else { return (read, skipped) }
            if match(frame) { return (read, skipped) }
            if frame.type == .ping, !frame.flags.contains(.ack) {
                send(Frame(.ping, flags: .ack, payload: frame.payload))
            }
            skipped.append(frame)
        }
    }

    /// Waits for the server to close the connection, discarding frames; `true` when it did
    /// within `timeout` seconds.
    public func waitForClose(timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            switch readFrame(timeout: max(0, deadline.timeIntervalSinceNow)) {
            case .closed: return true
            case .timeout: return false
            case .frame, .garbage: continue
            }
        }
    }

    /// Sends HELLO with `token` and expects WELCOME.
    public func handshake(token: String, clientName: String = "e2e-raw/1", maxFrameSize: UInt32 = 0, streamWindow: UInt32 = 0, connectionWindow: UInt32 = 0) throws -> Wire.Welcome {
        send(Frame(.hello, payload: Wire.Hello(protocolVersion: WireLimits.protocolVersion, token: token, clientName: clientName, maxFrameSize: maxFrameSize, initialStreamWindow: streamWindow, initialConnectionWindow: connectionWindow).encoded()))
        let read = readFrame()
        guard case .frame(let frame) = read, frame.type == .welcome else {
            throw RawConnectionError("expected WELCOME after HELLO, got \(read)\(goAwayText(read))")
        }
        return try Wire.Welcome(decoding: frame.payload)
    }

    /// The result of a call made by hand.
    public struct CallResult {
        /// The MESSAGE payloads, in order.
        public var messages: [[UInt8]]
        /// The STATUS.
        public var status: Wire.Status
    }

    /// Opens a call on `stream` with `callPayload` as the CALL payload (normally an encoded
    /// `CallStart`), sends `request` as one MESSAGE with END_STREAM, and collects the
    /// MESSAGE frames until the STATUS of that stream. Grants flow-control credit back as it reads.
    public func call(stream: UInt32, callPayload: [UInt8], request: [UInt8]? = [], timeout: TimeInterval = 20) throws -> CallResult {
        send(Frame(.call, stream: stream, flags: request == nil ? .endStream : [], payload: callPayload))
        if let request { send(Frame(.message, stream: stream, flags: .endStream, payload: request)) }
        var messages: [[UInt8]] = []
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let read = readFrame(timeout: max(0, deadline.timeIntervalSinceNow))
            guard case .frame(let frame) = read else {
                throw RawConnectionError("waiting for STATUS of stream \(stream): \(read)")
            }
            switch frame.type {
            case .message where frame.streamID == stream:
                messages.append(frame.payload)
                if !frame.payload.isEmpty {
                    let credit = Wire.WindowUpdate(increment: UInt32(frame.payload.count)).encoded()
                    send(Frame(.windowUpdate, stream: stream, payload: credit))
                    send(Frame(.windowUpdate, stream: 0, payload: credit))
                }
            case .status where frame.streamID == stream:
                return CallResult(messages: messages, status: try Wire.Status(decoding: frame.payload))
            case .ping where !frame.flags.contains(.ack):
                send(Frame(.ping, flags: .ack, payload: frame.payload))
            case .goAway:
                throw RawConnectionError("GOAWAY while waiting for STATUS of stream \(stream): \((try? Wire.GoAway(decoding: frame.payload)).map { "\($0.status?.code ?? .ok) \($0.status?.message ?? "")" } ?? "undecodable")")
            default:
                continue
            }
        }
    }

    /// A call of `method` (a wire name) with a request payload.
    public func call(stream: UInt32, method: String, request: [UInt8] = [], timeout: TimeInterval = 20) throws -> CallResult {
        try call(stream: stream, callPayload: Wire.CallStart(method: method).encoded(), request: request, timeout: timeout)
    }

    private enum Received { case data([UInt8]), closed, timeout }

    private func receive(timeout: TimeInterval) -> Received {
        var pollDescriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(max(1, min(timeout * 1000, 60_000)))
        let ready = poll(&pollDescriptor, 1, milliseconds)
        if ready == 0 { return .timeout }
        if ready < 0 { return errno == EINTR ? .data([]) : .closed }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 { return .data(Array(chunk[..<n])) }
        if n < 0 && (errno == EINTR || errno == EAGAIN) { return .data([]) }
        return .closed  // 0 = EOF; < 0 = reset or other error
    }
}

/// The GOAWAY status of a read, for messages.
public func goAwayText(_ read: RawConnection.Read) -> String {
    guard case .frame(let frame) = read, frame.type == .goAway, let goAway = try? Wire.GoAway(decoding: frame.payload) else { return "" }
    return " (GOAWAY \(goAway.status?.code ?? .ok): \(goAway.status?.message ?? ""))"
}

/// Protobuf encoding by hand, to put bytes on the wire that no well-behaved encoder writes
/// (invalid UTF-8, NUL in strings).
public enum Proto {
    public static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        repeat {
            var byte = UInt8(value & 0x7F)
            value >>= 7
            if value != 0 { byte |= 0x80 }
            bytes.append(byte)
        } while value != 0
        return bytes
    }

    /// A varint field (wire type 0).
    public static func field(_ number: UInt64, varint value: UInt64) -> [UInt8] {
        varint(number << 3) + varint(value)
    }

    /// A length-delimited field (wire type 2) holding raw `bytes`.
    public static func field(_ number: UInt64, bytes: [UInt8]) -> [UInt8] {
        varint(number << 3 | 2) + varint(UInt64(bytes.count)) + bytes
    }
}
