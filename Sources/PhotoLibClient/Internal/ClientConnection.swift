import Dispatch
import Foundation
import PhotoLibCore
import PhotoLibNet
import PhotoLibWire

/// The client end of one protocol connection: handshake, multiplexed calls, flow control,
/// deadlines, cancellation and keepalive (docs/PROTOCOL.md).
final class ClientConnection: @unchecked Sendable {
    private enum Phase {
        case awaitingWelcome(CheckedContinuation<Wire.Welcome, any Error>)
        case open
        case goingAway(lastStreamID: UInt32)
        case closed(PhotoLibError)
    }

    let queue = DispatchQueue(label: "photolib.client.connection")
    /// Marks ``queue`` as this connection's, for ``isOnQueue``.
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    let configuration: ClientConfiguration
    private let channel: SocketChannel
    private var phase: Phase
    private var decoder: FrameDecoder
    private var streams: [UInt32: ClientStream] = [:]
    private var nextStreamID: UInt32 = 1
    private var sendConnectionWindow = FlowWindow(initial: WireLimits.defaultConnectionWindow)
    private var connectionCredit: ReceiveCredit
    /// Calls that received bytes in the current read (see ``returnHeldCredit()``).
    private var creditChecks: [ClientStream] = []
    private var initialSendStreamWindow = WireLimits.defaultStreamWindow
    private var serverMaxFrameSize = WireLimits.defaultMaxFrameSize
    private var blockedOnConnection: [UInt32] = []
    /// Whether the connection is closed (``phase`` is `.closed`; kept apart because testing a
    /// flag is cheaper than matching the enum, on every frame).
    private var isClosed = false
    /// Encoded CALL payloads of calls without a deadline, by method name.
    private var callPayloads: [String: [UInt8]] = [:]
    private var sentSinceKeepaliveTick = false
    private var silentKeepaliveTicks = 0
    private var keepalive: (any DispatchSourceTimer)?
    /// TLS between the socket and the frame decoder (`ClientConfiguration.tls`); `nil`: plain TCP.
    private var tls: TLSStream?
    private(set) var welcome: Wire.Welcome?

    private init(fd: Int32, endpoint: Endpoint?, configuration: ClientConfiguration, continuation: CheckedContinuation<Wire.Welcome, any Error>) {
        self.configuration = configuration
        self.channel = SocketChannel(fd: fd, peer: endpoint, queue: queue)
        // The client never stops reading for its own output: what it sends is bounded by the
        // server's flow-control windows already, and a client that stopped reading while the
        // server does the same (each waiting for the other to drain) would deadlock.
        channel.sendQueueHighWater = .max
        self.phase = .awaitingWelcome(continuation)
        self.decoder = FrameDecoder(maxPayloadSize: configuration.maxFrameSize)
        self.connectionCredit = ReceiveCredit(initial: configuration.initialConnectionWindow, largestMessage: configuration.maxFrameSize)
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
    }

    deinit {
        // The event loop's registration keeps the channel (and its socket) alive until it
        // closes: a connection nobody holds any more closes it.
        let channel = self.channel
        queue.async { channel.close() }
    }

    /// Whether the caller runs on ``queue`` (in a result handler, say).
    private var isOnQueue: Bool {
        DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self)
    }

    /// Connects, sends HELLO and waits for WELCOME (or the server's GOAWAY).
    static func connect(to endpoint: Endpoint, token: String, clientName: String, configuration: ClientConfiguration) async throws -> ClientConnection {
        let fd: Int32
        do {
            fd = try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    do {
                        continuation.resume(returning: try Connector.connect(to: endpoint, timeoutMilliseconds: Int32(clamping: Int(configuration.connectTimeout * 1000))))
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        } catch {
            throw PhotoLibError(.unavailable, "cannot connect to \(endpoint): \(error) — is photolibd running there?")
        }
        return try await handshake(fd: fd, endpoint: endpoint, token: token, clientName: clientName, configuration: configuration)
    }

    /// Sends HELLO on the connected socket `fd` (owned from now on) and waits for WELCOME
    /// (or the server's GOAWAY). `endpoint` names the peer in errors, when there is one.
    static func handshake(fd: Int32, endpoint: Endpoint?, token: String, clientName: String, configuration: ClientConfiguration) async throws -> ClientConnection {
        var connection: ClientConnection?
        let welcome: Wire.Welcome = try await withCheckedThrowingContinuation { continuation in
            let created = ClientConnection(fd: fd, endpoint: endpoint, configuration: configuration, continuation: continuation)
            connection = created
            created.queue.async {
                created.start(hello: Wire.Hello(
                    protocolVersion: WireLimits.protocolVersion, token: token, clientName: clientName, maxFrameSize: UInt32(configuration.maxFrameSize),
                    initialStreamWindow: UInt32(configuration.initialStreamWindow),
                    initialConnectionWindow: UInt32(configuration.initialConnectionWindow)))
            }
        }
        guard let connection else { throw PhotoLibError(.internalError, "connection vanished during the handshake") }
        connection.queue.sync { connection.welcome = welcome }
        return connection
    }

    private func start(hello: Wire.Hello) {
        if let settings = configuration.tls {
            let channel = self.channel
            do {
                tls = try settings.makeStream(host: channel.peer?.host) { channel.write($0) }
            } catch {
                closed(error as? PhotoLibError ?? PhotoLibError(.internalError, "\(error)"))
                return channel.close()
            }
        }
        channel.onRead = { [weak self] bytes in self?.receivedFromSocket(bytes) }
        channel.onClose = { [weak self] error in
            self?.closed(PhotoLibError(.unavailable, error.map { "connection lost: \($0)" } ?? "the server closed the connection"))
        }
        // A refused registration closes the channel, which fails the handshake.
        guard (try? channel.start()) != nil else { return }
        tls?.start()
        write(Frame(.hello, payload: hello.encoded()))
    }

    // MARK: Calls

    /// Opens a call and queues its request messages (each goes out as soon as the send
    /// windows allow); returns the stream id and the response stream. One turn of the queue
    /// (see ``opening(fromTask:_:)``): CALL and the requests that fit the windows are
    /// written in it.
    func startCall(_ method: MethodInfo, requests: [[UInt8]], endStream: Bool, timeout: Double?) async throws -> (UInt32, AsyncThrowingStream<[UInt8], any Error>) {
        let (responses, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let stream = ClientStream(method: method)
        try await withCheckedThrowingContinuation { (opened: CheckedContinuation<Void, any Error>) in
            opening(fromTask: true) {
                self.open(stream, .task(continuation), requests: requests, endStream: endStream, timeout: timeout, opened: opened)
            }
        }
        let id = stream.id
        continuation.onTermination = { [weak self] termination in
            if case .cancelled = termination { self?.cancel(id) }
        }
        return (id, responses)
    }

    /// Runs a call with one request whose responses a ``ResponseConsumer`` takes on the
    /// queue, and waits for the value it hands to the continuation: one turn of the queue to
    /// open the call and send the request, one resume when it ends. `makeConsumer` builds the consumer
    /// around the caller's continuation. Cancelling the task cancels the call (CANCEL).
    func consume<Value: Sendable>(
        _ method: MethodInfo, request: [UInt8], timeout: Double?,
        _ makeConsumer: (CheckedContinuation<Value, any Error>) -> any ResponseConsumer
    ) async throws -> Value {
        let stream = ClientStream(method: method)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                start(stream, request: request, timeout: timeout, consumer: makeConsumer(continuation), fromTask: true)
            }
        } onCancel: {
            cancel(stream)
        }
    }

    /// Opens a call with one request whose responses `consumer` takes on the queue, and
    /// waits only until it is open: the responses flow on to the consumer, which reports the
    /// end. Returns the call, for ``cancel(_:)-(ClientStream)``.
    func open(_ method: MethodInfo, request: [UInt8], timeout: Double?, consumer: any ResponseConsumer) async throws -> ClientStream {
        let stream = ClientStream(method: method)
        try await withCheckedThrowingContinuation { (opened: CheckedContinuation<Void, any Error>) in
            start(stream, request: request, timeout: timeout, consumer: consumer, opened: opened, fromTask: true)
        }
        return stream
    }

    /// Opens a call with one request whose responses `consumer` takes on the queue, without
    /// waiting for anything: a failure to open is the consumer's to report. Returns the call,
    /// for ``cancel(_:)-(ClientStream)``.
    @discardableResult
    func start(_ method: MethodInfo, request: [UInt8], timeout: Double?, consumer: any ResponseConsumer) -> ClientStream {
        let stream = ClientStream(method: method)
        start(stream, request: request, timeout: timeout, consumer: consumer)
        return stream
    }

    /// Opens `stream` on the queue for `consumer`; `opened`, if given, hears whether it opened
    /// (a caller that is a task passes it).
    private func start(
        _ stream: ClientStream, request: [UInt8], timeout: Double?, consumer: any ResponseConsumer,
        opened: CheckedContinuation<Void, any Error>? = nil, fromTask: Bool = false
    ) {
        opening(fromTask: fromTask) {
            self.open(stream, .queue(consumer), requests: CollectionOfOne(request), endStream: true, timeout: timeout, opened: opened)
        }
    }

    /// Runs `open`, which opens a call, on the queue. From a result handler (already on the
    /// queue) it runs at once, and the request leaves with the current turn's writes. From a
    /// task (suspended in a continuation, holding no lock) it runs in a
    /// ``SocketChannel/turn(_:)``, synchronously, which wakes no other thread. From any other
    /// thread it is queued, so a caller holding a lock that a result handler also takes
    /// cannot deadlock.
    private func opening(fromTask: Bool, _ open: @escaping @Sendable () -> Void) {
        if isOnQueue {
            open()
        } else if fromTask {
            channel.turn(open)
        } else {
            queue.async(execute: open)
        }
    }

    /// On the queue: opens `stream` (see ``openStream(_:_:requests:endStream:timeout:)``).
    /// A failure to open is the call's outcome: the stream ends with it, and `opened` hears
    /// it too.
    private func open(
        _ stream: ClientStream, _ responses: ClientStream.Responses, requests: some Collection<[UInt8]>, endStream: Bool,
        timeout: Double?, opened: CheckedContinuation<Void, any Error>?
    ) {
        do throws(PhotoLibError) {
            try openStream(stream, responses, requests: requests, endStream: endStream, timeout: timeout)
            opened?.resume()
        } catch {
            stream.end(error)
            opened?.resume(throwing: error)
        }
    }

    /// On the queue: gives `stream` an id, writes CALL, and sends `requests` as the windows
    /// allow. Throws when the connection cannot take a new call or the call was cancelled
    /// before it opened.
    private func openStream(
        _ stream: ClientStream, _ responses: ClientStream.Responses, requests: some Collection<[UInt8]>, endStream: Bool, timeout: Double?
    ) throws(PhotoLibError) {
        stream.attach(responses)
        if stream.isEnded { throw stream.outcome ?? PhotoLibError(.cancelled, "\(stream.method.name) was cancelled") }
        switch phase {
        case .closed(let error):
            throw error
        case .goingAway, .awaitingWelcome:
            throw PhotoLibError(.unavailable, "the server is going away; reconnect")
        case .open:
            break
        }
        guard nextStreamID < Frame.maxStreamID else {
            throw PhotoLibError(.resourceExhausted, "this connection has used every stream id; reconnect")
        }
        if let oversized = requests.first(where: { $0.count > serverMaxFrameSize }) {
            throw PhotoLibError(.resourceExhausted, "a \(oversized.count)-byte request exceeds the server's maximum frame size")
        }
        let id = nextStreamID
        nextStreamID += 2
        stream.id = id
        stream.sendWindow = FlowWindow(initial: initialSendStreamWindow)
        stream.receiveCredit = ReceiveCredit(initial: configuration.initialStreamWindow, largestMessage: configuration.maxFrameSize)
        streams[id] = stream
        write(Frame(.call, stream: id, flags: requests.isEmpty && endStream ? .endStream : [], payload: callPayload(stream.method, timeout: timeout)))
        if let timeout {
            let method = stream.method
            let item = DispatchWorkItem { [weak self] in
                self?.abandon(id, PhotoLibError(.deadlineExceeded, "\(method.name) did not finish within \(timeout) s"))
            }
            stream.deadline = item
            queue.asyncAfter(deadline: .now() + timeout, execute: item)
        }
        var left = requests.count
        for payload in requests {
            left -= 1
            send(ClientStream.PendingMessage(payload: payload, endStream: endStream && left == 0, sent: nil), on: stream)
        }
    }

    /// The CALL payload of `method` with `timeout` (encoded once per method when there is none).
    private func callPayload(_ method: MethodInfo, timeout: Double?) -> [UInt8] {
        if let timeout {
            return Wire.CallStart(method: method.path, timeoutMs: UInt64(max(1, (timeout * 1000).rounded()))).encoded()
        }
        if let cached = callPayloads[method.name] { return cached }
        let payload = Wire.CallStart(method: method.path).encoded()
        callPayloads[method.name] = payload
        return payload
    }

    /// Sends one request message, waiting for credit.
    func send(_ payload: [UInt8], stream id: UInt32, endStream: Bool) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                guard let stream = self.streams[id] else {
                    continuation.resume(throwing: PhotoLibError(.cancelled, "the call has ended"))
                    return
                }
                guard payload.count <= self.serverMaxFrameSize else {
                    continuation.resume(throwing: PhotoLibError(.resourceExhausted, "a \(payload.count)-byte request exceeds the server's maximum frame size"))
                    return
                }
                self.send(ClientStream.PendingMessage(payload: payload, endStream: endStream, sent: continuation), on: stream)
            }
        }
    }

    /// The application consumed a response message: its credit goes back to the server (in
    /// a batch, see ``ReceiveCredit``).
    ///
    /// A call that already ended gave back the credit of everything it had not consumed
    /// (``retire(_:)``), so nothing goes back twice.
    func consumed(_ count: Int, stream id: UInt32) {
        guard count > 0 else { return }
        queue.async {
            guard !self.isClosed, let stream = self.streams[id] else { return }
            stream.unconsumed -= count
            self.connectionCredit.consume(count)
            stream.receiveCredit.consume(count)
            self.returnCredit(of: stream)
            self.returnConnectionCredit()
        }
    }

    /// Cancels the open call with stream id `id` (see ``cancel(_:)-(ClientStream)``).
    func cancel(_ id: UInt32) {
        queue.async {
            guard let stream = self.streams[id] else { return }
            self.end(stream, PhotoLibError(.cancelled, "\(stream.method.name) was cancelled"), reason: "cancelled by the client")
        }
    }

    /// Cancels a call, open or not yet open: sends CANCEL if the server knows it, and ends it
    /// with `cancelled` (a call cancelled before it opens never opens).
    func cancel(_ stream: ClientStream) {
        queue.async {
            self.end(stream, PhotoLibError(.cancelled, "\(stream.method.name) was cancelled"), reason: "cancelled by the client")
        }
    }

    private func abandon(_ id: UInt32, _ error: PhotoLibError) {
        guard let stream = streams[id] else { return }
        end(stream, error, reason: error.message)
    }

    /// Ends a call on the client's initiative: CANCEL (with `reason`) if the server knows
    /// it, then `error` to whoever takes its responses.
    private func end(_ stream: ClientStream, _ error: PhotoLibError, reason: String) {
        if stream.id != 0, streams[stream.id] === stream {
            retire(stream)
            write(Frame(.cancel, stream: stream.id, payload: Wire.Cancel(reason: reason).encoded()))
        }
        stream.end(error)
    }

    /// Forgets an ended call. Its responses handed to a task but never consumed (the task
    /// stopped iterating) give their connection credit back now: otherwise every cancelled
    /// download would shrink the connection's window for good.
    private func retire(_ stream: ClientStream) {
        streams[stream.id] = nil
        blockedOnConnection.removeAll { $0 == stream.id }
        if stream.unconsumed > 0 {
            connectionCredit.consume(stream.unconsumed)
            stream.unconsumed = 0
            returnConnectionCredit()
        }
    }

    /// Says goodbye and closes.
    func close() {
        queue.async {
            if self.isClosed { return }
            self.write(Frame(.goAway, payload: Wire.GoAway(lastStreamID: 0, status: Wire.Status(code: .ok, message: "client closing")).encoded()))
            self.closed(PhotoLibError(.cancelled, "the connection was closed by the client"))
            self.channel.closeAfterWriting()
        }
    }

    /// Writes `message` at once when nothing waits before it and the windows allow (the
    /// usual case of a call's single request), otherwise queues it for ``drain(_:)``.
    private func send(_ message: ClientStream.PendingMessage, on stream: ClientStream) {
        let size = message.payload.count
        guard stream.pending.isEmpty, stream.sendWindow.allows(size), sendConnectionWindow.allows(size) else {
            stream.pending.append(message)
            drain(stream.id)
            return
        }
        try? stream.sendWindow.spend(size)
        try? sendConnectionWindow.spend(size)
        write(Frame(.message, stream: stream.id, flags: message.endStream ? .endStream : [], payload: message.payload))
        message.sent?.resume()
    }

    private func drain(_ id: UInt32) {
        guard let stream = streams[id] else { return }
        while let next = stream.pending.first {
            let size = next.payload.count
            guard stream.sendWindow.allows(size) else { return }
            guard sendConnectionWindow.allows(size) else {
                if !blockedOnConnection.contains(id) { blockedOnConnection.append(id) }
                return
            }
            try? stream.sendWindow.spend(size)
            try? sendConnectionWindow.spend(size)
            stream.pending.removeFirst()
            write(Frame(.message, stream: id, flags: next.endStream ? .endStream : [], payload: next.payload))
            next.sent?.resume()
        }
    }

    // MARK: Credit

    /// Sends the held credit of `stream` if it must or may go back now.
    private func returnCredit(of stream: ClientStream) {
        guard !stream.isEnded, let increment = stream.receiveCredit.take() else { return }
        write(Frame(.windowUpdate, stream: stream.id, payload: Wire.WindowUpdate(increment: UInt32(increment)).encoded()))
    }

    /// Sends the held connection credit if it must or may go back now.
    private func returnConnectionCredit() {
        guard let increment = connectionCredit.take() else { return }
        write(Frame(.windowUpdate, payload: Wire.WindowUpdate(increment: UInt32(increment)).encoded()))
    }

    /// After a read: decides about the credit of every call that received bytes in it (an
    /// ended call's credit need not go back, docs/PROTOCOL.md 9.4), then the connection's.
    private func returnHeldCredit() {
        for stream in creditChecks {
            stream.needsCreditCheck = false
            returnCredit(of: stream)
        }
        creditChecks.removeAll(keepingCapacity: true)
        returnConnectionCredit()
    }

    // MARK: Receiving

    /// Socket bytes: through TLS when it is on (a TLS failure ends the connection with its
    /// message), else straight to the frame decoder.
    private func receivedFromSocket(_ bytes: [UInt8]) {
        guard let tls else { return received(bytes) }
        do throws(TLSError) {
            let plaintext = try tls.receive(bytes)
            if !plaintext.isEmpty { received(plaintext) }
        } catch {
            closed(ClientTLS.connectionError(error))
            channel.close()
        }
    }

    private func received(_ bytes: [UInt8]) {
        decoder.append(bytes)
        do throws(PhotoLibError) {
            while let frame = try decoder.next() {
                try handle(frame)
                if isClosed { return }
            }
        } catch {
            protocolError(error)
            return
        }
        returnHeldCredit()
    }

    private func handle(_ frame: Frame) throws(PhotoLibError) {
        switch frame.type {
        case .welcome:
            guard case .awaitingWelcome(let continuation) = phase else {
                throw PhotoLibError(.invalidArgument, "WELCOME after the handshake", reason: .protocolViolation)
            }
            let welcome = try Wire.Welcome(decoding: frame.payload)
            guard welcome.protocolVersion == WireLimits.protocolVersion else {
                throw PhotoLibError(
                    .failedPrecondition, "the server speaks protocol version \(welcome.protocolVersion), this client \(WireLimits.protocolVersion)",
                    reason: .protocolViolation)
            }
            serverMaxFrameSize = try WireLimits.maxFrameSize(announced: welcome.maxFrameSize)
            initialSendStreamWindow = try WireLimits.window(announced: welcome.initialStreamWindow, fallback: WireLimits.defaultStreamWindow, atLeast: serverMaxFrameSize, name: "Welcome.initial_stream_window")
            sendConnectionWindow = FlowWindow(initial: try WireLimits.window(announced: welcome.initialConnectionWindow, fallback: WireLimits.defaultConnectionWindow, atLeast: serverMaxFrameSize, name: "Welcome.initial_connection_window"))
            phase = .open
            startKeepalive(idleTimeoutMs: Int(welcome.idleTimeoutMs))
            continuation.resume(returning: welcome)
        case .message:
            let count = frame.payload.count
            try connectionCredit.receive(count)
            guard let stream = streams[frame.streamID] else {
                // A call we cancelled: discarded, but the connection credit goes back.
                connectionCredit.consume(count)
                return
            }
            try stream.receiveCredit.receive(count)
            if !stream.needsCreditCheck {
                stream.needsCreditCheck = true
                creditChecks.append(stream)
            }
            switch stream.responses {
            case .task(let responses):
                stream.unconsumed += count
                responses.yield(frame.payload)
            case .queue(let consumer):
                connectionCredit.consume(count)
                stream.receiveCredit.consume(count)
                do {
                    try consumer.receive(frame.payload)
                } catch {
                    abandon(stream.id, error)
                }
            case nil:
                break
            }
        case .status:
            let status = try Wire.Status(decoding: frame.payload)
            guard let stream = streams[frame.streamID] else { return }
            retire(stream)
            stream.end(status.error)
            if case .goingAway = phase, streams.isEmpty { channel.closeAfterWriting() }
        case .windowUpdate:
            let update = try Wire.WindowUpdate(decoding: frame.payload)
            if frame.streamID == 0 {
                try sendConnectionWindow.grant(Int(update.increment))
                let blocked = blockedOnConnection
                blockedOnConnection = []
                for id in blocked { drain(id) }
            } else if let stream = streams[frame.streamID] {
                try stream.sendWindow.grant(Int(update.increment))
                drain(stream.id)
            }
        case .ping:
            if !frame.flags.contains(.ack) { write(Frame(.ping, flags: .ack, payload: frame.payload)) }
        case .goAway:
            let goAway = try Wire.GoAway(decoding: frame.payload)
            let error = goAway.status?.error ?? PhotoLibError(.unavailable, "the server is going away")
            if case .awaitingWelcome = phase {
                closed(error)
                channel.close()
                return
            }
            phase = .goingAway(lastStreamID: goAway.lastStreamID)
            for (id, stream) in streams where id > goAway.lastStreamID {
                retire(stream)
                stream.end(PhotoLibError(.unavailable, "the server went away before handling \(stream.method.name): \(error.message)"))
            }
            if streams.isEmpty { channel.closeAfterWriting() }
        case .hello, .call, .cancel:
            throw PhotoLibError(.invalidArgument, "the server sent \(frame.type), which only clients send", reason: .protocolViolation)
        }
    }

    private func protocolError(_ error: PhotoLibError) {
        write(Frame(.goAway, payload: Wire.GoAway(lastStreamID: 0, status: Wire.Status(error)).encoded()))
        closed(error)
        channel.closeAfterWriting()
    }

    private func closed(_ error: PhotoLibError) {
        if isClosed { return }
        let previous = phase
        phase = .closed(error)
        isClosed = true
        keepalive?.cancel()
        keepalive = nil
        if case .awaitingWelcome(let continuation) = previous {
            continuation.resume(throwing: error)
        }
        let open = streams.values
        streams = [:]
        for stream in open { stream.end(error) }
    }

    // MARK: Writing

    /// Queues a frame: the channel encodes it straight into its outbound buffer and sends
    /// what a turn of the queue wrote in one `send` at the end of the turn.
    private func write(_ frame: Frame) {
        if isClosed { return }
        sentSinceKeepaliveTick = true
        if let tls { tls.write { frame.encode(into: &$0) } } else { channel.write { frame.encode(into: &$0) } }
    }

    /// PINGs when nothing was sent for half the server's idle timeout: the timer ticks every
    /// quarter of it, and two silent ticks in a row make the connection idle.
    private func startKeepalive(idleTimeoutMs: Int) {
        guard idleTimeoutMs > 0 else { return }
        let tick = Double(idleTimeoutMs) / 4000
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + tick, repeating: tick)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            self.silentKeepaliveTicks = self.sentSinceKeepaliveTick ? 0 : self.silentKeepaliveTicks + 1
            self.sentSinceKeepaliveTick = false
            if self.silentKeepaliveTicks >= 2 {
                self.write(Frame(.ping, payload: Wire.Ping(opaque: UInt64(DispatchTime.now().uptimeNanoseconds)).encoded()))
            }
        }
        timer.resume()
        keepalive = timer
    }
}
