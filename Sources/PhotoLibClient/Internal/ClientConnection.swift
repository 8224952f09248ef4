import Dispatch
import Foundation
import PhotoLibCore
import PhotoLibNet
import PhotoLibWire
import Synchronization

/// The client end of one protocol connection: the I/O around its protocol state machine
/// (docs/PROTOCOL.md).
///
/// The protocol (WELCOME checks, frame rules, windows both ways with batched credit, call
/// deadlines, keepalive, GOAWAY) is ``ConnectionStateMachine`` in PhotoLibWire, in its client
/// role. This driver owns the socket and TLS, hands the machine received bytes and writes what
/// it answers, sets one timer to its next deadline, and runs the calls: it queues request
/// messages until the windows let them go and hands responses to a task's stream or to a
/// ``ResponseConsumer`` on the queue.
///
/// Its stored `var`s are `@exclusivity(unchecked)`: confined to one queue, and never accessed
/// while an access to the same one is in progress (docs/ARCHITECTURE.md, "Exclusivity").
final class ClientConnection: @unchecked Sendable {
    private enum Phase {
        case awaitingWelcome(CheckedContinuation<Wire.Welcome, any Error>)
        case open
        case goingAway
        case closed(PhotoLibError)
    }

    let queue = DispatchQueue(label: "photolib.client.connection")
    let configuration: ClientConfiguration
    private let channel: SocketChannel
    @exclusivity(unchecked) private var phase: Phase
    /// The protocol: frames in, events and frames out. On ``queue``.
    @exclusivity(unchecked) private var machine: ConnectionStateMachine
    /// The application side of each open call, by stream id: as many as the machine has open.
    @exclusivity(unchecked) private var streams = StreamTable<ClientStream>()
    /// Bytes consumed per stream whose credit has not reached the machine yet, and whether a
    /// turn of ``queue`` that hands them over is queued (``consumed(_:stream:)``). Its own
    /// lock because consumers report from any task; a leaf lock.
    private let unreturnedCredit = Mutex((bytes: [UInt32: Int](), scheduled: false))
    /// Why the server said goodbye (its GOAWAY's status), once it did: what calls made after
    /// it, and after the socket closed, fail with (a revoked client learns it was revoked,
    /// not only that the connection closed). On ``queue``.
    @exclusivity(unchecked) private var goAwayError: PhotoLibError?
    /// Calls waiting for one of the ``maxOpenCalls`` places (``WaitingCalls``). On ``queue``.
    @exclusivity(unchecked) private var waitingCalls = WaitingCalls()
    /// How many calls the server lets this connection have open at once (its WELCOME's
    /// `max_concurrent_streams`); more wait in ``waitingCalls``. On ``queue``.
    @exclusivity(unchecked) private var maxOpenCalls = Int.max
    /// The server's maximum frame size (its WELCOME), the largest request it takes.
    @exclusivity(unchecked) private var serverMaxFrameSize = WireLimits.defaultMaxFrameSize
    /// Whether the connection is closed (``phase`` is `.closed`; kept apart because testing a
    /// flag is cheaper than matching the enum, on every frame).
    @exclusivity(unchecked) private var isClosed = false
    /// Whether the socket was told to close once the machine closed (GOAWAY drained).
    @exclusivity(unchecked) private var isClosingChannel = false
    /// One-shot timer set to the machine's next deadline (keepalive, a call's deadline).
    @exclusivity(unchecked) private var timer: (any DispatchSourceTimer)?
    /// The deadline ``timer`` is set to (uptime nanoseconds).
    @exclusivity(unchecked) private var timerDeadline: UInt64?
    /// TLS between the socket and the state machine (`ClientConfiguration.tls`); `nil`: plain TCP.
    @exclusivity(unchecked) private var tls: TLSStream?
    @exclusivity(unchecked) private(set) var welcome: Wire.Welcome?
    /// Tasks waiting in ``consume(_:request:timeout:_:)`` whose call has ended (their
    /// continuation is resumed) but that have not run since: each of them usually opens its
    /// next call at once, so a task's own turn holds its request while any are left (the
    /// others' requests join it), and the last one to run sends them all in one `send`
    /// (``SocketChannel/holdsWrites``). Calls that join the event loop's read turn leave
    /// with its writes, as result handlers' do.
    let resumedTasks = ResumedTasks()
    /// Runs the jobs of tasks that prefer it on ``queue``, at the end of the read turn that
    /// resumed them (``PhotoLibrary/taskExecutor``).
    let executor: ConnectionExecutor
    /// The image requests with an id the application holds, for cancelling them here.
    let imageRequests = ImageRequestRegistry()

    private init(fd: Int32, endpoint: Endpoint?, configuration: ClientConfiguration, continuation: CheckedContinuation<Wire.Welcome, any Error>) {
        self.configuration = configuration
        let channel = SocketChannel(fd: fd, peer: endpoint, queue: queue)
        self.channel = channel
        self.executor = ConnectionExecutor(channel: channel)
        // The client never stops reading for its own output: what it sends is bounded by the
        // server's flow-control windows already, and a client that stopped reading while the
        // server does the same (each waiting for the other to drain) would deadlock.
        channel.sendQueueHighWater = .max
        channel.heldWritesLimit = .nanoseconds(Int(configuration.requestHoldLimit * 1e9))
        self.phase = .awaitingWelcome(continuation)
        self.machine = ConnectionStateMachine(
            configuration: .init(
                role: .client, maxFrameSize: configuration.maxFrameSize,
                initialStreamWindow: configuration.initialStreamWindow, initialConnectionWindow: configuration.initialConnectionWindow,
                handshakeTimeout: configuration.connectTimeout, keepaliveTimeout: configuration.keepaliveTimeout),
            now: DispatchTime.now().uptimeNanoseconds)
    }

    deinit {
        // The event loop's registration keeps the channel (and its socket) alive until it
        // closes: a connection nobody holds any more closes it.
        let channel = self.channel
        queue.async { channel.close() }
    }

    /// Whether the caller runs on ``queue`` (in a result handler, say).
    var isOnQueue: Bool { channel.isOnQueue }

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
        } catch let error as SocketError where error.isNameResolution {
            throw PhotoLibError(.unavailable, "cannot connect to \(endpoint): the host name \(endpoint.host) does not resolve (\(error.text ?? "\(error)")); check its spelling, or give an address")
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
                created.start(token: token, clientName: clientName)
            }
        }
        guard let connection else { throw PhotoLibError(.internalError, "connection vanished during the handshake") }
        connection.queue.sync { connection.welcome = welcome }
        return connection
    }

    private func start(token: String, clientName: String) {
        if let settings = configuration.tls {
            let channel = self.channel
            do {
                tls = try settings.makeStream(host: channel.peer?.host) { channel.write($0) }
            } catch {
                closed(error as? PhotoLibError ?? PhotoLibError(.internalError, "\(error)"))
                return channel.close()
            }
        }
        if tls == nil {
            channel.onReadInPlace = { [weak self] bytes in self?.received(bytes) }
        } else {
            channel.onRead = { [weak self] bytes in self?.receivedThroughTLS(bytes) }
        }
        let resumedTasks = self.resumedTasks
        channel.holdsWrites = { resumedTasks.waiting }
        channel.onClose = { [weak self] error in
            self?.closed(PhotoLibError(.unavailable, error.map { "connection lost: \($0)" } ?? "the server closed the connection"))
        }
        // A refused registration closes the channel, which fails the handshake.
        guard (try? channel.start()) != nil else { return }
        tls?.start()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.timerFired() }
        timer.resume()
        self.timer = timer
        machine.start(token: token, clientName: clientName)
        flush()
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
        let stream = ClientStream(method: method, resumes: resumedTasks)
        let result: Result<Value, any Error>
        do {
            result = .success(try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                    start(stream, request: request, timeout: timeout, consumer: makeConsumer(continuation), fromTask: true)
                }
            } onCancel: {
                cancel(stream)
            })
        } catch {
            result = .failure(error)
        }
        // This task runs again: if it was the last one resumed, what the others opened meanwhile
        // (held back for it) leaves now. (A task on the pool was resumed to it from the loop's
        // thread, see "In: one hop" in docs/ARCHITECTURE.md; one on the connection's executor
        // runs in a turn of the queue, whose end sends them.)
        if resumedTasks.ran() { channel.sendHeldWrites() }
        return try result.get()
    }

    /// Opens a call with one request whose responses `consumer` takes on the queue, and
    /// waits only until it is open: the responses flow on to the consumer, which reports the
    /// end. Returns the call, for ``cancel(_:)-(ClientStream)``.
    func open(
        _ method: MethodInfo, request: [UInt8], timeout: Double?, consumer: any ResponseConsumer, stream: ClientStream? = nil
    ) async throws -> ClientStream {
        let stream = stream ?? ClientStream(method: method)
        try await withCheckedThrowingContinuation { (opened: CheckedContinuation<Void, any Error>) in
            start(stream, request: request, timeout: timeout, consumer: consumer, opened: opened, fromTask: true)
        }
        return stream
    }

    /// Opens `stream`, a bidirectional call whose responses `consumer` takes on the queue, and
    /// waits until it is open (`stream.id` is set then); its requests follow with
    /// ``send(_:stream:endStream:)``.
    func openBidirectional(_ stream: ClientStream, consumer: any ResponseConsumer) async throws {
        try await withCheckedThrowingContinuation { (opened: CheckedContinuation<Void, any Error>) in
            opening(fromTask: true) {
                self.open(stream, .queue(consumer), requests: EmptyCollection<[UInt8]>(), endStream: false, timeout: nil, opened: opened)
            }
        }
    }

    /// Opens a call with one request whose responses `consumer` takes on the queue, without
    /// waiting for anything: a failure to open is the consumer's to report. Returns the call,
    /// for ``cancel(_:)-(ClientStream)``.
    @discardableResult
    func start(
        _ method: MethodInfo, request: [UInt8], timeout: Double?, consumer: any ResponseConsumer, stream: ClientStream? = nil
    ) -> ClientStream {
        let stream = stream ?? ClientStream(method: method)
        start(stream, request: request, timeout: timeout, consumer: consumer)
        return stream
    }

    /// Opens `stream` on the queue for `consumer`; `opened`, if given, hears whether it opened
    /// (a caller that is a task passes it).
    private func start(
        _ stream: ClientStream, request: [UInt8], timeout: Double?, consumer: any ResponseConsumer,
        opened: CheckedContinuation<Void, any Error>? = nil, fromTask: Bool = false
    ) {
        // On the queue (a result handler starting the next request) it opens at once, and
        // no closure holding the connection is made.
        if isOnQueue {
            open(stream, .queue(consumer), requests: CollectionOfOne(request), endStream: true, timeout: timeout, opened: opened)
            return
        }
        opening(fromTask: fromTask) {
            self.open(stream, .queue(consumer), requests: CollectionOfOne(request), endStream: true, timeout: timeout, opened: opened)
        }
    }

    /// Runs `open`, which opens a call, on the queue. From a result handler (already on the
    /// queue) it runs at once, and the request leaves with the current turn's writes. From a
    /// task (suspended in a continuation, holding no lock) it goes through
    /// ``SocketChannel/submit(_:)``: it joins the turn running now (the event loop's read
    /// turn, or another task's), whose `send` takes it along, or else runs a turn of its own
    /// on the task's thread; neither wakes another thread. From any other thread it is
    /// queued, so a caller holding a lock that a result handler also takes cannot deadlock.
    private func opening(fromTask: Bool, _ open: @escaping @Sendable () -> Void) {
        if isOnQueue {
            open()
        } else if fromTask {
            channel.submit(open)
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
        if case .open = phase, streams.count >= maxOpenCalls || !waitingCalls.isEmpty {
            // As many calls open as the server allows (or others waiting before it): it waits
            // for a place, in order, instead of a CALL the server would refuse.
            stream.attach(responses)
            if stream.isEnded {
                opened?.resume(throwing: stream.notOpenedError)
                return
            }
            waitingCalls.append(WaitingCalls.Call(
                stream: stream, responses: responses, requests: Array(requests), endStream: endStream, timeout: timeout,
                opened: opened, since: DispatchTime.now().uptimeNanoseconds))
            scheduleTimer()
            return
        }
        do throws(PhotoLibError) {
            try openStream(stream, responses, requests: requests, endStream: endStream, timeout: timeout)
            opened?.resume()
        } catch {
            stream.end(error)
            opened?.resume(throwing: error)
        }
        flush()
    }

    /// On the queue: opens the call in the machine (CALL), and sends `requests` as the windows
    /// allow. Throws when the connection cannot take a new call or the call was cancelled
    /// before it opened.
    private func openStream(
        _ stream: ClientStream, _ responses: ClientStream.Responses, requests: some Collection<[UInt8]>, endStream: Bool, timeout: Double?
    ) throws(PhotoLibError) {
        stream.attach(responses)
        if stream.isEnded { throw stream.notOpenedError }
        switch phase {
        case .closed(let error):
            throw error
        case .goingAway, .awaitingWelcome:
            if let goAwayError { throw Self.goneAway(goAwayError) }
            throw PhotoLibError(.unavailable, "the server is going away; reconnect")
        case .open:
            break
        }
        if let oversized = requests.first(where: { $0.count > serverMaxFrameSize }) {
            throw PhotoLibError(.resourceExhausted, "a \(oversized.count)-byte request exceeds the server's maximum frame size")
        }
        let (call, timeoutMs) = callStart(stream.method, timeout: timeout)
        let id = try machine.openStream(
            encodedCall: call, timeoutMs: timeoutMs, endStream: requests.isEmpty && endStream, now: DispatchTime.now().uptimeNanoseconds)
        stream.id = id
        stream.timeout = timeout
        streams[id] = stream
        if case .queue(let consumer) = responses { consumer.opened(stream: id) }
        var left = requests.count
        for payload in requests {
            left -= 1
            send(ClientStream.PendingMessage(payload: payload, endStream: endStream && left == 0, sent: nil), on: stream)
        }
    }

    /// The encoded CALL message of `method` with `timeout`, and that deadline in
    /// milliseconds (encoded once per method when there is none).
    private func callStart(_ method: MethodInfo, timeout: Double?) -> (call: [UInt8], timeoutMs: UInt64) {
        if let timeout {
            let milliseconds = UInt64(max(1, (timeout * 1000).rounded()))
            return (Wire.CallStart(method: method.path, timeoutMs: milliseconds).encoded(), milliseconds)
        }
        return (method.encodedCall, 0)
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
                self.flush()
            }
        }
    }

    /// The application consumed a response message: its credit goes back to the server (in
    /// a batch, see ``ReceiveCredit``).
    ///
    /// A call that already ended gave back the credit of everything it had not consumed, so
    /// nothing goes back twice.
    ///
    /// Consumptions reported before the queue gets to them are handed over together, in one
    /// turn of the queue (many subscriptions taking the same change at once wake it once).
    func consumed(_ count: Int, stream id: UInt32) {
        guard count > 0 else { return }
        let schedule = unreturnedCredit.withLock { credit in
            credit.bytes[id, default: 0] += count
            defer { credit.scheduled = true }
            return !credit.scheduled
        }
        guard schedule else { return }
        queue.async {
            let bytes = self.unreturnedCredit.withLock { credit in
                credit.scheduled = false
                defer { credit.bytes.removeAll(keepingCapacity: true) }
                return credit.bytes
            }
            guard !self.isClosed else { return }
            for (id, count) in bytes where self.streams[id] != nil { self.machine.consumed(count, stream: id) }
            self.flush()
        }
    }

    /// Cancels the open call with stream id `id` (see ``cancel(_:)-(ClientStream)``).
    func cancel(_ id: UInt32) {
        queue.async {
            guard let stream = self.streams[id] else { return }
            self.end(stream, ClientStream.cancelled(stream.method), reason: "cancelled by the client")
            self.flush()
        }
    }

    /// Cancels a call, open or not yet open: sends CANCEL if the server knows it, and ends it
    /// with `cancelled` (a call cancelled before it opens never opens).
    func cancel(_ stream: ClientStream) {
        queue.async {
            self.end(stream, ClientStream.cancelled(stream.method), reason: "cancelled by the client")
            // A call cancelled while it waited for a place leaves the line at once.
            if stream.id == 0 && !self.waitingCalls.isEmpty { self.failWaitingCalls(now: DispatchTime.now().uptimeNanoseconds) }
            self.flush()
        }
    }

    private func abandon(_ id: UInt32, _ error: PhotoLibError) {
        guard let stream = streams[id] else { return }
        end(stream, error, reason: error.message)
    }

    /// Ends a call on the client's initiative: CANCEL (with `reason`) if the server knows
    /// it (its unconsumed responses' connection credit goes back first), then `error` to
    /// whoever takes its responses.
    private func end(_ stream: ClientStream, _ error: PhotoLibError, reason: String) {
        if stream.id != 0, streams[stream.id] === stream {
            streams[stream.id] = nil
            machine.cancel(stream: stream.id, reason: reason)
        }
        stream.end(error)
    }

    /// Says goodbye and closes.
    func close() {
        queue.async {
            if self.isClosed { return }
            self.machine.goAway(Wire.Status(code: .ok, message: "client closing"))
            self.writeOut()
            self.closed(PhotoLibError(.cancelled, "the connection was closed by the client"))
            self.channel.closeAfterWriting()
        }
    }

    /// Writes `message` at once when nothing waits before it and the windows allow (the
    /// usual case of a call's single request), otherwise queues it until the machine reports
    /// credit for the stream (``ConnectionStateMachine/Event/windowOpened(stream:)``).
    private func send(_ message: ClientStream.PendingMessage, on stream: ClientStream) {
        if stream.pending.isEmpty, machine.send(message.payload, stream: stream.id, endStream: message.endStream) == .sent {
            message.sent?.resume()
            return
        }
        stream.pending.append(message)
    }

    private func drain(_ id: UInt32) {
        guard let stream = streams[id] else { return }
        while let next = stream.pending.first {
            guard machine.send(next.payload, stream: id, endStream: next.endStream) == .sent else { return }
            stream.pending.removeFirst()
            next.sent?.resume()
        }
    }

    // MARK: Receiving

    /// Socket bytes of a TLS connection (plain TCP hands the loop's buffer to ``received(_:)``
    /// directly, ``SocketChannel/onReadInPlace``): decrypted, then to the state machine; a TLS
    /// failure ends the connection with its message.
    private func receivedThroughTLS(_ bytes: [UInt8]) {
        guard let tls else { return bytes.withUnsafeBytes { received($0) } }
        do throws(TLSError) {
            let plaintext = try tls.receive(bytes)
            if !plaintext.isEmpty { plaintext.withUnsafeBytes { received($0) } }
        } catch {
            closed(ClientTLS.connectionError(error))
            channel.close()
        }
    }

    /// Hands `bytes` to the machine and acts on each event, in order; held credit is decided
    /// about when they are used up.
    ///
    /// Tasks that prefer ``executor`` and were resumed by these events run at the end, before
    /// the turn's writes leave: the requests they make go out with them.
    private func received(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosed else { return }
        executor.turn {
            // Every event is pulled before this returns: the machine may hand out messages
            // where they lie in `bytes` (the loop's read buffer, or TLS's plaintext).
            machine.receive(borrowing: bytes)
            let now = DispatchTime.now().uptimeNanoseconds
            while let event = machine.nextEvent(now: now) {
                handle(event)
                writeOut()
            }
        }
        flush()
    }

    private func handle(_ event: ConnectionStateMachine.Event) {
        switch event {
        case .welcome(let welcome):
            guard case .awaitingWelcome(let continuation) = phase else { return }
            serverMaxFrameSize = machine.peerMaxFrameSize
            // 0: not announced (PROTOCOL.md 12: always set; 100 by default).
            maxOpenCalls = welcome.maxConcurrentStreams > 0 ? Int(welcome.maxConcurrentStreams) : 100
            phase = .open
            continuation.resume(returning: welcome)
        case .message(let id, let payload, _):
            deliver(payload.count, on: id) { (consumer) throws(PhotoLibError) in try consumer.receive(payload) } copied: { payload }
        case .borrowedMessage(let id, let payload, _):
            deliver(payload.count, on: id) { (consumer) throws(PhotoLibError) in try consumer.receive(borrowing: payload) } copied: { payload.copied() }
        case .status(let id, let status):
            guard let stream = streams.removeValue(forKey: id) else { return }
            stream.end(status.error)
        case .windowOpened(let id):
            drain(id)
        case .deadlineExceeded(let id):
            guard let stream = streams[id] else { return }
            abandon(id, PhotoLibError(.deadlineExceeded, "\(stream.method.name) did not finish within \(stream.timeout ?? 0) s"))
        case .goAway(let goAway, let abandoned):
            let error = goAway.status?.error ?? PhotoLibError(.unavailable, "the server is going away")
            goAwayError = error
            phase = .goingAway
            for id in abandoned {
                guard let stream = streams.removeValue(forKey: id) else { continue }
                stream.end(PhotoLibError(.unavailable, "the server went away before handling \(stream.method.name): \(error.message)"))
            }
        case .closed(let error):
            // A protocol violation (GOAWAY written: it leaves before the socket closes), or
            // the server's GOAWAY during the handshake (nothing to write: closed at once).
            let wroteGoAway = machine.hasOutbound
            closed(error ?? PhotoLibError(.unavailable, "the server closed the connection"))
            if wroteGoAway {
                writeOut(force: true)
                channel.closeAfterWriting()
            } else {
                channel.close()
            }
        case .pingAcknowledged, .hello, .callOpened, .cancelled:
            break
        }
    }

    /// A response message of `count` bytes on call `id`: to its consumer, through `receive`
    /// (the consumer's credit goes back first unless it returns its own), or to its task's
    /// stream as `copied()` makes it (an array the stream keeps); a message of a call that
    /// ended gives its credit back.
    private func deliver(
        _ count: Int, on id: UInt32, receive: (any ResponseConsumer) throws(PhotoLibError) -> Void, copied: () -> [UInt8]
    ) {
        guard let stream = streams[id] else { return machine.release(count, stream: id) }
        if let consumer = stream.consumer {
            if consumer.returnsCreditOnReceipt { machine.consumed(count, stream: id) }
            do throws(PhotoLibError) {
                try receive(consumer)
            } catch {
                abandon(id, error)
            }
        } else if let responses = stream.task {
            responses.yield(copied())
        }
    }

    private func closed(_ error: PhotoLibError) {
        if isClosed { return }
        // After a GOAWAY the server's reason says more than "closed".
        let error = goAwayError.map(Self.goneAway) ?? error
        let previous = phase
        phase = .closed(error)
        isClosed = true
        machine.close()
        timer?.cancel()
        timer = nil
        timerDeadline = nil
        if case .awaitingWelcome(let continuation) = previous {
            continuation.resume(throwing: error)
        }
        let open = streams.values
        streams.removeAll()
        for stream in open { stream.end(error) }
        for call in waitingCalls.removeAll() {
            call.stream.end(error)
            call.opened?.resume(throwing: error)
        }
    }

    /// The error of a call made after the server's GOAWAY carrying `reason`: its code (a
    /// revoked client's `permissionDenied`, a shutdown's `unavailable`) and its words.
    private static func goneAway(_ reason: PhotoLibError) -> PhotoLibError {
        var error = PhotoLibError(reason.code, "the server closed the connection: \(reason.message)", reason: reason.reason)
        error.cause = reason.cause
        return error
    }

    // MARK: Calls waiting for a place

    /// On the queue: opens waiting calls, in order, while the server allows more open calls
    /// (once the connection is going away or closed, each fails as a new call would).
    private func openWaitingCalls() {
        guard !waitingCalls.isEmpty else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        var isOpen: Bool { if case .open = phase { return true } else { return false } }
        while streams.count < maxOpenCalls || !isOpen, let call = waitingCalls.next() {
            if call.stream.isEnded {
                call.opened?.resume(throwing: call.stream.notOpenedError)
                continue
            }
            // The deadline counts from the request: what is left of it when it opens.
            let timeout = call.timeout.map { max(0.001, $0 - Double(now &- call.since) / 1e9) }
            do throws(PhotoLibError) {
                try openStream(call.stream, call.responses, requests: call.requests, endStream: call.endStream, timeout: timeout)
                call.opened?.resume()
            } catch {
                call.stream.end(error)
                call.opened?.resume(throwing: error)
            }
        }
    }

    /// On the queue: fails the waiting calls whose deadline passed by `now`, and lets go of
    /// those cancelled while they waited.
    private func failWaitingCalls(now: UInt64) {
        let (expired, ended) = waitingCalls.removeExpiredOrEnded(now: now)
        for call in ended {
            call.opened?.resume(throwing: call.stream.notOpenedError)
        }
        for call in expired {
            let error = PhotoLibError(
                .deadlineExceeded,
                "\(call.stream.method.name) did not finish within \(call.timeout ?? 0) s: it waited all that time for one of the \(maxOpenCalls) calls the server lets a connection have open at once")
            call.stream.end(error)
            call.opened?.resume(throwing: error)
        }
    }

    // MARK: Writing

    /// Moves what the machine wrote to the socket (through TLS when it is on): the channel
    /// sends what a turn of the queue wrote in one `send` at the end of the turn.
    private func writeOut(force: Bool = false) {
        guard machine.hasOutbound, force || !isClosed else { return }
        channel.write(through: tls) { self.machine.writeOutbound(into: &$0) }
    }

    /// After every turn: writes what the machine wrote; closes the socket once the machine
    /// has closed (the server's GOAWAY and the last call's STATUS), else sets the timer.
    private func flush() {
        openWaitingCalls()
        writeOut()
        if machine.isClosed {
            if !isClosingChannel && !isClosed {
                isClosingChannel = true
                channel.closeAfterWriting()
            }
        } else {
            scheduleTimer()
        }
    }

    // MARK: Time

    private func timerFired() {
        timerDeadline = nil
        guard !isClosed else { return }
        if !waitingCalls.isEmpty { failWaitingCalls(now: DispatchTime.now().uptimeNanoseconds) }
        for event in machine.tick(now: DispatchTime.now().uptimeNanoseconds) {
            handle(event)
            writeOut()
        }
        flush()
    }

    /// Sets the timer to the machine's next deadline (keepalive, a call's deadline) when that
    /// is sooner than the one set.
    private func scheduleTimer() {
        // The usual case, no earlier deadline, returns before `timer` (an existential) is copied.
        var next = machine.nextDeadline
        if !waitingCalls.isEmpty, let waiting = waitingCalls.earliestDeadline { next = min(next ?? waiting, waiting) }
        guard let next else { return }
        if let set = timerDeadline, set <= next { return }
        guard let timer else { return }
        timerDeadline = next
        timer.schedule(deadline: DispatchTime(uptimeNanoseconds: next))
    }
}

/// How many tasks waiting for a call's end (``ClientConnection/consume(_:request:timeout:_:)``)
/// the connection has resumed that have not run since. Counted up on the connection's queue
/// just before a consumer resumes its task (``ClientStream``), down by the task once it runs
/// (on any thread): atomic.
final class ResumedTasks: Sendable {
    private let count = Atomic<Int>(0)

    /// Whether any resumed task has not run yet.
    var waiting: Bool { count.load(ordering: .sequentiallyConsistent) > 0 }

    /// A task is about to be resumed.
    func resuming() {
        count.add(1, ordering: .sequentiallyConsistent)
    }

    /// A resumed task runs; returns whether it was the last one waiting.
    func ran() -> Bool {
        count.subtract(1, ordering: .sequentiallyConsistent).newValue == 0
    }
}
