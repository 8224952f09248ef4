import Dispatch
import Foundation
import Logging
import PhotoLibCore
import PhotoLibNet
import PhotoLibWire

/// One client connection: the handshake, then multiplexed calls (docs/PROTOCOL.md).
///
/// All state lives on ``queue``; handlers run as tasks and reach back through `queue.async`.
final class ServerConnection: @unchecked Sendable {
    private enum Phase {
        case awaitingHello
        case open
        case draining
        case closed
    }

    let id: UInt64
    let queue: DispatchQueue
    private let channel: SocketChannel
    private let core: ServerCore
    private var logger: Logger
    private var decoder = FrameDecoder(maxPayloadSize: WireLimits.maxHelloSize)
    private var phase = Phase.awaitingHello
    private var streams: [UInt32: ServerStream] = [:]
    private var highestStreamID: UInt32 = 0
    private var sendConnectionWindow: SendWindow
    private var receiveConnectionWindow: FlowWindow
    private var initialSendStreamWindow = WireLimits.defaultStreamWindow
    private var peerMaxFrameSize = WireLimits.defaultMaxFrameSize
    /// Streams whose next message waits for connection credit or for the socket's send
    /// queue to drain (see `SocketChannel.sendQueueHighWater`).
    private var blockedOnConnection: [UInt32] = []
    /// PINGs answered at most once per interval (see ``ControlFrameGuard``).
    private var controlFrames: ControlFrameGuard
    /// The peer address this connection counts under while its handshake is pending
    /// (`ServerCore.admitHandshake`), and whether it still counts. On ``queue``.
    private var holdsHandshakeSlot = false
    /// Connection credit granted but not yet announced (see ``grantConnection(_:)``).
    private var ungrantedConnectionCredit = 0
    /// Whether ``received(_:)`` is handling a batch of frames.
    private var handlingReceivedBytes = false
    private var lastFrameAt = DispatchTime.now()
    /// Whether this connection (opened without a token) counts against
    /// `ServerConfiguration.maxTokenlessConnections`; on ``queue``.
    private var holdsTokenlessSlot = false
    private let openedAt = DispatchTime.now()
    /// One-shot timer set to the next deadline (handshake, then idle), re-set when it fires:
    /// an idle connection wakes once per idle timeout, not every second.
    private var timer: (any DispatchSourceTimer)?
    /// TLS between the socket and the frame decoder (`ServerConfiguration.tls`); `nil`: plain TCP.
    private var tls: TLSStream?
    private(set) var session: ConnectionSession?
    /// Called once on close.
    var onClose: (() -> Void)?

    init(id: UInt64, fd: Int32, peer: Endpoint?, core: ServerCore) {
        self.id = id
        self.core = core
        // A connection's queue never blocks (reads run on it from an event loop's thread,
        // handlers in tasks), so it targets the non-overcommitting global queue: work arriving on many
        // connections at once (a flood of refusals, a change fanned out to all) is drained by
        // about one thread per core instead of a new thread per busy queue.
        self.queue = DispatchQueue(label: "photolibd.connection.\(id)", target: .global())
        self.channel = SocketChannel(fd: fd, peer: peer, queue: queue)
        self.receiveConnectionWindow = FlowWindow(initial: core.configuration.initialConnectionWindow)
        self.sendConnectionWindow = SendWindow(initial: WireLimits.defaultConnectionWindow, maximum: core.configuration.maxResponseConnectionWindow)
        self.controlFrames = ControlFrameGuard(interval: core.configuration.controlFrameInterval, threshold: core.configuration.maxUnansweredControlFrames)
        channel.sendQueueHighWater = core.configuration.maxSendQueueBytes
        channel.sendQueueLowWater = core.configuration.maxSendQueueBytes / 4
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
        guard phase == .awaitingHello else { return }
        holdsHandshakeSlot = false
        fail(error)
    }

    /// Starts reading and the timers. Call on ``queue``.
    func start() {
        if let context = core.configuration.tls {
            let channel = self.channel
            tls = try? TLSStream(serverContext: context) { channel.write($0) }
        }
        channel.onRead = { [weak self] bytes in self?.receivedFromSocket(bytes) }
        channel.onClose = { [weak self] error in self?.channelClosed(error) }
        channel.onWritable = { [weak self] in self?.sendQueueDrained() }
        // A refused registration closes the channel, and channelClosed has run.
        guard (try? channel.start()) != nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.checkTimeouts() }
        timer.schedule(deadline: .now() + core.configuration.handshakeTimeout + Self.timerSlack)
        timer.resume()
        self.timer = timer
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
        let goAway = Frame(.goAway, payload: Wire.GoAway(lastStreamID: 0, status: Wire.Status(error)).encoded()).encoded
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
    /// plaintext client is told in plaintext), else straight to the frame decoder.
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

    private func received(_ bytes: [UInt8]) {
        guard phase != .closed else { return }
        decoder.append(bytes)
        handlingReceivedBytes = true
        defer {
            handlingReceivedBytes = false
            flushConnectionCredit()
        }
        do throws(PhotoLibError) {
            while phase != .closed, let frame = try decoder.next() {
                // Only a complete frame counts as activity: a peer trickling bytes is idle.
                lastFrameAt = .now()
                try handle(frame)
            }
        } catch {
            fail(error)
        }
    }

    private func handle(_ frame: Frame) throws(PhotoLibError) {
        if phase == .awaitingHello {
            try handshake(frame)
            return
        }
        switch frame.type {
        case .call: try openCall(frame)
        case .message: try receiveMessage(frame)
        case .cancel: try cancelCall(frame)
        case .windowUpdate: try windowUpdate(frame)
        case .ping:
            guard frame.streamID == 0 else { throw violation("PING must be sent on stream 0") }
            if !frame.flags.contains(.ack) {
                _ = try Wire.Ping(decoding: frame.payload)
                switch controlFrames.admit(now: DispatchTime.now().uptimeNanoseconds) {
                case .answer: write(Frame(.ping, flags: .ack, payload: frame.payload))
                case .deferred(let nanoseconds):
                    let payload = frame.payload
                    queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) { [weak self] in
                        guard let self, self.phase != .closed else { return }
                        self.controlFrames.answerDeferred(now: DispatchTime.now().uptimeNanoseconds)
                        self.write(Frame(.ping, flags: .ack, payload: payload))
                    }
                case .drop: break
                case .goAway:
                    let configuration = core.configuration
                    throw PhotoLibError(
                        .resourceExhausted,
                        "more than \(configuration.maxUnansweredControlFrames) PINGs within \(configuration.controlFrameInterval) s: the server answers one PING per \(configuration.controlFrameInterval) s; send PINGs at most that often",
                        reason: .protocolViolation)
                }
            }
        case .goAway:
            logger.debug("client sent GOAWAY")
            beginDraining(status: nil)
        case .hello, .welcome, .status:
            throw violation("a client may not send \(frame.type) after the handshake")
        }
    }

    private func violation(_ message: String) -> PhotoLibError {
        PhotoLibError(.invalidArgument, message, reason: .protocolViolation)
    }

    private func handshake(_ frame: Frame) throws(PhotoLibError) {
        guard frame.type == .hello, frame.streamID == 0 else {
            throw violation("the first frame must be HELLO on stream 0, got \(frame.type) on stream \(frame.streamID)")
        }
        let hello = try Wire.Hello(decoding: frame.payload)
        guard hello.protocolVersion == WireLimits.protocolVersion else {
            throw PhotoLibError(.failedPrecondition, "protocol version \(hello.protocolVersion) is not supported; this server speaks version \(WireLimits.protocolVersion)")
        }
        guard let identity = core.authenticate(token: hello.token) else {
            logger.notice("handshake refused: wrong token", metadata: ["client.name": "\(hello.clientName)"])
            throw PhotoLibError(.unauthenticated, "the token is not valid for this library (a revoked client's token is not): pass the owner's token (DIR/owner.token) or a client token with --token or PHOTOLIB_TOKEN")
        }
        if identity == .unauthenticated {
            // Connections without a credential are few at a time: a flood of them cannot hold
            // the slots of clients that have one.
            guard core.admitTokenless() else {
                throw PhotoLibError(
                    .resourceExhausted,
                    "\(core.configuration.maxTokenlessConnections) connections without a token are open already; retry later")
            }
            holdsTokenlessSlot = true
        }
        let configuration = core.configuration
        peerMaxFrameSize = try WireLimits.maxFrameSize(announced: hello.maxFrameSize)
        initialSendStreamWindow = try WireLimits.window(announced: hello.initialStreamWindow, fallback: WireLimits.defaultStreamWindow, atLeast: peerMaxFrameSize, name: "Hello.initial_stream_window")
        // The client's windows, of which the server uses at most its configured maxima
        // (never less than one frame, or a largest message could never leave).
        sendConnectionWindow = SendWindow(
            initial: try WireLimits.window(announced: hello.initialConnectionWindow, fallback: WireLimits.defaultConnectionWindow, atLeast: peerMaxFrameSize, name: "Hello.initial_connection_window"),
            maximum: max(configuration.maxResponseConnectionWindow, peerMaxFrameSize))
        decoder.maxPayloadSize = configuration.maxFrameSize
        session = ConnectionSession(
            connectionID: id, identity: identity,
            fetchResults: FetchResultRegistry(
                lifetime: configuration.snapshotLifetime, capacity: configuration.maxSnapshotsPerConnection,
                budget: core.snapshotBudget, connectionID: id),
            maxResponseSize: peerMaxFrameSize)
        phase = .open
        releaseHandshakeSlot()
        logger[metadataKey: "client.name"] = "\(hello.clientName)"
        logger.info("client connected")
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
        let welcome = Wire.Welcome(
            protocolVersion: WireLimits.protocolVersion,
            serverName: configuration.serverName, libraryIdentifier: core.libraryIdentifier,
            maxFrameSize: UInt32(configuration.maxFrameSize), initialStreamWindow: UInt32(configuration.initialStreamWindow),
            initialConnectionWindow: UInt32(configuration.initialConnectionWindow),
            maxConcurrentStreams: UInt32(configuration.maxConcurrentStreams),
            idleTimeoutMs: UInt32(clamping: Int(configuration.idleTimeout * 1000)),
            authorizationStatus: welcomeStatus.status, accessLevel: welcomeStatus.level, isOwner: identity == .owner,
            maxImageDimension: UInt32(configuration.maxImageDimension))
        write(Frame(.welcome, payload: welcome.encoded()))
        scheduleTimeoutCheck()
    }

    private func openCall(_ frame: Frame) throws(PhotoLibError) {
        let streamID = frame.streamID
        guard streamID > highestStreamID else {
            throw violation("CALL on stream \(streamID) does not exceed the highest stream id used so far (\(highestStreamID))")
        }
        highestStreamID = streamID
        guard phase == .open else {
            writeStatus(streamID, Wire.Status(code: .unavailable, message: "the server is shutting down; reconnect later"))
            return
        }
        guard streams.count < core.configuration.maxConcurrentStreams else {
            writeStatus(streamID, Wire.Status(code: .resourceExhausted, message: "more than \(core.configuration.maxConcurrentStreams) concurrent calls on one connection"))
            return
        }
        let start: Wire.CallStart
        do {
            start = try Wire.CallStart(decoding: frame.payload)
        } catch {
            writeStatus(streamID, Wire.Status(error))
            return
        }
        let route: RPCRoute
        switch core.router.resolve(start.method) {
        case .failure(let error):
            writeStatus(streamID, Wire.Status(error))
            return
        case .success(let resolved):
            route = resolved
        }
        guard let session else { return }
        if let refusal = core.refusal(for: route.method, session: session) {
            writeStatus(streamID, Wire.Status(refusal))
            return
        }
        let method = route.method
        let stream = ServerStream(
            id: streamID, route: route, sendWindow: initialSendStreamWindow,
            maxSendWindow: max(core.configuration.maxResponseStreamWindow, peerMaxFrameSize), receiveWindow: core.configuration.initialStreamWindow)
        streams[streamID] = stream
        if start.timeoutMs > 0 {
            let item = DispatchWorkItem { [weak self] in
                self?.finish(streamID, Wire.Status(code: .deadlineExceeded, message: "\(method.name) did not finish within its deadline of \(start.timeoutMs) ms"), abandon: true)
            }
            stream.deadline = item
            queue.asyncAfter(deadline: .now() + .milliseconds(Int(min(start.timeoutMs, UInt64(Int32.max)))), execute: item)
        }
        if frame.flags.contains(.endStream) {
            stream.requestEnded = true
            startHandler(stream, requests: [])
        } else if route.inline == nil {
            startHandler(stream, requests: [])
        }
        // A method with a fast path waits for its request message (receiveMessage).
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
            self.queue.async { self.finish(streamID, status, abandon: false) }
        }
    }

    /// Tries the fast path of `stream` with its complete request; returns `false` when the
    /// call must go to its handler instead.
    private func answerInline(_ stream: ServerStream, request payload: [UInt8]) -> Bool {
        guard let inline = stream.route.inline, let session else { return false }
        let reply: InlineReply?
        do {
            reply = try inline(payload, InlineCallContext(session: session, receivedAt: lastFrameAt.uptimeNanoseconds))
        } catch {
            grantConnection(payload.count)
            finish(stream.id, Wire.Status(error), abandon: true)
            return true
        }
        guard let reply else { return false }
        grantConnection(payload.count)
        for message in reply.messages where message.count > peerMaxFrameSize {
            finish(stream.id, Wire.Status(code: .resourceExhausted, message: "a \(message.count)-byte response exceeds the client's maximum frame size of \(peerMaxFrameSize) bytes"), abandon: true)
            return true
        }
        // Sent as the windows allow, then OK (what drain does for every call).
        stream.pending.append(contentsOf: reply.messages.map { ($0, nil) })
        finish(stream.id, .ok, abandon: false)
        return true
    }

    private func receiveMessage(_ frame: Frame) throws(PhotoLibError) {
        guard frame.streamID != 0 else { throw violation("MESSAGE on stream 0") }
        try receiveConnectionWindow.spend(frame.payload.count)
        guard let stream = streams[frame.streamID] else {
            guard frame.streamID <= highestStreamID else {
                throw violation("MESSAGE on stream \(frame.streamID), which no CALL opened")
            }
            // A call that already ended: give the credit back and drop the message.
            grantConnection(frame.payload.count)
            return
        }
        guard !stream.requestEnded else {
            throw violation("MESSAGE on stream \(frame.streamID) after END_STREAM")
        }
        try stream.receiveWindow.spend(frame.payload.count)
        stream.requestCount += 1
        if !stream.method.shape.clientStreams && stream.requestCount > 1 {
            grantConnection(frame.payload.count)
            finish(stream.id, Wire.Status(code: .invalidArgument, message: "\(stream.method.name) takes exactly one request message"), abandon: true)
            return
        }
        let ends = frame.flags.contains(.endStream)
        if ends { stream.requestEnded = true }
        if stream.awaitsInlineRequest {
            if ends && answerInline(stream, request: frame.payload) { return }
            stream.unconsumedRequestBytes += frame.payload.count
            startHandler(stream, requests: [frame.payload])
            return
        }
        if let inbound = stream.inbound {
            stream.unconsumedRequestBytes += frame.payload.count
            inbound.yield(frame.payload)
            if ends { inbound.finish() }
        } else {
            grantConnection(frame.payload.count)
        }
    }

    private func cancelCall(_ frame: Frame) throws(PhotoLibError) {
        _ = try Wire.Cancel(decoding: frame.payload)
        guard let stream = streams.removeValue(forKey: frame.streamID) else { return }
        returnUnconsumedCredit(of: stream)
        logger.debug("call cancelled by client", metadata: ["stream.id": "\(frame.streamID)", "method": "\(stream.method.name)"])
        stream.abandon(CancellationError())
        blockedOnConnection.removeAll { $0 == stream.id }
        closeIfDrained()
    }

    private func windowUpdate(_ frame: Frame) throws(PhotoLibError) {
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
    }

    // MARK: Sending

    /// Sends a response message once credit allows; resumes the handler when written.
    func send(_ payload: [UInt8], stream id: UInt32) async throws {
        try await send([payload], stream: id)
    }

    /// Sends several response messages in order with one hop to the connection's queue;
    /// each still waits for its own flow-control credit. Resumes when the last is written.
    func send(_ payloads: [[UInt8]], stream id: UInt32) async throws {
        guard !payloads.isEmpty else { return }
        for payload in payloads where payload.count > peerMaxFrameSize {
            throw PhotoLibError(.resourceExhausted, "a \(payload.count)-byte response exceeds the client's maximum frame size of \(peerMaxFrameSize) bytes")
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                guard let stream = self.streams[id], self.phase != .closed else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                for (index, payload) in payloads.enumerated() {
                    stream.pending.append((payload, index == payloads.count - 1 ? continuation : nil))
                }
                self.drain(id)
            }
        }
    }

    /// Ends a call with `CANCELLED` on the server's initiative.
    func cancel(stream id: UInt32, message: String) {
        queue.async {
            self.finish(id, Wire.Status(code: .cancelled, message: message), abandon: true)
        }
    }

    /// The handler consumed a request message: return its credit to the client. A call that
    /// has ended already returned the credit of everything it left unconsumed.
    func consumed(_ count: Int, stream id: UInt32) {
        guard count > 0 else { return }
        queue.async {
            guard self.phase != .closed, let stream = self.streams[id] else { return }
            let returned = min(count, stream.unconsumedRequestBytes)
            stream.unconsumedRequestBytes -= returned
            self.grantConnection(returned)
            if !stream.requestEnded {
                try? stream.receiveWindow.grant(count)
                self.write(Frame(.windowUpdate, stream: id, payload: Wire.WindowUpdate(increment: UInt32(count)).encoded()))
            }
        }
    }

    /// A call ended (finished, failed or cancelled) with request bytes its handler never
    /// consumed: they still count against the connection window, so they are credited back
    /// now, or the connection's window would leak away with every refused request (9.4).
    private func returnUnconsumedCredit(of stream: ServerStream) {
        grantConnection(stream.unconsumedRequestBytes)
        stream.unconsumedRequestBytes = 0
    }

    /// Returns connection credit to the client. While a batch of received frames is being
    /// handled, the grants add up and go out as one WINDOW_UPDATE at its end.
    private func grantConnection(_ count: Int) {
        guard count > 0 else { return }
        try? receiveConnectionWindow.grant(count)
        ungrantedConnectionCredit += count
        if !handlingReceivedBytes { flushConnectionCredit() }
    }

    private func flushConnectionCredit() {
        guard ungrantedConnectionCredit > 0 else { return }
        let increment = UInt32(clamping: ungrantedConnectionCredit)
        ungrantedConnectionCredit -= Int(increment)
        write(Frame(.windowUpdate, payload: Wire.WindowUpdate(increment: increment).encoded()))
    }

    private func drain(_ id: UInt32) {
        guard let stream = streams[id] else { return }
        while let next = stream.pending.first {
            let size = next.payload.count
            guard stream.sendWindow.allows(size) else { return }
            // A full send queue (the client does not read) holds the message back like a
            // lack of connection credit: it goes when the queue drains (sendQueueDrained).
            guard sendConnectionWindow.allows(size), !channel.isReadingPaused else {
                if !blockedOnConnection.contains(id) { blockedOnConnection.append(id) }
                return
            }
            try? stream.sendWindow.spend(size)
            try? sendConnectionWindow.spend(size)
            stream.pending.removeFirst()
            write(Frame(.message, stream: id, payload: next.payload))
            next.continuation?.resume()
        }
        if let status = stream.pendingStatus {
            complete(stream, status)
        }
    }

    /// The socket's send queue drained below its low-water mark: streams held back go on.
    private func sendQueueDrained() {
        let blocked = blockedOnConnection
        blockedOnConnection = []
        for id in blocked { drain(id) }
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
        stream.deadline?.cancel()
        streams[stream.id] = nil
        returnUnconsumedCredit(of: stream)
        blockedOnConnection.removeAll { $0 == stream.id }
        if status.code != .ok && status.code != .cancelled {
            logger.debug("call failed", metadata: ["method": "\(stream.method.name)", "status": "\(status.code)", "message": "\(status.message)"])
        }
        writeStatus(stream.id, status)
        closeIfDrained()
    }

    private func writeStatus(_ streamID: UInt32, _ status: Wire.Status) {
        let payload = status == .ok ? Self.okStatusPayload : status.encoded()
        write(Frame(.status, stream: streamID, payload: payload))
    }

    /// The encoded `OK` status, which ends most calls.
    private static let okStatusPayload = Wire.Status.ok.encoded()

    private func write(_ frame: Frame) {
        guard phase != .closed else { return }
        if let tls { tls.write { frame.encode(into: &$0) } } else { channel.write { frame.encode(into: &$0) } }
    }

    // MARK: Closing

    /// Sends GOAWAY and closes once running calls finish (graceful shutdown).
    func beginGracefulShutdown() {
        queue.async {
            self.beginDraining(status: Wire.Status(code: .unavailable, message: "server shutting down"))
        }
    }

    private func beginDraining(status: Wire.Status?) {
        switch phase {
        case .awaitingHello:
            if let status { write(Frame(.goAway, payload: Wire.GoAway(lastStreamID: 0, status: status).encoded())) }
            close()
        case .open:
            phase = .draining
            if let status { write(Frame(.goAway, payload: Wire.GoAway(lastStreamID: highestStreamID, status: status).encoded())) }
            closeIfDrained()
        case .draining, .closed:
            break
        }
    }

    /// Closes at once, cancelling running calls. Call on ``queue``.
    func forceClose() {
        guard phase != .closed else { return }
        logger.notice("closing connection with \(streams.count) running calls")
        close()
    }

    private func closeIfDrained() {
        if phase == .draining && streams.isEmpty {
            close()
        }
    }

    /// When this connection is client `identifier`'s: ends every running call with
    /// `error`'s STATUS, sends GOAWAY with it and closes (the owner denied or revoked the
    /// client). Call on ``queue``.
    func closeIfClient(_ identifier: String, error: PhotoLibError) {
        guard phase != .closed, session?.clientIdentifier == identifier else { return }
        for id in streams.keys.sorted() { writeStatus(id, Wire.Status(error)) }
        fail(error)
    }

    /// Answers a connection-level error with GOAWAY and closes.
    private func fail(_ error: PhotoLibError) {
        guard phase != .closed else { return }
        logger.notice("closing connection: \(error.message)", metadata: ["status": "\(error.code)"])
        write(Frame(.goAway, payload: Wire.GoAway(lastStreamID: highestStreamID, status: Wire.Status(error)).encoded()))
        close()
    }

    private func close() {
        guard phase != .closed else { return }
        phase = .closed
        let running = streams.values
        streams = [:]
        for stream in running { stream.abandon(CancellationError()) }
        timer?.cancel()
        timer = nil
        tls?.close()
        channel.closeAfterWriting()
    }

    private func channelClosed(_ error: SocketError?) {
        if phase != .closed {
            phase = .closed
            let running = streams.values
            streams = [:]
            for stream in running { stream.abandon(CancellationError()) }
            timer?.cancel()
            timer = nil
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

    private func checkTimeouts() {
        let now = DispatchTime.now()
        let configuration = core.configuration
        switch phase {
        case .awaitingHello:
            if seconds(from: openedAt, to: now) > configuration.handshakeTimeout {
                fail(PhotoLibError(.deadlineExceeded, "no HELLO within \(configuration.handshakeTimeout) s of connecting"))
                return
            }
        case .open, .draining:
            // Idle: no complete frame for the timeout and no call the server is working on.
            // A call whose request side is still open waits for the client (an upload that
            // stalled, a subscription): the client's frames or PINGs keep it alive, not the call.
            if seconds(from: lastFrameAt, to: now) > configuration.idleTimeout && streams.values.allSatisfy({ !$0.requestEnded }) {
                fail(PhotoLibError(.unavailable, "idle for more than \(configuration.idleTimeout) s"))
                return
            }
        case .closed:
            return
        }
        scheduleTimeoutCheck()
    }

    /// Sets the timer to the next deadline: the handshake's, or the idle timeout counted from
    /// the last complete frame.
    private func scheduleTimeoutCheck() {
        guard let timer else { return }
        let configuration = core.configuration
        let now = DispatchTime.now()
        let deadline: DispatchTime
        switch phase {
        case .awaitingHello:
            deadline = openedAt + configuration.handshakeTimeout
        case .open, .draining:
            let idleAt = lastFrameAt + configuration.idleTimeout
            // A call in progress kept it alive: look again within a second of it ending.
            deadline = idleAt > now ? idleAt : now + min(configuration.idleTimeout, 1)
        case .closed:
            return
        }
        timer.schedule(deadline: deadline + Self.timerSlack)
    }

    private func seconds(from start: DispatchTime, to end: DispatchTime) -> Double {
        Double(end.uptimeNanoseconds &- start.uptimeNanoseconds) / 1e9
    }
}
