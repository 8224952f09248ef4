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
///
/// Whole frames in bytes appended while nothing waits in the buffer are cut from those bytes
/// at once, each payload copied once into its frame, instead of passing through the buffer
/// (a read of several 8 KB images moved every byte twice); ``next()`` returns them first, in
/// order. The partial frame a read ends with is completed from the next read's first bytes
/// (`completePendingFrame(_:)`), which empties the buffer again, so the frames after it
/// are cut on arrival too. Only frames that ``next()`` would return are cut early: a length over the limit, an
/// unknown type or a reserved stream bit stays in the buffer for ``next()`` to refuse, and the
/// limit only grows (HELLO's, then the frame size), so a frame cut early is never one that
/// would have been refused.
///
/// Bytes appended with `append(borrowing:)` (the state machine's
/// ``ConnectionStateMachine/receive(borrowing:)``) are not copied for the MESSAGE frames they
/// hold whole: `nextEntry()` hands those out as ``BorrowedBytes`` pointing into them (a client
/// decodes an 8 KB image straight from the socket's read buffer instead of from a copy of
/// it). Their caller keeps the bytes valid until it has taken every frame, or calls
/// `keepBorrowedFrames()` first.
public struct FrameDecoder: Sendable {
    /// A whole frame waiting to be taken: owned, or a MESSAGE frame still in borrowed bytes.
    enum Entry: Sendable {
        case frame(Frame)
        case borrowedMessage(stream: UInt32, flags: FrameFlags, payload: BorrowedBytes)

        /// The frame, its payload copied if it is borrowed.
        var owned: Frame {
            switch self {
            case .frame(let frame): frame
            case .borrowedMessage(let stream, let flags, let payload): Frame(.message, stream: stream, flags: flags, payload: payload.copied())
            }
        }

        /// Header and payload bytes.
        var byteCount: Int {
            switch self {
            case .frame(let frame): Frame.headerSize + frame.payload.count
            case .borrowedMessage(_, _, let payload): Frame.headerSize + payload.count
            }
        }
    }

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
    /// Frames cut straight from appended bytes, returned by ``next()`` before anything in
    /// ``buffer`` (which holds only bytes that arrived after them), from ``readyIndex`` on.
    private var ready: [Entry] = []
    private var readyIndex = 0
    /// Whether ``ready`` holds frames in borrowed bytes (``append(borrowing:)``).
    private var holdsBorrowed = false

    /// Payloads at least this long that do not arrive in one piece are gathered in storage of
    /// their own (see the type's comment); shorter ones are copied out of the buffer.
    public static let inPlaceThreshold = 16 << 10

    /// Creates a decoder accepting payloads up to `maxPayloadSize` bytes.
    public init(maxPayloadSize: Int) {
        self.maxPayloadSize = maxPayloadSize
    }

    /// Bytes received but not yet returned as frames: whole frames waiting (header and
    /// payload), and of the frame being received its payload so far (its header, once read,
    /// is not counted).
    public var bufferedByteCount: Int {
        let cut = ready[readyIndex...].reduce(0) { $0 + $1.byteCount }
        return cut + buffer.count - readIndex + payload.count
    }

    /// Adds received bytes. The caller takes every frame ``next()`` has before it appends
    /// again (both drivers do, in the same turn): the whole frames cut from one append are
    /// held until then, so that is what bounds them (one read, at most 64 KiB, or one TLS batch).
    public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        precondition(!holdsBorrowed, "FrameDecoder: frames in borrowed bytes were not taken before the next append")
        let appended: Void? = bytes.withContiguousStorageIfAvailable { append(contiguous: $0, borrowing: false) }
        if appended == nil { Array(bytes).withUnsafeBufferPointer { append(contiguous: $0, borrowing: false) } }
    }

    /// Adds received bytes that stay valid and unchanged until every frame is taken (or
    /// ``keepBorrowedFrames()`` is called): the MESSAGE frames they hold whole are not copied
    /// (see the type's comment). Bytes of a frame they end in the middle of are copied, as
    /// ``append(_:)`` copies them.
    mutating func append(borrowing bytes: UnsafeRawBufferPointer) {
        precondition(!holdsBorrowed, "FrameDecoder: frames in borrowed bytes were not taken before the next append")
        guard let base = bytes.baseAddress else { return }
        append(contiguous: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: bytes.count), borrowing: true)
    }

    /// Copies the payloads of the frames still waiting in borrowed bytes: call it before those
    /// bytes go away with frames left (nothing to do when every frame was taken).
    mutating func keepBorrowedFrames() {
        guard holdsBorrowed else { return }
        for index in readyIndex..<ready.count {
            if case .borrowedMessage = ready[index] { ready[index] = .frame(ready[index].owned) }
        }
        holdsBorrowed = false
    }

    private mutating func append(contiguous bytes: UnsafeBufferPointer<UInt8>, borrowing: Bool) {
        var rest = bytes
        if fillingPayload, case let .waitingForPayload(type, flags, stream, length) = state {
            let take = min(length - payload.count, rest.count)
            payload.append(contentsOf: UnsafeBufferPointer(rebasing: rest[..<take]))
            rest = UnsafeBufferPointer(rebasing: rest[take...])
            if payload.count == length {
                // Whole: it joins the frames cut on arrival (it is the next frame), so the
                // bytes after it can be cut too.
                var whole: [UInt8] = []
                swap(&whole, &payload)
                fillingPayload = false
                state = .waitingForHeader
                ready.append(.frame(Frame(type, stream: stream, flags: flags, payload: whole)))
            }
            if rest.isEmpty { return }
        }
        if !fillingPayload {
            rest = completePendingFrame(rest)
            if rest.isEmpty { return }
        }
        if readIndex == buffer.count, !fillingPayload, case .waitingForHeader = state {
            rest = cutWholeFrames(rest, borrowing: borrowing)
            if rest.isEmpty { return }
        }
        if readIndex > 0 && readIndex >= buffer.count / 2 {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: rest)
    }

    /// Cuts the whole frames at the start of `bytes` into ``ready`` (see the type's comment),
    /// MESSAGE frames as borrowed when `borrowing`; returns the bytes after them: a partial
    /// frame, or one ``next()`` must judge.
    private mutating func cutWholeFrames(_ bytes: UnsafeBufferPointer<UInt8>, borrowing: Bool) -> UnsafeBufferPointer<UInt8> {
        var at = 0
        while bytes.count - at >= Frame.headerSize {
            guard let header = try? self.header(bytes, at: at), bytes.count - at - Frame.headerSize >= header.length else { break }
            let start = at + Frame.headerSize
            let slice = UnsafeBufferPointer(rebasing: bytes[start..<(start + header.length)])
            if borrowing && header.type == .message {
                ready.append(.borrowedMessage(stream: header.stream, flags: header.flags, payload: BorrowedBytes(UnsafeRawBufferPointer(slice))))
                holdsBorrowed = true
            } else {
                ready.append(.frame(Frame(header.type, stream: header.stream, flags: header.flags, payload: Array(slice))))
            }
            at = start + header.length
        }
        return UnsafeBufferPointer(rebasing: bytes[at...])
    }

    /// The header at `at` in `bytes` (whole there), or the connection error that refuses it:
    /// an unknown type, a length over ``maxPayloadSize``, the reserved stream bit. The one
    /// reading of a header: ``next()`` throws its error, the frames cut on arrival stop at it.
    private func header(_ bytes: UnsafeBufferPointer<UInt8>, at: Int) throws(PhotoLibError) -> (type: FrameType, flags: FrameFlags, stream: UInt32, length: Int) {
        let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        let rawType = bytes[at + 4]
        let stream = UInt32(bytes[at + 6]) << 24 | UInt32(bytes[at + 7]) << 16 | UInt32(bytes[at + 8]) << 8 | UInt32(bytes[at + 9])
        guard let type = FrameType(rawValue: rawType) else {
            throw PhotoLibError(.invalidArgument, "unknown frame type \(rawType) (known types are 1…9, see docs/PROTOCOL.md)", reason: .protocolViolation)
        }
        guard length <= maxPayloadSize else {
            throw PhotoLibError(.resourceExhausted, "\(type) frame of \(length) bytes exceeds the maximum frame size of \(maxPayloadSize) bytes", reason: .protocolViolation)
        }
        guard stream <= Frame.maxStreamID else {
            throw PhotoLibError(.invalidArgument, "stream id \(stream) has the reserved top bit set", reason: .protocolViolation)
        }
        return (type, FrameFlags(rawValue: bytes[at + 5]), stream, length)
    }

    /// Completes the partial frame the buffer ends with (part of a header, or a header and
    /// part of a payload, left by the read before) from the start of `bytes`, into ``ready``:
    /// its payload gets the buffered part and then just the bytes it lacks, and the buffer
    /// empties, so the frames after it can be cut on arrival too. A read rarely ends on a
    /// frame's end; without this, every frame after the first such read went through the
    /// buffer and was copied twice. Returns the bytes after the frame; all of `bytes` when
    /// there is nothing to complete, the frame is still not whole, or ``next()`` must judge its
    /// header.
    private mutating func completePendingFrame(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var rest = bytes
        if case .waitingForHeader = state {
            let have = buffer.count - readIndex
            guard have > 0, have < Frame.headerSize else { return rest }
            let take = min(Frame.headerSize - have, rest.count)
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: rest[..<take]))
            rest = UnsafeBufferPointer(rebasing: rest[take...])
            guard buffer.count - readIndex == Frame.headerSize,
                let header = buffer.withUnsafeBufferPointer({ try? self.header($0, at: readIndex) })
            else { return rest }
            readIndex += Frame.headerSize
            state = .waitingForPayload(type: header.type, flags: header.flags, stream: header.stream, length: header.length)
        }
        guard case let .waitingForPayload(type, flags, stream, length) = state else { return rest }
        let have = buffer.count - readIndex
        guard have < length, have + rest.count >= length else { return rest }
        let lacking = length - have
        var payload: [UInt8] = []
        payload.reserveCapacity(length)
        payload.append(contentsOf: buffer[readIndex...])
        payload.append(contentsOf: UnsafeBufferPointer(rebasing: rest[..<lacking]))
        ready.append(.frame(Frame(type, stream: stream, flags: flags, payload: payload)))
        state = .waitingForHeader
        buffer.removeAll(keepingCapacity: buffer.capacity <= 4 << 20)
        readIndex = 0
        return UnsafeBufferPointer(rebasing: rest[lacking...])
    }

    /// The next whole frame, or `nil` when more bytes are needed.
    ///
    /// Throws `resourceExhausted` for a length over ``maxPayloadSize`` and `invalidArgument`
    /// for an unknown frame type or a reserved stream-id bit; the connection must then close.
    public mutating func next() throws(PhotoLibError) -> Frame? {
        try nextEntry()?.owned
    }

    /// ``next()``, with a MESSAGE frame of bytes appended with ``append(borrowing:)`` handed
    /// out as it lies in them, uncopied.
    mutating func nextEntry() throws(PhotoLibError) -> Entry? {
        if readyIndex < ready.count {
            // Taken out of the array, so that the caller holds the only reference to its
            // payload (a consumer that works on the payload in place must not copy it).
            var entry = Entry.frame(Frame(.ping))
            swap(&entry, &ready[readyIndex])
            readyIndex += 1
            if readyIndex == ready.count {
                // A flood of small frames leaves no large array behind.
                ready.removeAll(keepingCapacity: ready.capacity <= 64)
                readyIndex = 0
                holdsBorrowed = false
            }
            return entry
        }
        while true {
            switch state {
            case .waitingForHeader:
                guard buffer.count - readIndex >= Frame.headerSize else { return nil }
                let header = try buffer.withUnsafeBufferPointer { (bytes) throws(PhotoLibError) in try self.header(bytes, at: readIndex) }
                readIndex += Frame.headerSize
                state = .waitingForPayload(type: header.type, flags: header.flags, stream: header.stream, length: header.length)
            case let .waitingForPayload(type, flags, stream, length):
                // A payload being gathered is handed to `ready` by `append` once whole.
                if fillingPayload { return nil }
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
                return .frame(Frame(type, stream: stream, flags: flags, payload: payload))
            }
        }
    }
}
