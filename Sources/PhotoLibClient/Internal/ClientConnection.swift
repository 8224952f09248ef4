import Dispatch
import Foundation
import PhotoLibCore
import PhotoLibNet
import PhotoLibWire

/// The client end of one protocol connection: handshake, multiplexed calls, flow control,
/// deadlines, cancellation and keepalive (docs/PROTOCOL.md).
final class ClientConnection: @unchecked Sendable {
    private enum Phase {
        case awaitingWelcome(CheckedContinuation<Welcome, any Error>)
        case open
        case goingAway(lastStreamID: UInt32)
        case closed(PhotoLibError)
    }

    let queue = DispatchQueue(label: "photolib.client.connection")
    let configuration: ClientConfiguration
    private let channel: SocketChannel
    private var phase: Phase
    private var decoder: FrameDecoder
    private var streams: [UInt32: ClientStream] = [:]
    private var nextStreamID: UInt32 = 1
    private var sendConnectionWindow = FlowWindow(initial: WireLimits.defaultConnectionWindow)
    private var receiveConnectionWindow: FlowWindow
    private var initialSendStreamWindow = WireLimits.defaultStreamWindow
    private var serverMaxFrameSize = WireLimits.defaultMaxFrameSize
    private var blockedOnConnection: [UInt32] = []
    private var lastSentAt = DispatchTime.now()
    private var keepalive: (any DispatchSourceTimer)?
    private(set) var welcome: Welcome?

    private init(fd: Int32, endpoint: Endpoint, configuration: ClientConfiguration, continuation: CheckedContinuation<Welcome, any Error>) {
        self.configuration = configuration
        self.channel = SocketChannel(fd: fd, peer: endpoint, queue: queue)
        self.phase = .awaitingWelcome(continuation)
        self.decoder = FrameDecoder(maxPayloadSize: configuration.maxFrameSize)
        self.receiveConnectionWindow = FlowWindow(initial: configuration.initialConnectionWindow)
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
        var connection: ClientConnection?
        let welcome: Welcome = try await withCheckedThrowingContinuation { continuation in
            let created = ClientConnection(fd: fd, endpoint: endpoint, configuration: configuration, continuation: continuation)
            connection = created
            created.queue.async {
                created.start(hello: Hello(
                    token: token, clientName: clientName, maxFrameSize: UInt32(configuration.maxFrameSize),
                    initialStreamWindow: UInt32(configuration.initialStreamWindow),
                    initialConnectionWindow: UInt32(configuration.initialConnectionWindow)))
            }
        }
        guard let connection else { throw PhotoLibError(.internalError, "connection vanished during the handshake") }
        connection.queue.sync { connection.welcome = welcome }
        return connection
    }

    private func start(hello: Hello) {
        channel.onRead = { [weak self] bytes in self?.received(bytes) }
        channel.onClose = { [weak self] error in
            self?.closed(PhotoLibError(.unavailable, error.map { "connection lost: \($0)" } ?? "the server closed the connection"))
        }
        channel.start()
        write(Frame(.hello, payload: hello.encoded()))
    }

    // MARK: Calls

    /// Opens a call and sends its request messages; returns the response stream.
    func startCall(_ method: MethodDescriptor, requests: [[UInt8]], endStream: Bool, timeout: Double?) async throws -> (UInt32, AsyncThrowingStream<[UInt8], any Error>) {
        let (responses, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let id: UInt32 = try await withCheckedThrowingContinuation { (opened: CheckedContinuation<UInt32, any Error>) in
            queue.async {
                switch self.phase {
                case .closed(let error):
                    opened.resume(throwing: error)
                    return
                case .goingAway, .awaitingWelcome:
                    opened.resume(throwing: PhotoLibError(.unavailable, "the server is going away; reconnect"))
                    return
                case .open:
                    break
                }
                guard self.nextStreamID < Frame.maxStreamID else {
                    opened.resume(throwing: PhotoLibError(.resourceExhausted, "this connection has used every stream id; reconnect"))
                    return
                }
                let id = self.nextStreamID
                self.nextStreamID += 2
                let stream = ClientStream(
                    id: id, method: method, responses: continuation, sendWindow: self.initialSendStreamWindow,
                    receiveWindow: self.configuration.initialStreamWindow)
                self.streams[id] = stream
                let timeoutMs = timeout.map { UInt64(max(1, ($0 * 1000).rounded())) } ?? 0
                self.write(Frame(.call, stream: id, flags: requests.isEmpty && endStream ? .endStream : [], payload: CallStart(method: method.path, timeoutMs: timeoutMs).encoded()))
                if let timeout {
                    let item = DispatchWorkItem { [weak self] in
                        self?.abandon(id, PhotoLibError(.deadlineExceeded, "\(method.name) did not finish within \(timeout) s"))
                    }
                    stream.deadline = item
                    self.queue.asyncAfter(deadline: .now() + timeout, execute: item)
                }
                opened.resume(returning: id)
            }
        }
        continuation.onTermination = { [weak self] termination in
            if case .cancelled = termination { self?.cancel(id) }
        }
        for (index, payload) in requests.enumerated() {
            try await send(payload, stream: id, endStream: endStream && index == requests.count - 1)
        }
        return (id, responses)
    }

    /// Sends one request message, waiting for credit.
    func send(_ payload: [UInt8], stream id: UInt32, endStream: Bool) async throws {
        guard payload.count <= serverMaxFrameSize else {
            throw PhotoLibError(.resourceExhausted, "a \(payload.count)-byte request exceeds the server's maximum frame size")
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                guard let stream = self.streams[id] else {
                    continuation.resume(throwing: PhotoLibError(.cancelled, "the call has ended"))
                    return
                }
                stream.pending.append((payload, endStream, continuation))
                self.drain(id)
            }
        }
    }

    /// The application consumed a response message: give the server its credit back.
    func consumed(_ count: Int, stream id: UInt32) {
        guard count > 0 else { return }
        queue.async {
            if case .closed = self.phase { return }
            try? self.receiveConnectionWindow.grant(count)
            self.write(Frame(.windowUpdate, payload: WindowUpdate(increment: UInt32(count)).encoded()))
            if let stream = self.streams[id] {
                try? stream.receiveWindow.grant(count)
                self.write(Frame(.windowUpdate, stream: id, payload: WindowUpdate(increment: UInt32(count)).encoded()))
            }
        }
    }

    /// Cancels a call: sends CANCEL and ends its stream.
    func cancel(_ id: UInt32) {
        queue.async {
            guard let stream = self.streams.removeValue(forKey: id) else { return }
            self.write(Frame(.cancel, stream: id, payload: CancelMessage(reason: "cancelled by the client").encoded()))
            stream.end(PhotoLibError(.cancelled, "\(stream.method.name) was cancelled"))
        }
    }

    private func abandon(_ id: UInt32, _ error: PhotoLibError) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        write(Frame(.cancel, stream: id, payload: CancelMessage(reason: error.message).encoded()))
        stream.end(error)
    }

    /// Says goodbye and closes.
    func close() {
        queue.async {
            if case .closed = self.phase { return }
            self.write(Frame(.goAway, payload: GoAway(lastStreamID: 0, status: CallStatus(code: .ok, message: "client closing")).encoded()))
            self.closed(PhotoLibError(.cancelled, "the connection was closed by the client"))
            self.channel.closeAfterWriting()
        }
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
            next.continuation.resume()
        }
    }

    // MARK: Receiving

    private func received(_ bytes: [UInt8]) {
        decoder.append(bytes)
        do {
            while let frame = try decoder.next() {
                try handle(frame)
                if case .closed = phase { return }
            }
        } catch let error as PhotoLibError {
            protocolError(error)
        } catch {
            protocolError(PhotoLibError(.internalError, "\(error)"))
        }
    }

    private func handle(_ frame: Frame) throws(PhotoLibError) {
        switch frame.type {
        case .welcome:
            guard case .awaitingWelcome(let continuation) = phase else {
                throw PhotoLibError(.invalidArgument, "WELCOME after the handshake", reason: .protocolViolation)
            }
            let welcome = try Welcome(decoding: frame.payload)
            serverMaxFrameSize = try WireLimits.maxFrameSize(announced: welcome.maxFrameSize)
            initialSendStreamWindow = try WireLimits.window(announced: welcome.initialStreamWindow, fallback: WireLimits.defaultStreamWindow, atLeast: serverMaxFrameSize, name: "Welcome.initial_stream_window")
            sendConnectionWindow = FlowWindow(initial: try WireLimits.window(announced: welcome.initialConnectionWindow, fallback: WireLimits.defaultConnectionWindow, atLeast: serverMaxFrameSize, name: "Welcome.initial_connection_window"))
            phase = .open
            startKeepalive(idleTimeoutMs: Int(welcome.idleTimeoutMs))
            continuation.resume(returning: welcome)
        case .message:
            try receiveConnectionWindow.spend(frame.payload.count)
            guard let stream = streams[frame.streamID] else {
                // A call we cancelled: return the credit.
                try? receiveConnectionWindow.grant(frame.payload.count)
                if !frame.payload.isEmpty {
                    write(Frame(.windowUpdate, payload: WindowUpdate(increment: UInt32(frame.payload.count)).encoded()))
                }
                return
            }
            try stream.receiveWindow.spend(frame.payload.count)
            stream.responses.yield(frame.payload)
        case .status:
            let status = try CallStatus(decoding: frame.payload)
            guard let stream = streams.removeValue(forKey: frame.streamID) else { return }
            blockedOnConnection.removeAll { $0 == stream.id }
            stream.end(status.error)
            if case .goingAway = phase, streams.isEmpty { channel.closeAfterWriting() }
        case .windowUpdate:
            let update = try WindowUpdate(decoding: frame.payload)
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
            let goAway = try GoAway(decoding: frame.payload)
            let error = goAway.status.error ?? PhotoLibError(.unavailable, "the server is going away")
            if case .awaitingWelcome = phase {
                closed(error)
                channel.close()
                return
            }
            phase = .goingAway(lastStreamID: goAway.lastStreamID)
            for (id, stream) in streams where id > goAway.lastStreamID {
                streams[id] = nil
                stream.end(PhotoLibError(.unavailable, "the server went away before handling \(stream.method.name): \(error.message)"))
            }
            if streams.isEmpty { channel.closeAfterWriting() }
        case .hello, .call, .cancel:
            throw PhotoLibError(.invalidArgument, "the server sent \(frame.type), which only clients send", reason: .protocolViolation)
        }
    }

    private func protocolError(_ error: PhotoLibError) {
        write(Frame(.goAway, payload: GoAway(lastStreamID: 0, status: CallStatus(error)).encoded()))
        closed(error)
        channel.closeAfterWriting()
    }

    private func closed(_ error: PhotoLibError) {
        if case .closed = phase { return }
        let previous = phase
        phase = .closed(error)
        keepalive?.cancel()
        keepalive = nil
        if case .awaitingWelcome(let continuation) = previous {
            continuation.resume(throwing: error)
        }
        let open = streams.values
        streams = [:]
        for stream in open { stream.end(error) }
    }

    private func write(_ frame: Frame) {
        if case .closed = phase { return }
        lastSentAt = .now()
        channel.write(frame.encoded)
    }

    private func startKeepalive(idleTimeoutMs: Int) {
        guard idleTimeoutMs > 0 else { return }
        let interval = Double(idleTimeoutMs) / 2000
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval / 2, repeating: interval / 2)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let silent = Double(DispatchTime.now().uptimeNanoseconds &- self.lastSentAt.uptimeNanoseconds) / 1e9
            if silent >= interval {
                self.write(Frame(.ping, payload: Ping(opaque: UInt64(DispatchTime.now().uptimeNanoseconds)).encoded()))
            }
        }
        timer.resume()
        keepalive = timer
    }
}
