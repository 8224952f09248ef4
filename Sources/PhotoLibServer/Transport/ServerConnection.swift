import Dispatch
import Foundation
import Logging
import PhotoLibCore
import PhotoLibNet
import PhotoLibWire
import Synchronization

/// One client connection: the I/O around its protocol state machine (docs/PROTOCOL.md).
///
/// The protocol itself (handshake rules, stream ids, flow-control windows, PING rate, GOAWAY
/// and draining, handshake/idle/call deadlines) is ``ConnectionStateMachine`` in PhotoLibWire.
/// This driver owns the socket and TLS, hands the machine received bytes and writes what it
/// answers, sets one timer to the machine's next deadline, and runs the calls: it
/// authenticates HELLO, routes CALLs to handlers (or their fast paths), feeds them requests,
/// and queues their responses until the machine's windows let them go.
///
/// All state lives on ``queue``; handlers run as tasks and reach back through `queue.async`,
/// pooled work (``PooledRPCHandler``) through a channel turn (`SocketChannel.submit`) from its pool's thread.
///
/// Its stored `var`s are `@exclusivity(unchecked)`: confined to one queue, and never accessed
/// while an access to the same one is in progress (docs/ARCHITECTURE.md, "Exclusivity").
final class ServerConnection: @unchecked Sendable {
    let id: UInt64
    let queue: DispatchQueue
    private let channel: SocketChannel
    private let core: ServerCore
    @exclusivity(unchecked) private var logger: Logger
    /// The protocol: frames in, events and frames out. On ``queue``.
    @exclusivity(unchecked) private var machine: ConnectionStateMachine
    /// The application side of each call the machine has open and a handler runs: at most
    /// `ServerConfiguration.maxConcurrentStreams` of them.
    @exclusivity(unchecked) private var streams = StreamTable<ServerStream>()
    /// Whether the socket is closed or closing (the machine is closed too, then).
    @exclusivity(unchecked) private var isClosed = false
    /// The peer address this connection counts under while its handshake is pending
    /// (`ServerCore.admitHandshake`), and whether it still counts. On ``queue``.
    @exclusivity(unchecked) private var holdsHandshakeSlot = false
    /// Whether this connection (opened without a token) counts against
    /// `ServerConfiguration.maxTokenlessConnections`; on ``queue``.
    @exclusivity(unchecked) private var holdsTokenlessSlot = false
    /// One-shot timer set to the machine's next deadline (handshake, idle, a call's deadline,
    /// a deferred PING answer), re-set when it fires or when an earlier deadline appears: an
    /// idle connection wakes once per idle timeout, not every second.
    @exclusivity(unchecked) private var timer: (any DispatchSourceTimer)?
    /// The deadline ``timer`` is set to (uptime nanoseconds).
    @exclusivity(unchecked) private var timerDeadline: UInt64?
    /// TLS between the socket and the state machine (`ServerConfiguration.tls`); `nil`: plain TCP.
    @exclusivity(unchecked) private var tls: TLSStream?
    @exclusivity(unchecked) private(set) var session: ConnectionSession?
    /// The route of the last CALL: a connection tends to call one method over and over (a
    /// grid's thumbnails), and comparing its path costs less than hashing it. On ``queue``.
    @exclusivity(unchecked) private var lastRoute: RPCRoute?
    /// The client's maximum frame size (its HELLO), the largest response it takes.
    @exclusivity(unchecked) private var peerMaxFrameSize = WireLimits.defaultMaxFrameSize
    /// Called once on close.
    @exclusivity(unchecked) var onClose: (() -> Void)?
    /// Streams whose ``ResponseSource`` said it has messages, pulled in one turn of ``queue``
    /// (`scheduled`: that turn is queued). Taken from any thread (the change hub's queue),
    /// hence its own lock; a leaf lock. At most one entry per open stream.
    private let readySources = Mutex((streams: Set<UInt32>(), scheduled: false))

    init(id: UInt64, fd: Int32, peer: Endpoint?, core: ServerCore) {
        self.id = id
        self.core = core
        // A connection's queue never blocks (reads run on it from an event loop's thread,
        // handlers in tasks), so it targets the non-overcommitting global queue: work arriving on many
        // connections at once (a flood of refusals, a change fanned out to all) is drained by
        // about one thread per core instead of a new thread per busy queue.
        self.queue = DispatchQueue(label: "photolibd.connection.\(id)", target: .global())
        self.channel = SocketChannel(fd: fd, peer: peer, queue: queue)
        let configuration = core.configuration
        self.machine = ConnectionStateMachine(
            configuration: .init(
                role: .server, maxFrameSize: configuration.maxFrameSize,
                initialStreamWindow: configuration.initialStreamWindow, initialConnectionWindow: configuration.initialConnectionWindow,
                maxSendStreamWindow: configuration.maxResponseStreamWindow, maxSendConnectionWindow: configuration.maxResponseConnectionWindow,
                maxConcurrentStreams: configuration.maxConcurrentStreams,
                handshakeTimeout: configuration.handshakeTimeout, idleTimeout: configuration.idleTimeout,
                controlFrameInterval: configuration.controlFrameInterval, maxUnansweredControlFrames: configuration.maxUnansweredControlFrames),
            now: DispatchTime.now().uptimeNanoseconds)
        channel.sendQueueHighWater = configuration.maxSendQueueBytes
        channel.sendQueueLowWater = configuration.maxSendQueueBytes / 4
        var logger = core.logger
        logger[metadataKey: "connection.id"] = "\(id)"
        logger[metadataKey: "connection.peer"] = "\(peer?.description ?? "?")"
        self.logger = logger
    }

    /// Counts this connection against the limits on handshakes in progress (the server
    /// admitted it, `ServerCore.admitHandshake`) until its handshake ends. Before ``start()``.
    func holdHandshakeSlot() {
        holdsHandshakeSlot = true
    }

    /// The handshake ended (WELCOME sent, or the connection closed): the slot is free.
    private func releaseHandshakeSlot() {
        guard holdsHandshakeSlot else { return }
        holdsHandshakeSlot = false
        core.releaseHandshake(id: id)
    }

    /// Newer connections took this one's place among those waiting for their handshake:
    /// GOAWAY with `error` and close, unless the HELLO came meanwhile. Call on ``queue``.
    func closeBeforeHandshake(_ error: PhotoLibError) {
        guard machine.isAwaitingHandshake else { return }
        // Its HELLO may be in the socket already, not read yet: in a burst, connections are
        // accepted faster than their first read turns come. Read it first; only a connection
        // whose HELLO has not arrived whole is closed (PROTOCOL.md 2).
        channel.readWaiting(chunkSize: WireLimits.maxHelloSize + Frame.headerSize)
        guard machine.isAwaitingHandshake, !channel.isClosed else { return }
        holdsHandshakeSlot = false
        fail(error)
        flush()
    }

    /// Starts reading and the timer. Call on ``queue``.
    func start() {
        if let context = core.configuration.tls {
            let channel = self.channel
            tls = try? TLSStream(serverContext: context) { channel.write($0) }
        }
        if core.configuration.tls == nil {
            // Plain TCP: the frame decoder copies what it keeps from the loop's read buffer.
            channel.onReadInPlace = { [weak self] bytes in self?.received(bytes) }
        } else {
            channel.onRead = { [weak self] bytes in self?.receivedFromSocket(bytes) }
        }
        channel.onClose = { [weak self] error in self?.channelClosed(error) }
        channel.onWritable = { [weak self] in self?.sendQueueDrained() }
        // A refused registration closes the channel, and channelClosed has run.
        guard (try? channel.start()) != nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.timerFired() }
        timer.resume()
        self.timer = timer
        scheduleTimer()
        logger.debug("connection opened")
    }

    /// Added to each deadline so that the check finds it passed.
    private static let timerSlack = 0.005

    /// Refuses the connection at once (connection limit reached, or shutting down) with a
    /// GOAWAY carrying `error`; ``onClose`` runs when the socket is closed.
    ///
    /// `linger`: the channel starts (registered with an event loop), sends GOAWAY and reads until the peer
    /// closes or `SocketChannel.lingerTimeout` passes, so the peer surely reads the GOAWAY.
    /// Without it, GOAWAY goes out with one `send` and the socket closes at once: nothing is
    /// registered, but input the peer already sent may make the kernel reset the connection before the
    /// peer reads the GOAWAY (the server uses this beyond ``PhotoLibServer/maxLingeringRefusals``).
    func refuse(_ error: PhotoLibError, linger: Bool) {
        let goAway = ConnectionStateMachine.refusal(error)
        let done = onClose
        onClose = nil
        guard linger else {
            channel.sendAndClose(goAway)
            done?()
            return
        }
        channel.onClose = { _ in done?() }
        // Without a registration the channel is closed already (onClose has run) and the
        // GOAWAY is dropped.
        try? channel.start()
        channel.write(goAway)
        channel.closeAfterWriting()
    }

    // MARK: Receiving

    /// Socket bytes: through TLS when it is on (a TLS failure closes the connection; a
    /// plaintext client is told in plaintext), else straight to the state machine.
    private func receivedFromSocket(_ bytes: [UInt8]) {
        guard let tls else { return core.configuration.tls == nil ? received(bytes) : close() }
        do throws(TLSError) {
            let plaintext = try tls.receive(bytes)
            if !plaintext.isEmpty { received(plaintext) }
        } catch {
            logger.notice("closing connection: \(error.message)", metadata: ["tls.code": "\(error.code)"])
            if error.code == .notTLS { channel.write(ServerTLS.plaintextRefusal()) }
            close()
        }
    }

    /// Hands `bytes` to the machine and acts on each event they make, in order; the
    /// connection credit granted meanwhile goes out in one WINDOW_UPDATE at the end.
    private func received(_ bytes: some Sequence<UInt8>) {
        guard !isClosed else { return }
        machine.receive(bytes)
        let now = DispatchTime.now().uptimeNanoseconds
        while let event = machine.nextEvent(now: now) {
            handle(event, now: now)
            writeOut()
        }
        flush()
    }

    private func handle(_ event: ConnectionStateMachine.Event, now: UInt64) {
        switch event {
        case .hello(let hello):
            handshake(hello)
        case .callOpened(let streamID, let call, let endStream):
            openCall(streamID, call, endStream: endStream)
        case .message(let streamID, let payload, let endStream):
            receiveMessage(streamID, payload, endStream: endStream, now: now)
        case .borrowedMessage(let streamID, let payload, let endStream):
            // Not asked for (the server receives with copies: a request is small, and its
            // handler keeps it); handled all the same.
            receiveMessage(streamID, payload.copied(), endStream: endStream, now: now)
        case .cancelled(let streamID, _):
            guard let stream = streams.removeValue(forKey: streamID) else { return }
            logger.debug("call cancelled by client", metadata: ["stream.id": "\(streamID)", "method": "\(stream.method.name)"])
            stream.abandon(CancellationError())
        case .windowOpened(let streamID):
            drain(streamID)
        case .deadlineExceeded(let streamID):
            guard let stream = streams[streamID] else { return }
            finish(streamID, Wire.Status(code: .deadlineExceeded, message: "\(stream.method.name) did not finish within its deadline of \(stream.timeoutMs) ms"), abandon: true)
        case .goAway(_, let abandoned):
            logger.debug("client sent GOAWAY", metadata: ["calls.abandoned": "\(abandoned.count)"])
            for streamID in abandoned { streams.removeValue(forKey: streamID)?.abandon(CancellationError()) }
        case .closed(let error):
            if let error { logger.notice("closing connection: \(error.message)", metadata: ["status": "\(error.code)"]) }
        case .pingAcknowledged, .welcome, .status:
            break
        }
    }

    private func handshake(_ hello: Wire.Hello) {
        guard let identity = core.authenticate(token: hello.token) else {
            logger.notice("handshake refused: wrong token", metadata: ["client.name": "\(hello.clientName)"])
            return fail(PhotoLibError(.unauthenticated, "the token is not valid for this library (a revoked client's token is not): pass the owner's token (DIR/owner.token) or a client token with --token or PHOTOLIB_TOKEN"))
        }
        if identity == .unauthenticated {
            // Connections without a credential are few at a time: a flood of them cannot hold
            // the slots of clients that have one.
            guard core.admitTokenless() else {
                return fail(PhotoLibError(
                    .resourceExhausted,
                    "\(core.configuration.maxTokenlessConnections) connections without a token are open already; retry later"))
            }
            holdsTokenlessSlot = true
        }
        let configuration = core.configuration
        // What this connection may do: the owner everything; a client its best decision;
        // nobody yet: not determined.
        let welcomeStatus: (status: Wire.AuthorizationStatus, level: Wire.AccessLevel)
        switch identity {
        case .owner: welcomeStatus = (.authorized, .readWrite)
        case .unauthenticated: welcomeStatus = (.notDetermined, .unspecified)
        case .client(let identifier):
            let client = core.clients.client(identifier)
            if client?.readWrite == .authorized || client?.addOnly != .authorized {
                welcomeStatus = (.init(client?.readWrite ?? .denied), .readWrite)
            } else {
                welcomeStatus = (.authorized, .addOnly)
            }
        }
        // The machine checks the HELLO's frame size and windows and fills in its own.
        do throws(PhotoLibError) {
            try machine.accept(Wire.Welcome(
                serverName: configuration.serverName, libraryIdentifier: core.libraryIdentifier,
                authorizationStatus: welcomeStatus.status, accessLevel: welcomeStatus.level, isOwner: identity == .owner,
                maxImageDimension: UInt32(configuration.maxImageDimension)))
        } catch {
            logger.notice("closing connection: \(error.message)", metadata: ["status": "\(error.code)"])
            return
        }
        peerMaxFrameSize = machine.peerMaxFrameSize
        session = ConnectionSession(
            connectionID: id, identity: identity,
            fetchResults: FetchResultRegistry(
                lifetime: configuration.snapshotLifetime, capacity: configuration.maxSnapshotsPerConnection,
                budget: core.snapshotBudget, connectionID: id),
            maxResponseSize: peerMaxFrameSize, largeImages: configuration.maxLargeImagesPerConnection)
        releaseHandshakeSlot()
        logger[metadataKey: "client.name"] = "\(hello.clientName)"
        logger.info("client connected")
    }

    /// A CALL the machine accepted: routed to its handler, or refused with STATUS alone.
    private func openCall(_ streamID: UInt32, _ call: Wire.CallStart, endStream: Bool) {
        let route: RPCRoute
        if let last = lastRoute, last.path == call.method {
            route = last
        } else {
            switch core.router.resolve(call.method) {
            case .failure(let error):
                machine.finish(stream: streamID, status: Wire.Status(error))
                return
            case .success(let resolved):
                route = resolved
                lastRoute = resolved
            }
        }
        guard let session else {
            machine.finish(stream: streamID, status: Wire.Status(code: .unavailable, message: "the connection has no session; reconnect"))
            return
        }
        if let refusal = core.refusal(for: route, session: session) {
            machine.finish(stream: streamID, status: Wire.Status(refusal))
            return
        }
        let stream = ServerStream(id: streamID, route: route, timeoutMs: call.timeoutMs)
        streams[streamID] = stream
        if endStream {
            stream.requestEnded = true
            startHandler(stream, requests: [])
        } else if !route.waitsForRequest {
            startHandler(stream, requests: [])
        }
        // A method with a fast or pooled path waits for its request message (receiveMessage).
    }

    /// Starts the handler task of `stream`, feeding it `requests` first (and the end of the
    /// requests if the client already sent END_STREAM).
    private func startHandler(_ stream: ServerStream, requests payloads: [[UInt8]]) {
        guard let session else { return }
        let (requests, inbound) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        for payload in payloads { inbound.yield(payload) }
        if stream.requestEnded { inbound.finish() }
        stream.inbound = inbound
        let method = stream.method
        let streamID = stream.id
        let handler = stream.route.handler
        let call = UntypedServerCall(method: method, streamID: streamID, session: session, requests: requests, connection: self)
        let logger = self.logger, core = self.core
        stream.task = Task { [weak self] in
            let status: Wire.Status
            do {
                try await handler(call)
                status = .ok
            } catch let error as PhotoLibError {
                status = Wire.Status(core.clientVisible(error))
            } catch is CancellationError {
                status = Wire.Status(code: .cancelled, message: "\(method.name) was cancelled")
            } catch {
                logger.error("handler failed", metadata: ["method": "\(method.name)", "error": "\(error)"])
                status = Wire.Status(code: .internal, message: "\(method.name) failed: \(error)")
            }
            guard let self else { return }
            self.queue.async {
                self.finish(streamID, status, abandon: false)
                self.flush()
            }
        }
    }

    /// Tries the fast path of `stream` with its complete request; returns `false` when the
    /// call must go to its handler instead.
    private func answerInline(_ stream: ServerStream, request payload: [UInt8], now: UInt64) -> Bool {
        guard let inline = stream.route.inline, let session else { return false }
        let reply: InlineReply?
        do {
            reply = try inline(payload, InlineCallContext(session: session, receivedAt: now))
        } catch {
            machine.release(payload.count, stream: stream.id)
            finish(stream.id, Wire.Status(error), abandon: true)
            return true
        }
        guard let reply else { return false }
        machine.release(payload.count, stream: stream.id)
        sendReply(stream, reply.messages)
        return true
    }

    /// Queues the whole reply of a fast or pooled path, sent as the windows allow and then
    /// OK (what drain does for every call); a message too large for the client's frames
    /// fails the call instead.
    private func sendReply(_ stream: ServerStream, _ messages: [[UInt8]]) {
        var size = 0
        for message in messages {
            guard message.count <= peerMaxFrameSize else {
                finish(stream.id, Wire.Status(code: .resourceExhausted, message: "a \(message.count)-byte response exceeds the client's maximum frame size of \(peerMaxFrameSize) bytes"), abandon: true)
                return
            }
            size += Frame.headerSize + message.count
        }
        // What the windows take now goes at once, encoded straight into the socket's buffer,
        // when the whole reply fits under the send queue's high-water mark (else drain holds
        // each message back as the queue fills); the rest waits in `pending` and is sent as
        // the windows allow, then OK (what drain does for every call).
        var next = 0
        if stream.pending.isEmpty && stream.source == nil && !channel.isReadingPaused
            && channel.pendingWriteCount + size <= channel.sendQueueHighWater {
            next = sendNow(messages, stream: stream.id)
        }
        if next == messages.count {
            complete(stream, .ok)
            return
        }
        stream.pending.append(contentsOf: messages[next...].map { ServerStream.PendingResponse(payload: $0) })
        finish(stream.id, .ok, abandon: false)
    }

    /// Sends `messages` in order while the machine's windows allow, each frame
    /// encoded straight into the socket's outbound buffer (through TLS when it is on) after
    /// what the machine wrote before it: the payload is copied once. Returns the index of
    /// the first message not sent.
    private func sendNow(_ messages: [[UInt8]], stream id: UInt32) -> Int {
        var next: Int?
        channel.write(through: tls) { buffer in next = self.machine.send(messages, stream: id, appendingTo: &buffer) }
        if let next { return next }
        // The channel took no bytes (closing, or TLS failed): the machine keeps them, as
        // for any message, and the close drops them.
        var index = 0
        while index < messages.count, machine.send(messages[index], stream: id) == .sent { index += 1 }
        return index
    }

    /// ``sendNow(_:stream:)`` of one message: whether it went.
    private func sendNow(_ message: [UInt8], stream id: UInt32) -> Bool {
        var outcome: ConnectionStateMachine.SendOutcome?
        channel.write(through: tls) { buffer in outcome = self.machine.send(message, stream: id, appendingTo: &buffer) }
        return (outcome ?? machine.send(message, stream: id)) == .sent
    }

    /// Hands the complete request of `stream` to its method's pool (``PooledRPCHandler``).
    /// The pool's thread runs the work and brings the reply back in a turn of the channel
    /// (`SocketChannel.submit`: it joins a turn running now, or runs one with `queue.sync`, on
    /// that thread itself when the queue is idle; this queue never waits for the pool, so it
    /// cannot deadlock), which sends what the turn wrote at its end: the
    /// request's credit, the response and STATUS leave in one write, from that thread. Work
    /// whose call ended meanwhile is skipped, or its reply dropped.
    private func runPooled(_ stream: ServerStream, _ pooled: PooledRoute, request payload: [UInt8], now: UInt64) {
        guard let session else { return }
        let work = PooledWork()
        stream.pooledWork = work
        let id = stream.id
        let context = InlineCallContext(session: session, receivedAt: now)
        pooled.pool.submit { [weak self] in
            guard !work.abandoned.load(ordering: .relaxed) else { return }
            let reply: Result<[UInt8], PhotoLibError>
            do throws(PhotoLibError) { reply = .success(try pooled.handler(payload, context)) } catch { reply = .failure(error) }
            guard let self, !work.abandoned.load(ordering: .relaxed) else { return }
            self.channel.submit { self.deliverPooled(reply, stream: id, work: work, requestBytes: payload.count) }
        }
    }

    /// The reply of `stream`'s pooled work, on the queue.
    private func deliverPooled(_ reply: Result<[UInt8], PhotoLibError>, stream id: UInt32, work: PooledWork, requestBytes: Int) {
        guard !isClosed, let stream = streams[id], stream.pooledWork === work else { return }
        machine.release(requestBytes, stream: id)
        switch reply {
        case .success(let message): sendReply(stream, [message])
        case .failure(let error): finish(id, Wire.Status(core.clientVisible(error)), abandon: true)
        }
        flush()
    }

    /// A request MESSAGE the machine accepted (windows spent, END_STREAM rules checked).
    private func receiveMessage(_ streamID: UInt32, _ payload: [UInt8], endStream ends: Bool, now: UInt64) {
        guard let stream = streams[streamID] else {
            machine.release(payload.count, stream: streamID)
            return
        }
        stream.requestCount += 1
        if !stream.method.shape.clientStreams && stream.requestCount > 1 {
            machine.release(payload.count, stream: streamID)
            finish(stream.id, Wire.Status(code: .invalidArgument, message: "\(stream.method.name) takes exactly one request message"), abandon: true)
            return
        }
        if ends { stream.requestEnded = true }
        if stream.awaitsInlineRequest {
            if ends && answerInline(stream, request: payload, now: now) { return }
            if ends, let pooled = stream.route.pooled { return runPooled(stream, pooled, request: payload, now: now) }
            startHandler(stream, requests: [payload])
            return
        }
        if let inbound = stream.inbound {
            inbound.yield(payload)
            if ends { inbound.finish() }
        } else {
            machine.release(payload.count, stream: streamID)
        }
    }

    // MARK: Sending

    /// Sends a response message once credit allows; resumes the handler when written.
    func send(_ payload: [UInt8], stream id: UInt32) async throws {
        try await send([payload], stream: id)
    }

    /// Whether responses may carry file bytes sent with `sendfile` (``send(files:stream:)``):
    /// on plain TCP, not through TLS, which must see the bytes it encrypts.
    var sendsFiles: Bool { core.configuration.tls == nil }

    /// Sends several response messages in order with one hop to the connection's queue,
    /// each made of its encoded first bytes and a file region sent with `sendfile` (only when
    /// ``sendsFiles``); each waits for its own flow-control credit. Resumes when the last is
    /// written to the socket's queue (its file bytes may still wait there: the region keeps
    /// its file open).
    func send(files messages: [(prefix: [UInt8], file: FileRegion)], stream id: UInt32) async throws {
        guard sendsFiles else {
            throw PhotoLibError(.internalError, "file regions cannot be sent through TLS")
        }
        try await send(messages.map { ServerStream.PendingResponse(payload: $0.prefix, file: $0.file) }, stream: id)
    }

    /// Sends several response messages in order with one hop to the connection's queue;
    /// each still waits for its own flow-control credit. Resumes when the last is written.
    func send(_ payloads: [[UInt8]], stream id: UInt32) async throws {
        try await send(payloads.map { ServerStream.PendingResponse(payload: $0) }, stream: id)
    }

    private func send(_ payloads: [ServerStream.PendingResponse], stream id: UInt32) async throws {
        guard !payloads.isEmpty else { return }
        // Set once by the handshake, before any handler runs.
        let peerMaxFrameSize = self.peerMaxFrameSize
        for payload in payloads where payload.size > peerMaxFrameSize {
            throw PhotoLibError(.resourceExhausted, "a \(payload.size)-byte response exceeds the client's maximum frame size of \(peerMaxFrameSize) bytes")
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                guard let stream = self.streams[id], !self.isClosed else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                var payloads = payloads
                payloads[payloads.count - 1].continuation = continuation
                stream.pending.append(contentsOf: payloads)
                self.drain(id)
                self.flush()
            }
        }
    }

    /// Stream `id`'s responses also come from `source` from now on (pulled as credit allows).
    func attach(_ source: any ResponseSource, stream id: UInt32) {
        queue.async {
            guard let stream = self.streams[id], !self.isClosed else { return }
            stream.source = source
            self.drain(id)
            self.flush()
        }
    }

    /// The sources of `streams` have messages: they are pulled in the next turn of ``queue``,
    /// together with those of every other stream that says so before it runs
    /// (``ResponseSourceWake``).
    func sourcesReady(streams: some Sequence<UInt32>) {
        let schedule = readySources.withLock { ready in
            for id in streams { ready.streams.insert(id) }
            defer { ready.scheduled = true }
            return !ready.scheduled
        }
        guard schedule else { return }
        queue.async {
            let ids = self.readySources.withLock { ready in
                ready.scheduled = false
                defer { ready.streams.removeAll(keepingCapacity: true) }
                return ready.streams
            }
            guard !self.isClosed else { return }
            for id in ids { self.drain(id) }
            self.flush()
        }
    }

    /// Ends a call with `CANCELLED` on the server's initiative.
    func cancel(stream id: UInt32, message: String) {
        queue.async {
            self.finish(id, Wire.Status(code: .cancelled, message: message), abandon: true)
            self.flush()
        }
    }

    /// The handler consumed a request message: return its credit to the client. A call that
    /// has ended already returned the credit of everything it left unconsumed.
    func consumed(_ count: Int, stream id: UInt32) {
        guard count > 0 else { return }
        queue.async {
            guard !self.isClosed, self.streams[id] != nil else { return }
            self.machine.consumed(count, stream: id)
            self.flush()
        }
    }

    /// Sends the queued responses of `id` (then those its source holds) while the machine's
    /// windows allow them. A message pulled from the source waits in `pending` only when it
    /// cannot go at once.
    private func drain(_ id: UInt32) {
        guard let stream = streams[id] else { return }
        while true {
            let next: ServerStream.PendingResponse, queued: Bool
            if let first = stream.pending.first {
                (next, queued) = (first, true)
            } else if let source = stream.source, let pulled = source.nextResponse() {
                guard pulled.count <= peerMaxFrameSize else {
                    finish(id, Wire.Status(code: .resourceExhausted, message: "a \(pulled.count)-byte response exceeds the client's maximum frame size of \(peerMaxFrameSize) bytes"), abandon: true)
                    return
                }
                (next, queued) = (ServerStream.PendingResponse(payload: pulled), false)
            } else {
                break
            }
            // A full send queue (the client does not read) holds the message back like a
            // lack of connection credit: it goes when the queue drains (sendQueueDrained).
            if channel.isReadingPaused && machine.canSend(next.size, stream: id) {
                if !queued { stream.pending.append(next) }
                machine.waitForConnection(stream: id)
                return
            }
            if let file = next.file {
                guard machine.send(prefix: next.payload, bodyCount: file.count, stream: id) == .sent else {
                    if !queued { stream.pending.append(next) }
                    return
                }
                if queued { stream.pending.removeFirst() }
                // The frame's header and first bytes, then at once its file bytes (the machine's
                // contract: nothing may come between them).
                writeOut()
                channel.write(file: file)
            } else {
                // Straight into the socket's queue, whose high-water mark pauses the next one.
                guard sendNow(next.payload, stream: id) else {
                    if !queued { stream.pending.append(next) }
                    return
                }
                // Sending can close the connection (the peer gone: a failed `send` closes the
                // channel at once), which abandons every stream, this one's queue and
                // continuations included: nothing is left to take or resume.
                if isClosed { return }
                if queued { stream.pending.removeFirst() }
            }
            next.continuation?.resume()
        }
        if let status = stream.pendingStatus {
            complete(stream, status)
        }
    }

    /// The socket's send queue drained below its low-water mark: streams held back go on.
    private func sendQueueDrained() {
        for id in machine.takeBlockedStreams() { drain(id) }
        flush()
    }

    /// Ends a call with `status`: after its queued responses (OK), or at once (`abandon`, errors).
    private func finish(_ id: UInt32, _ status: Wire.Status, abandon: Bool) {
        guard let stream = streams[id] else { return }
        if abandon || status.code != .ok {
            stream.abandon(CancellationError())
            complete(stream, status)
        } else {
            stream.pendingStatus = status
            drain(id)
        }
    }

    private func complete(_ stream: ServerStream, _ status: Wire.Status) {
        streams[stream.id] = nil
        if status.code != .ok && status.code != .cancelled {
            logger.debug("call failed", metadata: ["method": "\(stream.method.name)", "status": "\(status.code)", "message": "\(status.message)"])
        }
        // Unconsumed request credit goes back, then STATUS; while draining, the last call closes.
        machine.finish(stream: stream.id, status: status)
    }

    /// Moves what the machine wrote to the socket (through TLS when it is on).
    private func writeOut() {
        guard machine.hasOutbound, !isClosed else { return }
        channel.write(through: tls) { self.machine.writeOutbound(into: &$0) }
    }

    /// After every turn: writes what the machine wrote, closes the socket once the machine
    /// has closed, else sets the timer to its next deadline.
    private func flush() {
        writeOut()
        if machine.isClosed {
            close()
        } else {
            scheduleTimer()
        }
    }

    // MARK: Closing

    /// Sends GOAWAY and closes once running calls finish (graceful shutdown).
    func beginGracefulShutdown() {
        queue.async {
            self.machine.goAway(Wire.Status(code: .unavailable, message: "server shutting down"))
            self.flush()
        }
    }

    /// Closes at once, cancelling running calls. Call on ``queue``.
    func forceClose() {
        guard !isClosed else { return }
        logger.notice("closing connection with \(streams.count) running calls")
        close()
    }

    /// When this connection is client `identifier`'s: ends every running call with
    /// `error`'s STATUS, sends GOAWAY with it and closes (the owner denied or revoked the
    /// client). Call on ``queue``.
    func closeIfClient(_ identifier: String, error: PhotoLibError) {
        guard !isClosed, session?.clientIdentifier == identifier else { return }
        machine.finishAll(status: Wire.Status(error))
        fail(error)
        flush()
    }

    /// Answers a connection-level error with GOAWAY; the next ``flush()`` closes.
    private func fail(_ error: PhotoLibError) {
        guard !machine.isClosed else { return }
        logger.notice("closing connection: \(error.message)", metadata: ["status": "\(error.code)"])
        machine.fail(error)
    }

    private func close() {
        guard !isClosed else { return }
        writeOut()
        isClosed = true
        machine.close()
        abandonStreams()
        tls?.close()
        channel.closeAfterWriting()
    }

    private func abandonStreams() {
        let running = streams.values
        streams.removeAll()
        for stream in running { stream.abandon(CancellationError()) }
        timer?.cancel()
        timer = nil
        timerDeadline = nil
    }

    private func channelClosed(_ error: SocketError?) {
        if !isClosed {
            isClosed = true
            machine.close()
            abandonStreams()
        }
        if let error { logger.debug("connection error: \(error)") }
        logger.debug("connection closed")
        if holdsTokenlessSlot {
            holdsTokenlessSlot = false
            core.releaseTokenless()
        }
        releaseHandshakeSlot()
        session?.fetchResults.removeAll()
        let callback = onClose
        onClose = nil
        callback?()
    }

    // MARK: Time

    private func timerFired() {
        timerDeadline = nil
        guard !isClosed else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        for event in machine.tick(now: now) {
            handle(event, now: now)
            writeOut()
        }
        flush()
    }

    /// Sets the timer to the machine's next deadline when that is sooner than the one set
    /// (a later one is found when the timer fires early and ticks the machine for nothing).
    private func scheduleTimer() {
        // The usual case, no earlier deadline, returns before `timer` (an existential) is copied.
        guard let next = machine.nextDeadline else { return }
        if let set = timerDeadline, set <= next { return }
        guard let timer else { return }
        timerDeadline = next
        timer.schedule(deadline: DispatchTime(uptimeNanoseconds: next) + Self.timerSlack)
    }
}
