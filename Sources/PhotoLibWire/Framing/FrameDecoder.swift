import PhotoLibCore

/// Cuts a byte stream into frames, refusing oversized lengths and unknown types.
///
/// Feed it bytes as they arrive with ``append(_:)``, then call ``next()`` until it
/// answers `nil` ("need more data"); nothing is returned until a whole frame is there.
///
/// A large payload (``inPlaceThreshold`` or more) that has not arrived whole gets storage of
/// its own, sized once from the header, and the bytes that follow are appended straight to
/// it: the finished payload is handed over as it is, instead of being gathered in the
/// decoder's buffer and copied out (a 230 MB resource arrives as 3,500 such 64 KiB frames).
public struct FrameDecoder: Sendable {
    private enum State: Sendable {
        case waitingForHeader
        case waitingForPayload(type: FrameType, flags: FrameFlags, stream: UInt32, length: Int)
    }

    /// The largest payload accepted; a longer declared length is an error before any of it is read.
    public var maxPayloadSize: Int
    private var state = State.waitingForHeader
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// The payload of the frame being received, when it is large and arrives in pieces: the
    /// piece in ``buffer`` when that was noticed, then what arrives until it is whole.
    private var payload: [UInt8] = []
    /// Whether the current frame's payload is being gathered in ``payload``.
    private var fillingPayload = false

    /// Payloads at least this long that do not arrive in one piece are gathered in storage of
    /// their own (see the type's comment); shorter ones are copied out of the buffer.
    public static let inPlaceThreshold = 16 << 10

    /// Creates a decoder accepting payloads up to `maxPayloadSize` bytes.
    public init(maxPayloadSize: Int) {
        self.maxPayloadSize = maxPayloadSize
    }

    /// Bytes received but not yet returned as frames (a header already read is not counted).
    public var bufferedByteCount: Int { buffer.count - readIndex + payload.count }

    /// Adds received bytes.
    public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let appended: Void? = bytes.withContiguousStorageIfAvailable { append(contiguous: $0) }
        if appended == nil { Array(bytes).withUnsafeBufferPointer { append(contiguous: $0) } }
    }

    private mutating func append(contiguous bytes: UnsafeBufferPointer<UInt8>) {
        var rest = bytes
        if fillingPayload, case .waitingForPayload(_, _, _, let length) = state {
            let take = min(length - payload.count, rest.count)
            payload.append(contentsOf: UnsafeBufferPointer(rebasing: rest[..<take]))
            rest = UnsafeBufferPointer(rebasing: rest[take...])
            if rest.isEmpty { return }
        }
        if readIndex > 0 && readIndex >= buffer.count / 2 {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: rest)
    }

    /// The next whole frame, or `nil` when more bytes are needed.
    ///
    /// Throws `resourceExhausted` for a length over ``maxPayloadSize`` and `invalidArgument`
    /// for an unknown frame type or a reserved stream-id bit; the connection must then close.
    public mutating func next() throws(PhotoLibError) -> Frame? {
        while true {
            switch state {
            case .waitingForHeader:
                guard buffer.count - readIndex >= Frame.headerSize else { return nil }
                let h = readIndex
                let length = Int(buffer[h]) << 24 | Int(buffer[h + 1]) << 16 | Int(buffer[h + 2]) << 8 | Int(buffer[h + 3])
                let rawType = buffer[h + 4]
                let flags = FrameFlags(rawValue: buffer[h + 5])
                let stream = UInt32(buffer[h + 6]) << 24 | UInt32(buffer[h + 7]) << 16 | UInt32(buffer[h + 8]) << 8 | UInt32(buffer[h + 9])
                guard let type = FrameType(rawValue: rawType) else {
                    throw PhotoLibError(.invalidArgument, "unknown frame type \(rawType) (known types are 1…9, see docs/PROTOCOL.md)", reason: .protocolViolation)
                }
                guard length <= maxPayloadSize else {
                    throw PhotoLibError(.resourceExhausted, "\(type) frame of \(length) bytes exceeds the maximum frame size of \(maxPayloadSize) bytes", reason: .protocolViolation)
                }
                guard stream <= Frame.maxStreamID else {
                    throw PhotoLibError(.invalidArgument, "stream id \(stream) has the reserved top bit set", reason: .protocolViolation)
                }
                readIndex += Frame.headerSize
                state = .waitingForPayload(type: type, flags: flags, stream: stream, length: length)
            case let .waitingForPayload(type, flags, stream, length):
                if fillingPayload {
                    guard payload.count == length else { return nil }
                    var whole: [UInt8] = []
                    swap(&whole, &payload)
                    fillingPayload = false
                    state = .waitingForHeader
                    return Frame(type, stream: stream, flags: flags, payload: whole)
                }
                guard buffer.count - readIndex >= length else {
                    if length >= Self.inPlaceThreshold {
                        // The rest goes straight to the payload's own storage (append).
                        payload.reserveCapacity(length)
                        payload.append(contentsOf: buffer[readIndex...])
                        buffer.removeAll(keepingCapacity: buffer.capacity <= 4 << 20)
                        readIndex = 0
                        fillingPayload = true
                    }
                    return nil
                }
                let payload = Array(buffer[readIndex..<readIndex + length])
                readIndex += length
                state = .waitingForHeader
                if readIndex == buffer.count {
                    buffer.removeAll(keepingCapacity: buffer.capacity <= 4 << 20)
                    readIndex = 0
                }
                return Frame(type, stream: stream, flags: flags, payload: payload)
            }
        }
    }
}
