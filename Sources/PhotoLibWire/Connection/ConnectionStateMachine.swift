import PhotoLibCore

/// The protocol of one connection (docs/PROTOCOL.md, sections 2–12) without any I/O: bytes
/// and calls in, events and bytes out.
///
/// The same machine serves both ends (``Role``). A driver owns the socket, the timers and the
/// application: it feeds received bytes with ``receive(_:)`` and pulls what they mean with
/// ``nextEvent(now:)`` until it answers `nil`, answers events synchronously (a server accepts
/// or refuses a HELLO with ``accept(_:)`` / ``fail(_:)`` before it pulls the next event),
/// calls ``tick(now:)`` at ``nextDeadline``, and writes what ``takeOutbound()`` returns.
/// Once ``isClosed`` is `true` the machine writes nothing more and the driver closes the
/// socket after writing the last bytes.
///
/// The machine enforces the frame rules (first frame, stream ids, frame types per stream,
/// frame size), flow control in both directions (credit to grant for received MESSAGE bytes,
/// credit to spend on sent ones, the server's clamped share of the client's windows), the
/// PING rate (``ControlFrameGuard``), GOAWAY and draining, and the deadlines: the handshake's,
/// the idle timeout, each call's, deferred PING answers and the client's keepalive. Time is
/// what the driver passes as `now` (monotonic nanoseconds); the machine never reads a clock.
///
/// Data flows one way: bytes → frames (``FrameDecoder``) → events; calls → frames → bytes.
/// Not thread-safe: owned by one connection's queue.
public struct ConnectionStateMachine: Sendable {
    /// Which end of the connection the machine plays.
    public enum Role: Sendable, Hashable {
        /// Answers HELLO with WELCOME, accepts calls, sends responses and STATUS.
        case server
        /// Sends HELLO, opens calls, sends requests, receives responses and STATUS.
        case client
    }

    /// What one end announces and enforces.
    public struct Configuration: Sendable, Hashable {
        /// Which end this is.
        public var role: Role
        /// The largest frame payload this end accepts after the handshake (announced in
        /// HELLO or WELCOME).
        public var maxFrameSize: Int
        /// This end's initial receive window per stream (announced).
        public var initialStreamWindow: Int
        /// This end's initial receive window for the connection (announced).
        public var initialConnectionWindow: Int
        /// The most credit of the peer's stream window this end holds at once (the server's
        /// `maxResponseStreamWindow`); never below twice the peer's maximum frame size, so
        /// that a peer holding back less than one largest message of credit (as
        /// docs/PROTOCOL.md 9.3 allows) never leaves this end without room for the next one.
        public var maxSendStreamWindow: Int
        /// The most credit of the peer's connection window this end holds at once (never below
        /// twice the peer's maximum frame size either).
        public var maxSendConnectionWindow: Int
        /// Server: concurrent calls allowed on one connection (announced in WELCOME).
        public var maxConcurrentStreams: Int
        /// Server: seconds the client has to send HELLO. Client: seconds the server has to
        /// answer HELLO with WELCOME (a server that accepted the connection but does not
        /// answer: stopped, overloaded, or not photolibd).
        public var handshakeTimeout: Double
        /// Client: seconds the server has to answer the keepalive PING (any frame counts)
        /// before the connection is taken for lost: a stopped server or a network gone quiet
        /// that never closes the socket.
        public var keepaliveTimeout: Double
        /// Server: seconds without a complete frame (and no call in progress) after which the
        /// connection is closed (announced in WELCOME). Client: ignored (WELCOME's value is used).
        public var idleTimeout: Double
        /// Server: the shortest time between two PING answers, seconds.
        public var controlFrameInterval: Double
        /// Server: PINGs not answered at once within one interval beyond which the connection closes.
        public var maxUnansweredControlFrames: Int

        /// A configuration with the protocol's defaults (docs/PROTOCOL.md, section 12).
        public init(
            role: Role,
            maxFrameSize: Int = WireLimits.defaultMaxFrameSize,
            initialStreamWindow: Int = WireLimits.defaultStreamWindow,
            initialConnectionWindow: Int = WireLimits.defaultConnectionWindow,
            maxSendStreamWindow: Int = WireLimits.maxWindow,
            maxSendConnectionWindow: Int = WireLimits.maxWindow,
            maxConcurrentStreams: Int = 100,
            handshakeTimeout: Double = 10,
            keepaliveTimeout: Double = 20,
            idleTimeout: Double = 300,
            controlFrameInterval: Double = 0.1,
            maxUnansweredControlFrames: Int = 100
        ) {
            self.role = role
            self.maxFrameSize = maxFrameSize
            self.initialStreamWindow = initialStreamWindow
            self.initialConnectionWindow = initialConnectionWindow
            self.maxSendStreamWindow = maxSendStreamWindow
            self.maxSendConnectionWindow = maxSendConnectionWindow
            self.maxConcurrentStreams = maxConcurrentStreams
            self.handshakeTimeout = handshakeTimeout
            self.keepaliveTimeout = keepaliveTimeout
            self.idleTimeout = idleTimeout
            self.controlFrameInterval = controlFrameInterval
            self.maxUnansweredControlFrames = maxUnansweredControlFrames
        }
    }

    /// What received frames and passing time mean to the driver.
    public enum Event: Sendable, Hashable {
        /// Server: the client's HELLO (version checked). Answer with ``accept(_:)`` or
        /// ``fail(_:)`` before pulling the next event.
        case hello(Wire.Hello)
        /// Client: the server's WELCOME (version, frame size and windows checked).
        case welcome(Wire.Welcome)
        /// Server: a call opened on a new stream; `endStream` when CALL carried END_STREAM.
        case callOpened(stream: UInt32, call: Wire.CallStart, endStream: Bool)
        /// A MESSAGE for an open call. Its bytes count as unconsumed until ``consumed(_:stream:)``
        /// or ``release(_:stream:)``, or until the call ends.
        case message(stream: UInt32, payload: [UInt8], endStream: Bool)
        /// A MESSAGE for an open call, read where it lies in the bytes given to
        /// ``ConnectionStateMachine/receive(borrowing:)``: like ``message(stream:payload:endStream:)``,
        /// but `payload` is valid only while this event is handled (see ``BorrowedBytes``).
        case borrowedMessage(stream: UInt32, payload: BorrowedBytes, endStream: Bool)
        /// Client: the server ended a call with STATUS.
        case status(stream: UInt32, Wire.Status)
        /// Server: the client cancelled an open call; nothing more goes out on it.
        case cancelled(stream: UInt32, reason: String)
        /// Send credit arrived for `stream`: messages waiting for it may go now.
        case windowOpened(stream: UInt32)
        /// The answer to one of this end's PINGs.
        case pingAcknowledged(opaque: UInt64)
        /// The peer sent GOAWAY. Client: `abandoned` are the calls above its `lastStreamID`,
        /// which failed without being handled. Server: `abandoned` are every running call,
        /// which ends as if cancelled, and the machine is closed (section 11.3).
        case goAway(Wire.GoAway, abandoned: [UInt32])
        /// A call's deadline (`CallStart.timeoutMs`) passed; the call is still open.
        case deadlineExceeded(stream: UInt32)
        /// The connection is over: with the error this end sent in GOAWAY (a violation, a
        /// timeout), the error the peer's GOAWAY carried during the handshake, or `nil`.
        case closed(PhotoLibError?)
    }

    /// What ``send(_:stream:endStream:)`` did with a message.
    public enum SendOutcome: Sendable, Hashable {
        /// Written (and the credit spent).
        case sent
        /// The stream's window is too small; ``Event/windowOpened(stream:)`` says when to retry.
        case blockedOnStream
        /// The connection's window is too small; the stream is retried with
        /// ``Event/windowOpened(stream:)`` when connection credit arrives.
        case blockedOnConnection
        /// The call is not open (ended, cancelled, unknown) or the connection closed.
        case notOpen
    }

    private enum Phase: Sendable, Hashable {
        /// Server: waiting for HELLO; client: waiting for WELCOME.
        case handshaking
        /// Server: HELLO received, waiting for ``accept(_:)`` or ``fail(_:)``.
        case answeringHello(Wire.Hello)
        case open
        /// Server: GOAWAY sent; client: GOAWAY received (a server receiving one closes at
        /// once, section 11.3). No new calls; closes when the last call ends.
        case draining
        case closed
    }

    private struct StreamState: Sendable {
        var sendWindow: SendWindow
        /// Server: the client's credit for request bytes (granted back as consumed).
        var receiveWindow: FlowWindow
        /// Client: the server's credit for response bytes, returned in batches.
        var credit: ReceiveCredit
        /// Server: the client sent END_STREAM. Client: this end did.
        var requestEnded: Bool
        /// Received MESSAGE bytes handed over as events and not yet consumed or released.
        var unconsumed = 0
        /// When the call's deadline passes (nanoseconds), if it has one.
        var deadline: UInt64?
    }

    /// The machine's configuration.
    public let configuration: Configuration

    // What a driver reads after every turn is stored, not computed: a driver keeps the machine
    // in a class, and calling a computed property on it from another module copies the whole
    // machine first (retaining every buffer it holds) and destroys the copy after. The
    // observers (`didSet`) of the state these depend on keep them up to date.

    /// Whether the connection is over: nothing more is read or written.
    public private(set) var isClosed = false
    /// Whether bytes wait in ``takeOutbound()``.
    public private(set) var hasOutbound = false
    /// When the driver should call ``tick(now:)`` next: the handshake deadline, the idle
    /// timeout, the earliest call deadline, a deferred PING answer or the client's keepalive.
    /// `nil` when nothing is due (closed).
    public private(set) var nextDeadline: UInt64?

    private var phase = Phase.handshaking {
        didSet {
            isClosed = phase == .closed
            updateNextDeadline()
        }
    }
    private var decoder: FrameDecoder
    /// The open calls; the table's size follows their number (``StreamTable``). Server: at
    /// most ``Configuration/maxConcurrentStreams`` (a CALL beyond it is refused without an
    /// entry). Client: the calls the application has open; those beyond the server's
    /// announced limit end as soon as its refusal arrives.
    private var streams = StreamTable<StreamState>()
    /// The earliest deadline of the calls in ``streams``, `nil` when none has one (image
    /// calls, say): worked out again from every open call only when the call that had it
    /// ends or its deadline passes.
    private var earliestCallDeadline: UInt64? {
        didSet { updateNextDeadline() }
    }
    /// Server: the highest stream id a CALL used. Client: the highest id opened.
    private var highestStreamID: UInt32 = 0
    private var nextStreamID: UInt32 = 1
    private var sendConnectionWindow: SendWindow
    private var receiveConnectionWindow: FlowWindow
    /// Client: the connection's receive window, whose credit goes back in batches
    /// (``ReceiveCredit``) rather than one WINDOW_UPDATE per message.
    private var connectionCredit: ReceiveCredit
    /// Client: streams whose held credit is decided about when the current batch of received
    /// bytes is done (they received or consumed bytes in it).
    private var creditChecks: [UInt32] = []
    private var initialSendStreamWindow = WireLimits.defaultStreamWindow
    /// The largest payload the peer accepts (its HELLO or WELCOME).
    public private(set) var peerMaxFrameSize = WireLimits.defaultMaxFrameSize
    /// Streams waiting for connection credit, in the order they blocked.
    private var blockedOnConnection: [UInt32] = []
    private var controlFrames: ControlFrameGuard
    /// PING answers that wait for their turn (see ``ControlFrameGuard``): when, and the payload.
    private var deferredPings: [(due: UInt64, payload: [UInt8])] = [] {
        didSet { updateNextDeadline() }
    }
    /// Connection credit granted but not yet announced, while a batch of received bytes is handled.
    private var ungrantedConnectionCredit = 0
    private var handlingReceivedBytes = false
    private var pendingEvents: [Event] = []
    /// The bytes to write (changed in place: the observer does not read the old value).
    private var outbound: [UInt8] = [] {
        didSet { hasOutbound = !outbound.isEmpty }
    }
    private let openedAt: UInt64
    private var lastFrameAt: UInt64 {
        didSet { updateNextDeadline() }
    }
    /// Client: when the keepalive looks at the connection next (every quarter of the idle
    /// timeout), whether anything was written since it last looked, and how many looks in a
    /// row found silence (two make it send a PING).
    private var keepaliveAt: UInt64? {
        didSet { updateNextDeadline() }
    }
    private var wroteSinceKeepalive = false
    private var silentKeepaliveTicks = 0
    /// Client: when the keepalive looked last (a look after which no frame arrived while
    /// calls wait for the server sends a PING too).
    private var lastKeepaliveLook: UInt64 = 0
    /// Client: when the unanswered keepalive PING was sent; the connection is lost when no
    /// frame arrives within ``Configuration/keepaliveTimeout`` of it.
    private var keepalivePingSentAt: UInt64? {
        didSet { updateNextDeadline() }
    }
    /// Server: when to look at the idle timeout again while a call in progress keeps the
    /// connection alive.
    private var idleRecheckAt: UInt64? {
        didSet { updateNextDeadline() }
    }
    /// The idle timeout in nanoseconds (server: configured; client: WELCOME's, for keepalive).
    private var idleTimeoutNanoseconds: UInt64 {
        didSet { updateNextDeadline() }
    }

    /// A machine for a connection that opened at `now` (monotonic nanoseconds).
    /// The initial windows of `configuration` below its maximum frame size are raised to it:
    /// docs/PROTOCOL.md 4.3 has an announced window hold at least one largest frame (a peer
    /// refuses less), so a larger frame size takes the windows with it.
    public init(configuration: Configuration, now: UInt64) {
        var configuration = configuration
        if configuration.initialStreamWindow > 0 {
            configuration.initialStreamWindow = max(configuration.initialStreamWindow, configuration.maxFrameSize)
        }
        if configuration.initialConnectionWindow > 0 {
            configuration.initialConnectionWindow = max(configuration.initialConnectionWindow, configuration.maxFrameSize)
        }
        self.configuration = configuration
        decoder = FrameDecoder(maxPayloadSize: configuration.role == .server ? WireLimits.maxHelloSize : configuration.maxFrameSize)
        sendConnectionWindow = SendWindow(initial: WireLimits.defaultConnectionWindow, maximum: configuration.maxSendConnectionWindow)
        receiveConnectionWindow = FlowWindow(initial: configuration.initialConnectionWindow)
        connectionCredit = ReceiveCredit(initial: configuration.initialConnectionWindow, largestMessage: configuration.maxFrameSize)
        controlFrames = ControlFrameGuard(interval: configuration.controlFrameInterval, threshold: configuration.maxUnansweredControlFrames)
        openedAt = now
        lastFrameAt = now
        idleTimeoutNanoseconds = configuration.role == .server ? Self.nanoseconds(configuration.idleTimeout) : 0
        updateNextDeadline()
    }

    /// GOAWAY with `error` and `lastStreamID` 0: how a server refuses a connection before
    /// reading anything from it (connection limit, shutting down).
    public static func refusal(_ error: PhotoLibError) -> [UInt8] {
        Frame(.goAway, payload: Wire.GoAway(lastStreamID: 0, status: Wire.Status(error)).encoded()).encoded
    }

    // MARK: State

    /// Whether the handshake has not begun: a server has no HELLO yet, a client no WELCOME.
    public var isAwaitingHandshake: Bool { phase == .handshaking }

    /// Whether the handshake is done (WELCOME sent or received) and the connection not closed.
    public var isOpen: Bool { phase == .open || phase == .draining }

    /// Whether the server sent GOAWAY, or the client received one: no new calls, and the
    /// connection closes when the last call ends.
    public var isDraining: Bool { phase == .draining }

    /// The calls open now.
    public var openStreamCount: Int { streams.count }

    /// Whether call `stream` is open.
    public func isOpen(stream: UInt32) -> Bool { streams[stream] != nil }

    /// Server: the highest stream id a client's CALL used (GOAWAY's `lastStreamID`).
    public var lastStreamID: UInt32 { highestStreamID }

    /// Works out ``nextDeadline`` again; the observers of what it depends on call it.
    private mutating func updateNextDeadline() {
        var next = earliestCallDeadline
        func consider(_ time: UInt64?) {
            guard let time else { return }
            next = min(next ?? time, time)
        }
        switch phase {
        case .closed:
            nextDeadline = nil
            return
        case .handshaking, .answeringHello:
            consider(openedAt &+ Self.nanoseconds(configuration.handshakeTimeout))
        case .open, .draining:
            if idleTimeoutNanoseconds > 0 {
                if configuration.role == .server {
                    consider(max(lastFrameAt &+ idleTimeoutNanoseconds, idleRecheckAt ?? 0))
                } else {
                    consider(keepaliveAt)
                }
            }
            if let sent = keepalivePingSentAt { consider(sent &+ Self.nanoseconds(configuration.keepaliveTimeout)) }
        }
        consider(deferredPings.first?.due)
        nextDeadline = next
    }

    /// When a call opened at `now` with CALL's `timeoutMs` passes its deadline (`nil`: 0, no
    /// deadline); a timeout is taken as at most `Int32.max` ms (about 25 days).
    private static func callDeadline(timeoutMs: UInt64, now: UInt64) -> UInt64? {
        timeoutMs > 0 ? now &+ min(timeoutMs, UInt64(Int32.max)) &* 1_000_000 : nil
    }

    /// A call opened with `deadline`.
    private mutating func noteCallDeadline(_ deadline: UInt64?) {
        guard let deadline else { return }
        earliestCallDeadline = min(earliestCallDeadline ?? deadline, deadline)
    }

    /// Works out ``earliestCallDeadline`` from every open call.
    private mutating func findEarliestCallDeadline() {
        var earliest: UInt64?
        for stream in streams.values {
            if let deadline = stream.deadline { earliest = min(earliest ?? deadline, deadline) }
        }
        earliestCallDeadline = earliest
    }

    // MARK: Output

    /// The bytes to write, in order; the machine forgets them.
    public mutating func takeOutbound() -> [UInt8] {
        var bytes: [UInt8] = []
        swap(&bytes, &outbound)
        return bytes
    }

    /// Appends the bytes to write to `buffer` (a channel's outbound buffer, say) and forgets them.
    /// An empty `buffer` takes the machine's bytes as they are (the two buffers are swapped)
    /// instead of a copy of them: a 64 KiB chunk message is not copied twice on its way out.
    public mutating func writeOutbound(into buffer: inout [UInt8]) {
        if buffer.isEmpty {
            swap(&buffer, &outbound)
            outbound.removeAll(keepingCapacity: true)
            return
        }
        buffer.append(contentsOf: outbound)
        outbound.removeAll(keepingCapacity: outbound.capacity <= 1 << 20)
    }

    private mutating func write(_ frame: Frame) {
        guard phase != .closed else { return }
        frame.encode(into: &outbound)
        wroteSinceKeepalive = true
    }

    // MARK: Receiving

    /// Bytes received from the peer (after TLS). Pull their events with ``nextEvent(now:)``:
    /// connection credit granted until it answers `nil` goes out in one WINDOW_UPDATE then.
    public mutating func receive<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        guard phase != .closed else { return }
        decoder.append(bytes)
        handlingReceivedBytes = true
    }

    /// ``receive(_:)`` of bytes that stay valid and unchanged until ``nextEvent(now:)`` answers
    /// `nil` (the driver pulls every event before it lets go of them): each MESSAGE they hold
    /// whole comes out as ``Event/borrowedMessage(stream:payload:endStream:)``, its payload
    /// uncopied. What must outlive them (a frame they end in the middle of, frames left when
    /// the machine stops early) is copied.
    public mutating func receive(borrowing bytes: UnsafeRawBufferPointer) {
        guard phase != .closed else { return }
        decoder.append(borrowing: bytes)
        handlingReceivedBytes = true
    }

    /// The next event of the received bytes, or `nil` when they are used up (or the machine
    /// waits for the answer to a HELLO). A protocol violation writes GOAWAY and answers
    /// ``Event/closed(_:)``.
    public mutating func nextEvent(now: UInt64) -> Event? {
        decoding: while pendingEvents.isEmpty {
            guard phase != .closed, !isAnsweringHello else { break decoding }
            do throws(PhotoLibError) {
                guard let entry = try decoder.nextEntry() else { break decoding }
                // Only a complete frame counts as activity: a peer trickling bytes is idle.
                lastFrameAt = now
                switch entry {
                case .borrowedMessage(let id, let flags, let payload) where phase == .open || phase == .draining:
                    if let endStream = try receivedMessage(stream: id, flags: flags, count: payload.count) {
                        pendingEvents.append(.borrowedMessage(stream: id, payload: payload, endStream: endStream))
                    }
                default:
                    // Every other frame, and a MESSAGE outside the open phase (refused there as
                    // any MESSAGE is), as an owned frame.
                    if configuration.role == .server { try serverHandle(entry.owned, now: now) } else { try clientHandle(entry.owned, now: now) }
                }
            } catch {
                fail(error)
                pendingEvents.append(.closed(error))
            }
        }
        if pendingEvents.isEmpty {
            // The driver may let go of borrowed bytes now: frames still in them (the machine
            // waits for a HELLO's answer, or closed) are copied first.
            decoder.keepBorrowedFrames()
            handlingReceivedBytes = false
            if configuration.role == .server {
                flushConnectionCredit()
            } else {
                // After a read: the held credit of every call that received or consumed bytes
                // in it (an ended call's need not go back, 9.4), then the connection's.
                for id in creditChecks { returnStreamCredit(id) }
                creditChecks.removeAll(keepingCapacity: true)
                returnConnectionCredit()
            }
            return nil
        }
        // Usually the only one: moved out (`removeFirst` copies it, then releases the original).
        return pendingEvents.count == 1 ? pendingEvents.removeLast() : pendingEvents.removeFirst()
    }

    private var isAnsweringHello: Bool {
        if case .answeringHello = phase { return true }
        return false
    }

    private func violation(_ message: String) -> PhotoLibError {
        PhotoLibError(.invalidArgument, message, reason: .protocolViolation)
    }

    /// A control frame's payload, decoded: one that does not decode is a protocol violation
    /// (its decoding error, "malformed …", with reason `PROTOCOL_VIOLATION` like other framing
    /// errors, unless it has a reason of its own: a `Cancel.reason` that is not UTF-8 stays
    /// `INVALID_TEXT`).
    private func controlPayload<Payload>(_ decode: () throws(PhotoLibError) -> Payload) throws(PhotoLibError) -> Payload {
        do {
            return try decode()
        } catch {
            guard error.reason == .unspecified else { throw error }
            throw PhotoLibError(error.code, error.message, reason: .protocolViolation)
        }
    }

    // MARK: Server frames

    private mutating func serverHandle(_ frame: Frame, now: UInt64) throws(PhotoLibError) {
        if phase == .handshaking {
            guard frame.type == .hello, frame.streamID == 0 else {
                throw violation("the first frame must be HELLO on stream 0, got \(frame.type) on stream \(frame.streamID)")
            }
            let hello = try Wire.Hello(decoding: frame.payload)
            guard hello.protocolVersion == WireLimits.protocolVersion else {
                throw PhotoLibError(.failedPrecondition, "protocol version \(hello.protocolVersion) is not supported; this server speaks version \(WireLimits.protocolVersion)")
            }
            phase = .answeringHello(hello)
            pendingEvents.append(.hello(hello))
            return
        }
        switch frame.type {
        case .call: try openCall(frame, now: now)
        case .message: try receiveRequest(frame)
        case .cancel:
            guard frame.streamID != 0 else { throw violation("CANCEL on stream 0") }
            let cancel = try controlPayload { () throws(PhotoLibError) in try Wire.Cancel(decoding: frame.payload) }
            guard forget(frame.streamID) else { return }
            pendingEvents.append(.cancelled(stream: frame.streamID, reason: cancel.reason))
            closeIfDrained()
        case .windowUpdate: try windowUpdate(frame)
        case .ping: try ping(frame, now: now)
        case .goAway:
            guard frame.streamID == 0 else { throw violation("GOAWAY must be sent on stream 0") }
            // Section 11.3: the client is done with the connection. Its running calls end
            // with it, as if cancelled (no STATUS), and the connection closes.
            let abandoned = streams.ids.sorted()
            pendingEvents.append(.goAway((try? Wire.GoAway(decoding: frame.payload)) ?? Wire.GoAway(), abandoned: abandoned))
            close()
        case .hello, .welcome, .status:
            throw violation("a client may not send \(frame.type) after the handshake")
        }
    }

    /// Takes the limits the peer announced in its HELLO or WELCOME (`message`): its largest
    /// frame and its windows, of which this side uses at most its configured maxima (never
    /// less than one frame, or a largest message could never leave). Throws what section 4.3
    /// refuses.
    private mutating func adoptPeerLimits(maxFrameSize: UInt32, streamWindow: UInt32, connectionWindow: UInt32, message: String) throws(PhotoLibError) {
        peerMaxFrameSize = try WireLimits.maxFrameSize(announced: maxFrameSize)
        initialSendStreamWindow = try WireLimits.window(
            announced: streamWindow, fallback: WireLimits.defaultStreamWindow, atLeast: peerMaxFrameSize, name: "\(message).initial_stream_window")
        sendConnectionWindow = SendWindow(
            initial: try WireLimits.window(
                announced: connectionWindow, fallback: WireLimits.defaultConnectionWindow, atLeast: peerMaxFrameSize,
                name: "\(message).initial_connection_window"),
            maximum: max(configuration.maxSendConnectionWindow, 2 * peerMaxFrameSize))
    }

    /// Server: accepts the HELLO of the ``Event/hello(_:)`` event and writes `welcome`, whose
    /// protocol version, frame size, windows, concurrency and idle timeout the machine fills
    /// in from its configuration. Throws (having written GOAWAY and closed) when the HELLO's
    /// frame size or windows break section 4.3.
    public mutating func accept(_ welcome: Wire.Welcome) throws(PhotoLibError) {
        guard configuration.role == .server, case .answeringHello(let hello) = phase else {
            throw PhotoLibError(.failedPrecondition, "accept(_:) answers a HELLO event; there is none to answer", reason: .protocolViolation)
        }
        do throws(PhotoLibError) {
            try adoptPeerLimits(
                maxFrameSize: hello.maxFrameSize, streamWindow: hello.initialStreamWindow,
                connectionWindow: hello.initialConnectionWindow, message: "Hello")
        } catch {
            fail(error)
            throw error
        }
        decoder.maxPayloadSize = configuration.maxFrameSize
        var welcome = welcome
        welcome.protocolVersion = WireLimits.protocolVersion
        welcome.maxFrameSize = UInt32(configuration.maxFrameSize)
        welcome.initialStreamWindow = UInt32(configuration.initialStreamWindow)
        welcome.initialConnectionWindow = UInt32(configuration.initialConnectionWindow)
        welcome.maxConcurrentStreams = UInt32(configuration.maxConcurrentStreams)
        welcome.idleTimeoutMs = UInt32(clamping: Int(configuration.idleTimeout * 1000))
        phase = .open
        write(Frame(.welcome, payload: welcome.encoded()))
    }

    private mutating func openCall(_ frame: Frame, now: UInt64) throws(PhotoLibError) {
        let id = frame.streamID
        guard id != 0 else { throw violation("CALL on stream 0: stream 0 is for HELLO, WELCOME, PING and GOAWAY; a call opens on a new stream id from 1 up") }
        guard id > highestStreamID else {
            throw violation("CALL on stream \(id) does not exceed the highest stream id used so far (\(highestStreamID))")
        }
        highestStreamID = id
        guard phase == .open else {
            writeStatus(id, Wire.Status(code: .unavailable, message: "the server is shutting down; reconnect later"))
            return
        }
        guard streams.count < configuration.maxConcurrentStreams else {
            writeStatus(id, Wire.Status(code: .resourceExhausted, message: "more than \(configuration.maxConcurrentStreams) concurrent calls on one connection"))
            return
        }
        let call: Wire.CallStart
        do throws(PhotoLibError) {
            call = try Wire.CallStart.decoded(frame.payload)
        } catch {
            writeStatus(id, Wire.Status(error))
            return
        }
        let endStream = frame.flags.contains(.endStream)
        let deadline = Self.callDeadline(timeoutMs: call.timeoutMs, now: now)
        streams[id] = StreamState(
            sendWindow: SendWindow(initial: initialSendStreamWindow, maximum: max(configuration.maxSendStreamWindow, 2 * peerMaxFrameSize)),
            receiveWindow: FlowWindow(initial: configuration.initialStreamWindow),
            credit: ReceiveCredit(initial: configuration.initialStreamWindow, largestMessage: configuration.maxFrameSize),
            requestEnded: endStream,
            deadline: deadline)
        noteCallDeadline(deadline)
        pendingEvents.append(.callOpened(stream: id, call: call, endStream: endStream))
    }

    private mutating func receiveRequest(_ frame: Frame) throws(PhotoLibError) {
        if let ends = try acceptRequest(stream: frame.streamID, flags: frame.flags, count: frame.payload.count) {
            pendingEvents.append(.message(stream: frame.streamID, payload: frame.payload, endStream: ends))
        }
    }

    /// A MESSAGE of `count` bytes on `id`, after the handshake, by this end's role: whether
    /// it is delivered (and then whether it ends the request stream), or throws the violation.
    private mutating func receivedMessage(stream id: UInt32, flags: FrameFlags, count: Int) throws(PhotoLibError) -> Bool? {
        if configuration.role == .server { return try acceptRequest(stream: id, flags: flags, count: count) }
        return try acceptResponse(stream: id, count: count) ? false : nil
    }

    /// Server: the windows and stream state of a request MESSAGE of `count` bytes on `id`;
    /// whether it ends the request stream, or `nil` when it is dropped (its call ended).
    private mutating func acceptRequest(stream id: UInt32, flags: FrameFlags, count: Int) throws(PhotoLibError) -> Bool? {
        guard id != 0 else { throw violation("MESSAGE on stream 0") }
        try receiveConnectionWindow.spend(count)
        guard var stream = streams[id] else {
            guard id <= highestStreamID else {
                throw violation("MESSAGE on stream \(id), which no CALL opened")
            }
            // A call that already ended: give the credit back and drop the message (9.4).
            grantConnection(count)
            return nil
        }
        guard !stream.requestEnded else {
            throw violation("MESSAGE on stream \(id) after END_STREAM")
        }
        try stream.receiveWindow.spend(count)
        let ends = flags.contains(.endStream)
        if ends { stream.requestEnded = true }
        stream.unconsumed += count
        streams[id] = stream
        return ends
    }

    // MARK: Client frames

    private mutating func clientHandle(_ frame: Frame, now: UInt64) throws(PhotoLibError) {
        if phase == .handshaking {
            switch frame.type {
            case .welcome where frame.streamID == 0:
                try welcome(frame)
            case .goAway where frame.streamID == 0:
                let goAway = try Wire.GoAway(decoding: frame.payload)
                let error = goAway.status?.error ?? PhotoLibError(.unavailable, "the server is going away")
                phase = .closed
                pendingEvents.append(.closed(error))
            default:
                throw violation("the server's first frame must be WELCOME or GOAWAY on stream 0, got \(frame.type) on stream \(frame.streamID)")
            }
            return
        }
        switch frame.type {
        case .message: try receiveResponse(frame)
        case .status:
            guard frame.streamID != 0 else { throw violation("STATUS on stream 0") }
            // The usual STATUS, OK with nothing else, is an empty message.
            let status = try Wire.Status.decoded(frame.payload)
            guard forget(frame.streamID) else { return }
            pendingEvents.append(.status(stream: frame.streamID, status))
            closeIfDrained()
        case .windowUpdate: try windowUpdate(frame)
        case .ping: try ping(frame, now: now)
        case .goAway:
            guard frame.streamID == 0 else { throw violation("GOAWAY must be sent on stream 0") }
            let goAway = try Wire.GoAway(decoding: frame.payload)
            let abandoned = streams.ids.filter { $0 > goAway.lastStreamID }.sorted()
            for id in abandoned { forget(id) }
            phase = .draining
            pendingEvents.append(.goAway(goAway, abandoned: abandoned))
            closeIfDrained()
        case .welcome:
            throw violation("WELCOME after the handshake")
        case .hello, .call, .cancel:
            throw violation("the server sent \(frame.type), which only clients send")
        }
    }

    private mutating func welcome(_ frame: Frame) throws(PhotoLibError) {
        let welcome = try Wire.Welcome(decoding: frame.payload)
        guard welcome.protocolVersion == WireLimits.protocolVersion else {
            throw PhotoLibError(
                .failedPrecondition, "the server speaks protocol version \(welcome.protocolVersion), this client \(WireLimits.protocolVersion)",
                reason: .protocolViolation)
        }
        try adoptPeerLimits(
            maxFrameSize: welcome.maxFrameSize, streamWindow: welcome.initialStreamWindow,
            connectionWindow: welcome.initialConnectionWindow, message: "Welcome")
        idleTimeoutNanoseconds = UInt64(welcome.idleTimeoutMs) * 1_000_000
        if idleTimeoutNanoseconds > 0 { keepaliveAt = lastFrameAt &+ max(1, idleTimeoutNanoseconds / 4) }
        phase = .open
        pendingEvents.append(.welcome(welcome))
    }

    private mutating func receiveResponse(_ frame: Frame) throws(PhotoLibError) {
        if try acceptResponse(stream: frame.streamID, count: frame.payload.count) {
            pendingEvents.append(.message(stream: frame.streamID, payload: frame.payload, endStream: false))
        }
    }

    /// Client: the credit of a response MESSAGE of `count` bytes on `id`; whether it is
    /// delivered (`false`: dropped, its call ended).
    private mutating func acceptResponse(stream id: UInt32, count: Int) throws(PhotoLibError) -> Bool {
        guard id != 0 else { throw violation("MESSAGE on stream 0") }
        try connectionCredit.receive(count)
        guard var stream = streams[id] else {
            // A call this end cancelled or that ended: dropped, its connection credit goes back (9.4).
            connectionCredit.consume(count)
            return false
        }
        try stream.credit.receive(count)
        stream.unconsumed += count
        streams[id] = stream
        checkCredit(of: id)
        return true
    }

    // MARK: Frames both ends take

    private mutating func windowUpdate(_ frame: Frame) throws(PhotoLibError) {
        let update = try controlPayload { () throws(PhotoLibError) in try Wire.WindowUpdate(decoding: frame.payload) }
        if frame.streamID == 0 {
            try sendConnectionWindow.grant(Int(update.increment))
            let blocked = blockedOnConnection
            blockedOnConnection = []
            for id in blocked { pendingEvents.append(.windowOpened(stream: id)) }
        } else if var stream = streams[frame.streamID] {
            // An unknown or ended stream's update crossed the end of the call: ignored (9.4).
            try stream.sendWindow.grant(Int(update.increment))
            streams[frame.streamID] = stream
            pendingEvents.append(.windowOpened(stream: frame.streamID))
        }
    }

    private mutating func ping(_ frame: Frame, now: UInt64) throws(PhotoLibError) {
        guard frame.streamID == 0 else { throw violation("PING must be sent on stream 0") }
        let ping = try controlPayload { () throws(PhotoLibError) in try Wire.Ping(decoding: frame.payload) }
        if frame.flags.contains(.ack) {
            pendingEvents.append(.pingAcknowledged(opaque: ping.opaque))
            return
        }
        guard configuration.role == .server else {
            write(Frame(.ping, flags: .ack, payload: frame.payload))
            return
        }
        switch controlFrames.admit(now: now) {
        case .answer:
            write(Frame(.ping, flags: .ack, payload: frame.payload))
        case .deferred(let nanoseconds):
            deferredPings.append((now &+ nanoseconds, frame.payload))
        case .drop:
            break
        case .goAway:
            throw PhotoLibError(
                .resourceExhausted,
                "more than \(configuration.maxUnansweredControlFrames) PINGs within \(configuration.controlFrameInterval) s: the server answers one PING per \(configuration.controlFrameInterval) s; send PINGs at most that often",
                reason: .protocolViolation)
        }
    }

    // MARK: Calls (client)

    /// Client: opens a call with CALL on a new stream id and returns the id. `endStream`:
    /// the call sends no request message (CALL carries END_STREAM). A `timeoutMs` in `call`
    /// also sets the call's deadline here (``Event/deadlineExceeded(stream:)``).
    public mutating func openStream(_ call: Wire.CallStart, endStream: Bool, now: UInt64) throws(PhotoLibError) -> UInt32 {
        try openStream(encodedCall: call.encoded(), timeoutMs: call.timeoutMs, endStream: endStream, now: now)
    }

    /// Client: ``openStream(_:endStream:now:)`` with the CALL message already encoded
    /// (`encodedCall`, whose deadline is `timeoutMs`): a client that opens many calls of one
    /// method encodes its CALL once.
    public mutating func openStream(encodedCall: [UInt8], timeoutMs: UInt64, endStream: Bool, now: UInt64) throws(PhotoLibError) -> UInt32 {
        switch phase {
        case .closed:
            throw PhotoLibError(.unavailable, "the connection is closed; reconnect")
        case .handshaking, .answeringHello, .draining:
            throw PhotoLibError(.unavailable, "the server is going away; reconnect")
        case .open:
            break
        }
        guard configuration.role == .client else {
            throw PhotoLibError(.failedPrecondition, "only a client opens calls (docs/PROTOCOL.md 5.1)")
        }
        guard nextStreamID < Frame.maxStreamID else {
            throw PhotoLibError(.resourceExhausted, "this connection has used every stream id; reconnect")
        }
        let id = nextStreamID
        nextStreamID += 2
        highestStreamID = id
        let deadline = Self.callDeadline(timeoutMs: timeoutMs, now: now)
        streams[id] = StreamState(
            sendWindow: SendWindow(initial: initialSendStreamWindow, maximum: max(configuration.maxSendStreamWindow, 2 * peerMaxFrameSize)),
            receiveWindow: FlowWindow(initial: configuration.initialStreamWindow),
            credit: ReceiveCredit(initial: configuration.initialStreamWindow, largestMessage: configuration.maxFrameSize),
            requestEnded: endStream,
            deadline: deadline)
        noteCallDeadline(deadline)
        write(Frame(.call, stream: id, flags: endStream ? .endStream : [], payload: encodedCall))
        return id
    }

    /// Client: abandons an open call with CANCEL; its unconsumed bytes go back to the
    /// connection window. Answers whether the call was open.
    @discardableResult
    public mutating func cancel(stream id: UInt32, reason: String) -> Bool {
        guard configuration.role == .client, phase != .closed, streams[id] != nil else { return false }
        forget(id)
        write(Frame(.cancel, stream: id, payload: Wire.Cancel(reason: reason).encoded()))
        closeIfDrained()
        return true
    }

    // MARK: Calls (both)

    /// Sends one message on `stream` if both windows allow it (a message is never split).
    /// `endStream` (client): the last request message. The caller keeps a blocked message
    /// and retries it on ``Event/windowOpened(stream:)``.
    public mutating func send(_ payload: [UInt8], stream id: UInt32, endStream: Bool = false) -> SendOutcome {
        guard phase != .closed, var stream = streams[id] else { return .notOpen }
        let charged = charge(payload.count, on: &stream, id: id)
        guard charged == .sent else { return charged }
        let ends = configuration.role == .client && endStream
        if ends { stream.requestEnded = true }
        streams[id] = stream
        write(Frame(.message, stream: id, flags: ends ? .endStream : [], payload: payload))
        return .sent
    }

    /// Server: sends one response message whose payload is `prefix` followed by `bodyCount`
    /// bytes that the driver writes itself (a file's bytes, sent with `sendfile`), if both
    /// windows allow the whole payload. The windows are charged for all of it and the frame
    /// header announces all of it, but only the header and `prefix` are written here: the
    /// driver MUST write exactly `bodyCount` bytes right after what ``writeOutbound(into:)``
    /// gives next, before anything else (or close the connection).
    public mutating func send(prefix: [UInt8], bodyCount: Int, stream id: UInt32) -> SendOutcome {
        guard configuration.role == .server, bodyCount >= 0, phase != .closed, var stream = streams[id] else { return .notOpen }
        let size = prefix.count + bodyCount
        let charged = charge(size, on: &stream, id: id)
        guard charged == .sent else { return charged }
        streams[id] = stream
        Frame.encodeHeader(.message, stream: id, flags: [], length: size, reserving: prefix.count, into: &outbound)
        outbound.append(contentsOf: prefix)
        wroteSinceKeepalive = true
        return .sent
    }

    /// Server: ``send(_:stream:endStream:)`` that encodes the frame straight into `buffer`
    /// (the channel's outbound buffer) instead of the machine's own outbound bytes, which
    /// go into `buffer` first (``writeOutbound(into:)``), so the order is kept: the payload
    /// is copied once on its way to the socket, not twice. The driver must hand the rest of
    /// the machine's output to the same buffer.
    public mutating func send(_ payload: [UInt8], stream id: UInt32, appendingTo buffer: inout [UInt8]) -> SendOutcome {
        sendAppending(CollectionOfOne(payload), stream: id, to: &buffer).stopped ?? .sent
    }

    /// Server: sends `payloads` in order, each if both windows allow it, encoded into
    /// `buffer` as ``send(_:stream:appendingTo:)`` does, with one look-up of the stream;
    /// stops at the first that may not go. Returns the index of the first message not sent
    /// (`payloads.count`: all went). The caller keeps the rest and retries them with
    /// ``send(_:stream:endStream:)`` as for any blocked message.
    public mutating func send(_ payloads: [[UInt8]], stream id: UInt32, appendingTo buffer: inout [UInt8]) -> Int {
        sendAppending(payloads, stream: id, to: &buffer).sent
    }

    /// The two above: how many of `payloads` went, and why the next one did not (`nil`: all went).
    private mutating func sendAppending(
        _ payloads: some RandomAccessCollection<[UInt8]>, stream id: UInt32, to buffer: inout [UInt8]
    ) -> (sent: Int, stopped: SendOutcome?) {
        guard configuration.role == .server, phase != .closed, var stream = streams[id] else { return (0, .notOpen) }
        // The stream's state is trivially copyable: copied out and back (a look-up in
        // ``streams`` is a comparison or two), as `charge` needs `self` too.
        var sent = 0
        var stopped: SendOutcome?
        for payload in payloads {
            let charged = charge(payload.count, on: &stream, id: id)
            guard charged == .sent else {
                stopped = charged
                break
            }
            appendFrame(payload, stream: id, to: &buffer)
            sent += 1
        }
        if sent > 0 { streams[id] = stream }
        return (sent, stopped)
    }

    /// Appends a MESSAGE frame of `payload` on `id` to `buffer`, after what the machine
    /// wrote before it.
    private mutating func appendFrame(_ payload: [UInt8], stream id: UInt32, to buffer: inout [UInt8]) {
        if !outbound.isEmpty { writeOutbound(into: &buffer) }
        Frame.encodeHeader(.message, stream: id, flags: [], length: payload.count, reserving: payload.count, into: &buffer)
        buffer.append(contentsOf: payload)
        wroteSinceKeepalive = true
    }

    /// Charges a message of `size` bytes to `stream`'s and the connection's send windows, or
    /// says which one it waits for (`.sent`: charged). A stream blocked on the connection
    /// window is queued for ``Event/windowOpened(stream:)``.
    private mutating func charge(_ size: Int, on stream: inout StreamState, id: UInt32) -> SendOutcome {
        guard stream.sendWindow.allows(size) else { return .blockedOnStream }
        guard sendConnectionWindow.allows(size) else {
            waitForConnection(stream: id)
            return .blockedOnConnection
        }
        try? stream.sendWindow.spend(size)
        try? sendConnectionWindow.spend(size)
        return .sent
    }

    /// Whether a message of `size` bytes on `stream` would go out now.
    public func canSend(_ size: Int, stream id: UInt32) -> Bool {
        guard phase != .closed, let stream = streams[id] else { return false }
        return stream.sendWindow.allows(size) && sendConnectionWindow.allows(size)
    }

    /// Holds `stream` back until connection credit arrives, as if its message did not fit the
    /// connection window (a driver whose socket buffer is full does this); it comes back in
    /// ``Event/windowOpened(stream:)`` or ``takeBlockedStreams()``.
    public mutating func waitForConnection(stream id: UInt32) {
        if !blockedOnConnection.contains(id) { blockedOnConnection.append(id) }
    }

    /// The streams waiting for the connection, in the order they blocked; they wait no longer.
    public mutating func takeBlockedStreams() -> [UInt32] {
        let blocked = blockedOnConnection
        blockedOnConnection = []
        return blocked
    }

    /// The application consumed `count` bytes of `stream`'s messages: their credit goes back
    /// to the peer. Server: at once (connection WINDOW_UPDATE first, then the stream's while
    /// the client may still send on it). Client: in batches (``ReceiveCredit``), stream first.
    /// Credit of a call that ended went back when it ended.
    public mutating func consumed(_ count: Int, stream id: UInt32) {
        guard count > 0, phase != .closed, var stream = streams[id] else { return }
        let returned = min(count, stream.unconsumed)
        stream.unconsumed -= returned
        if configuration.role == .client {
            // Held back while the windows still take the largest message (ReceiveCredit):
            // decided now, or at the end of the batch of received bytes being handled.
            connectionCredit.consume(returned)
            stream.credit.consume(count)
            streams[id] = stream
            if handlingReceivedBytes {
                checkCredit(of: id)
            } else {
                returnStreamCredit(id)
                returnConnectionCredit()
            }
            return
        }
        grantConnection(returned)
        let peerMaySend = configuration.role == .client || !stream.requestEnded
        if peerMaySend { try? stream.receiveWindow.grant(count) }
        streams[id] = stream
        if peerMaySend {
            write(Frame(.windowUpdate, stream: id, payload: Wire.WindowUpdate(increment: UInt32(clamping: count)).encoded()))
        }
    }

    /// `count` bytes of `stream`'s messages will never be consumed (answered on a fast path,
    /// dropped): their connection credit goes back, the stream's does not.
    public mutating func release(_ count: Int, stream id: UInt32) {
        guard count > 0, phase != .closed, var stream = streams[id] else { return }
        let returned = min(count, stream.unconsumed)
        stream.unconsumed -= returned
        streams[id] = stream
        if configuration.role == .client {
            connectionCredit.consume(returned)
            if !handlingReceivedBytes { returnConnectionCredit() }
        } else {
            grantConnection(returned)
        }
    }

    /// Server: ends an open call with STATUS `status`; its unconsumed request bytes go back to
    /// the connection window. While draining, the last call's end closes the connection.
    /// Answers whether the call was open.
    @discardableResult
    public mutating func finish(stream id: UInt32, status: Wire.Status) -> Bool {
        guard configuration.role == .server, phase != .closed, streams[id] != nil else { return false }
        forget(id)
        writeStatus(id, status)
        closeIfDrained()
        return true
    }

    /// Server: ends every open call with STATUS `status` (in stream order) without returning
    /// credit: the connection is about to fail (``fail(_:)``).
    public mutating func finishAll(status: Wire.Status) {
        guard configuration.role == .server else { return }
        for id in streams.ids.sorted() { writeStatus(id, status) }
        streams.removeAll()
        earliestCallDeadline = nil
        blockedOnConnection = []
    }

    /// Sends a PING (client keepalive or round-trip probe) with `opaque`.
    public mutating func ping(opaque: UInt64) {
        guard isOpen else { return }
        write(Frame(.ping, payload: Wire.Ping(opaque: opaque).encoded()))
    }

    /// Ends stream `id` on this end: it leaves the tables, and the connection credit of what
    /// was received on it and never consumed goes back — through the client's batched
    /// ``ReceiveCredit`` or the server's request window, whichever this end keeps. Every way a
    /// call ends (STATUS, CANCEL either way, a deadline) comes here, so the two ends' windows
    /// cannot drift apart. Returns whether the stream was open.
    @discardableResult
    private mutating func forget(_ id: UInt32) -> Bool {
        guard let stream = streams.removeValue(forKey: id) else { return false }
        if let deadline = stream.deadline, deadline == earliestCallDeadline { findEarliestCallDeadline() }
        blockedOnConnection.removeAll { $0 == id }
        if configuration.role == .client {
            // Responses never consumed (a task stopped iterating) give their connection credit
            // back now, or every cancelled download would shrink the window for good.
            if stream.unconsumed > 0 {
                connectionCredit.consume(stream.unconsumed)
                returnConnectionCredit()
            }
        } else {
            grantConnection(stream.unconsumed)
        }
        return true
    }

    private static let okStatusPayload = Wire.Status.ok.encoded()

    private mutating func writeStatus(_ id: UInt32, _ status: Wire.Status) {
        write(Frame(.status, stream: id, payload: status == .ok ? Self.okStatusPayload : status.encoded()))
    }

    // MARK: Credit

    private mutating func checkCredit(of id: UInt32) {
        if !creditChecks.contains(id) { creditChecks.append(id) }
    }

    /// Client: sends the held credit of call `id` if it must or may go back now.
    private mutating func returnStreamCredit(_ id: UInt32) {
        guard phase != .closed, var stream = streams[id], let increment = stream.credit.take() else { return }
        streams[id] = stream
        write(Frame(.windowUpdate, stream: id, payload: Wire.WindowUpdate(increment: UInt32(increment)).encoded()))
    }

    /// Client: sends the held connection credit if it must or may go back now.
    private mutating func returnConnectionCredit() {
        guard phase != .closed, let increment = connectionCredit.take() else { return }
        write(Frame(.windowUpdate, payload: Wire.WindowUpdate(increment: UInt32(increment)).encoded()))
    }

    /// Returns connection credit to the peer. While a batch of received bytes is handled the
    /// grants add up and go out as one WINDOW_UPDATE when ``nextEvent(now:)`` answers `nil`.
    private mutating func grantConnection(_ count: Int) {
        guard count > 0 else { return }
        try? receiveConnectionWindow.grant(count)
        ungrantedConnectionCredit += count
        if !handlingReceivedBytes { flushConnectionCredit() }
    }

    private mutating func flushConnectionCredit() {
        guard ungrantedConnectionCredit > 0 else { return }
        let increment = UInt32(clamping: ungrantedConnectionCredit)
        ungrantedConnectionCredit -= Int(increment)
        write(Frame(.windowUpdate, payload: Wire.WindowUpdate(increment: increment).encoded()))
    }

    // MARK: Time

    /// Handles the deadlines that passed by `now`: answers deferred PINGs, reports call
    /// deadlines, sends the client's keepalive PING, and closes a connection whose handshake
    /// or idle time ran out (GOAWAY, then ``Event/closed(_:)``).
    public mutating func tick(now: UInt64) -> [Event] {
        guard phase != .closed else { return [] }
        var events: [Event] = []
        while let first = deferredPings.first, first.due <= now {
            deferredPings.removeFirst()
            controlFrames.answerDeferred(now: now)
            write(Frame(.ping, flags: .ack, payload: first.payload))
        }
        switch phase {
        case .handshaking, .answeringHello:
            let waited = now &- openedAt, limit = Self.nanoseconds(configuration.handshakeTimeout)
            if configuration.role == .server && waited > limit {
                let error = PhotoLibError(.deadlineExceeded, "no HELLO within \(configuration.handshakeTimeout) s of connecting")
                fail(error)
                return [.closed(error)]
            }
            if configuration.role == .client && waited >= limit {
                let error = PhotoLibError(
                    .unavailable,
                    "the server accepted the connection but sent no WELCOME within \(Self.seconds(configuration.handshakeTimeout)) s: it is stopped or overloaded, or the address is not a photolibd")
                fail(error)
                return [.closed(error)]
            }
        case .open, .draining:
            if configuration.role == .server && idleTimeoutNanoseconds > 0 && now &- lastFrameAt > idleTimeoutNanoseconds {
                // Idle: no complete frame for the timeout and no call the server is working on.
                // A call whose request side is still open waits for the client (an upload
                // that stalled, a subscription): the client's frames or PINGs keep it alive.
                if streams.values.allSatisfy({ !$0.requestEnded }) {
                    let error = PhotoLibError(.unavailable, "idle for more than \(configuration.idleTimeout) s")
                    fail(error)
                    return [.closed(error)]
                }
                // A call in progress kept it alive: look again within a second of it ending.
                idleRecheckAt = now &+ min(idleTimeoutNanoseconds, 1_000_000_000)
            }
            if configuration.role == .client, let sent = keepalivePingSentAt {
                if lastFrameAt >= sent {
                    keepalivePingSentAt = nil
                } else if now &- sent >= Self.nanoseconds(configuration.keepaliveTimeout) {
                    // Not even a PING answered: the server is stopped or the network is gone.
                    let error = PhotoLibError(
                        .unavailable,
                        "the server answered no keepalive PING within \(Self.seconds(configuration.keepaliveTimeout)) s: the connection is lost (the server is stopped or the network is down)")
                    fail(error)
                    return [.closed(error)]
                }
            }
            if configuration.role == .client, let due = keepaliveAt, due <= now {
                // Nothing written for two looks in a row (a quarter of the server's idle
                // timeout apart): a PING keeps the connection. Nothing heard for a look while
                // calls wait for the server: a PING asks whether it is still there.
                silentKeepaliveTicks = wroteSinceKeepalive ? 0 : silentKeepaliveTicks + 1
                wroteSinceKeepalive = false
                let unheard = lastFrameAt <= lastKeepaliveLook && !streams.isEmpty
                if (silentKeepaliveTicks >= 2 || unheard) && keepalivePingSentAt == nil {
                    write(Frame(.ping, payload: Wire.Ping(opaque: now).encoded()))
                    keepalivePingSentAt = now
                }
                lastKeepaliveLook = now
                keepaliveAt = now &+ max(1, idleTimeoutNanoseconds / 4)
            }
        case .closed:
            return []
        }
        if let earliest = earliestCallDeadline, earliest <= now {
            for id in streams.ids.sorted() {
                guard let deadline = streams[id]?.deadline, deadline <= now else { continue }
                streams[id]?.deadline = nil
                events.append(.deadlineExceeded(stream: id))
            }
            findEarliestCallDeadline()
        }
        return events
    }

    private static func nanoseconds(_ seconds: Double) -> UInt64 {
        seconds <= 0 ? 0 : UInt64(min(seconds, 1e9) * 1e9)
    }

    /// `seconds` for a message: `10`, `2.5`.
    private static func seconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
    }

    // MARK: Handshake (client) and closing

    /// Client: writes HELLO with `token` and `clientName`; frame size and windows come from
    /// the configuration.
    public mutating func start(token: String, clientName: String) {
        guard configuration.role == .client, phase == .handshaking else { return }
        write(Frame(.hello, payload: Wire.Hello(
            protocolVersion: WireLimits.protocolVersion, token: token, clientName: clientName,
            maxFrameSize: UInt32(configuration.maxFrameSize),
            initialStreamWindow: UInt32(configuration.initialStreamWindow),
            initialConnectionWindow: UInt32(configuration.initialConnectionWindow)).encoded()))
    }

    /// Says goodbye with GOAWAY `status`. Server: graceful (section 11.1), the connection
    /// closes once the calls it accepted have ended (before the handshake: at once). Client:
    /// GOAWAY with `lastStreamID` 0, then closed.
    public mutating func goAway(_ status: Wire.Status) {
        if configuration.role == .client {
            guard phase != .closed else { return }
            write(Frame(.goAway, payload: Wire.GoAway(lastStreamID: 0, status: status).encoded()))
            close()
        } else {
            beginDraining(status: status)
        }
    }

    /// Server: sends GOAWAY with `status` and lets the running calls finish.
    private mutating func beginDraining(status: Wire.Status) {
        switch phase {
        case .handshaking, .answeringHello:
            write(Frame(.goAway, payload: Wire.GoAway(lastStreamID: 0, status: status).encoded()))
            close()
        case .open:
            phase = .draining
            write(Frame(.goAway, payload: Wire.GoAway(lastStreamID: highestStreamID, status: status).encoded()))
            closeIfDrained()
        case .draining, .closed:
            break
        }
    }

    private mutating func closeIfDrained() {
        if phase == .draining && streams.isEmpty { close() }
    }

    /// A connection-level error: writes GOAWAY carrying `error` (a server names the highest
    /// stream id it accepted) and closes.
    public mutating func fail(_ error: PhotoLibError) {
        guard phase != .closed else { return }
        let last = configuration.role == .server ? highestStreamID : 0
        write(Frame(.goAway, payload: Wire.GoAway(lastStreamID: last, status: Wire.Status(error)).encoded()))
        close()
    }

    /// Closes without a word (the socket failed, TLS failed, the driver gave up): every call
    /// is over and nothing more is read or written. Bytes written before stay in
    /// ``takeOutbound()``.
    public mutating func close() {
        phase = .closed
        streams.removeAll()
        earliestCallDeadline = nil
        blockedOnConnection = []
        deferredPings = []
        keepaliveAt = nil
        keepalivePingSentAt = nil
    }
}
