import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A connected non-blocking socket whose state lives on a Dispatch queue: bytes in, bytes out.
///
/// Everything happens on ``queue``: reads are delivered to ``onRead``, writes queue in an
/// outbound buffer drained when the socket is writable (a Dispatch write source), and
/// ``onClose`` runs once. Writing to a peer that has gone away never raises `SIGPIPE`
/// (`MSG_NOSIGNAL`).
///
/// Reading: each channel has one reader thread (the system's default thread stack, as
/// Dispatch's workers have) that waits in `poll` and then runs a *read turn* synchronously on
/// ``queue`` — on the reader thread itself when the queue is idle, the common case. A turn
/// reads what is available in chunks of up to 64 KiB, delivers each, and sends what each
/// delivery wrote before reading the next, so the peer works on the answers while this side
/// handles the rest. A Dispatch read source would cost three thread wake-ups per readable
/// event on Linux (libdispatch's manager thread, a worker, the manager again to re-arm); the
/// reader costs one, which is most of a small request's cost. A started channel lives until
/// it is closed, by either side.
public final class SocketChannel: @unchecked Sendable {
    /// The queue all callbacks run on and all methods must be called on.
    public let queue: DispatchQueue
    /// The remote address, if known.
    public let peer: Endpoint?
    /// Called with each batch of bytes read.
    public var onRead: ([UInt8]) -> Void = { _ in }
    /// Called once when the channel closes: `nil` after an orderly close or EOF.
    public var onClose: ((SocketError?) -> Void)?
    /// Called when the outbound buffer has drained to empty.
    public var onDrained: (() -> Void)?

    private let fd: Int32
    private var writeSource: (any DispatchSourceWrite)?
    private var writeSourceActive = false
    private var outbound: [UInt8] = []
    private var outboundIndex = 0
    private var closed = false
    private var started = false
    private var closeAfterFlush = false
    private var lingering = false
    private var flushScheduled = false
    /// After the last bytes are sent, how long to wait for the peer's close before closing.
    public var lingerTimeout: Double = 2
    private var readBuffer = [UInt8](repeating: 0, count: 64 << 10)
    /// Whether a turn (a read turn, or ``turn(_:)``) is running: what it writes is sent
    /// when it ends (or at ``sendThreshold``), not in a separate queue turn.
    private var inTurn = false
    /// Queued bytes are sent at once when they reach this many, instead of at the end of
    /// the queue's turn: the peer starts on the first replies of a batch while the rest are
    /// produced. (Measured with `photolib bench images --warm --concurrency 16`: 256 KiB
    /// left both sides taking turns, idle half the time.)
    public static let sendThreshold = 32 << 10

    /// Takes ownership of a connected non-blocking socket.
    public init(fd: Int32, peer: Endpoint?, queue: DispatchQueue) {
        self.fd = fd
        self.peer = peer
        self.queue = queue
    }

    deinit {
        // libdispatch traps when a suspended source is released: resume before cancelling.
        if let writeSource, !writeSourceActive { writeSource.resume() }
        writeSource?.cancel()
    }

    /// Bytes queued but not yet accepted by the kernel.
    public var pendingWriteCount: Int { outbound.count - outboundIndex }

    /// Whether the channel is closed.
    public var isClosed: Bool { closed }

    /// Starts reading (the reader thread). Call once, on ``queue``. Throws when the system
    /// refuses a thread; the channel is then closed.
    public func start() throws(SocketError) {
        precondition(!started, "SocketChannel.start() called twice")
        started = true
        let write = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
        write.setEventHandler { [weak self] in self?.flush() }
        // The descriptor is closed once the reader has stopped and the write source is
        // cancelled: never while the reader may still poll it.
        let group = DispatchGroup()
        group.enter()
        group.enter()
        write.setCancelHandler { group.leave() }
        group.notify(queue: queue) { [fd] in _ = Glibc.close(fd) }
        writeSource = write
        do {
            try ReaderThread.start { [self] in
                readLoop()
                group.leave()
            }
        } catch {
            group.leave()
            close(error: error)
            throw error
        }
    }

    /// Instead of ``start()``: sends `bytes` with one non-blocking `send` (as much as the
    /// socket buffer takes) and closes the socket at once, with no thread. For refusing a
    /// connection cheaply; input the peer already sent may make the kernel reset the
    /// connection, so the peer may not read the bytes. ``onClose`` is not called.
    public func sendAndClose(_ bytes: [UInt8]) {
        guard !closed, !started else { return }
        closed = true
        bytes.withUnsafeBytes { raw in _ = send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) }
        _ = shutdown(fd, Int32(SHUT_RDWR))
        _ = Glibc.close(fd)
        onClose = nil
        onRead = { _ in }
    }

    /// The reader thread's life: wait for input, run a read turn, until the channel closes.
    private func readLoop() {
        var waiter = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            waiter.revents = 0
            let ready = poll(&waiter, 1, -1)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 || waiter.revents & Int16(POLLNVAL) != 0 {
                let code = errno
                queue.sync { close(error: SocketError(call: "poll", errno: ready < 0 ? code : EBADF, context: peer?.description ?? "")) }
                return
            }
            let hangUp = waiter.revents & Int16(POLLHUP | POLLERR) != 0
            let open = queue.sync { readTurn(hangUp: hangUp) }
            if !open { return }
        }
    }

    /// On the queue, from the reader thread: reads and delivers everything available, then
    /// sends what was written meanwhile. Returns whether the channel is still open.
    ///
    /// `hangUp`: `poll` reported a hang-up or error. Reading then finds EOF or the error;
    /// should it find nothing at all, the channel closes rather than poll again forever.
    private func readTurn(hangUp: Bool) -> Bool {
        guard !closed else { return false }
        inTurn = true
        let progressed = readAvailable()
        inTurn = false
        if hangUp && !progressed && !closed {
            close(error: SocketError(call: "poll", errno: ECONNRESET, context: peer?.description ?? ""))
        }
        sendPending()
        return !closed
    }

    /// Runs `body` on ``queue`` and waits for it (`queue.sync`: on the calling thread when
    /// the queue is idle), then sends what it wrote. Never call it on ``queue`` itself.
    public func turn<T>(_ body: () throws -> T) rethrows -> T {
        try queue.sync {
            inTurn = true
            defer {
                inTurn = false
                sendPending()
            }
            return try body()
        }
    }

    /// Queues bytes for sending.
    ///
    /// Writes are coalesced: bytes queued during one turn of ``queue`` go out in one `send`
    /// at the end of it, so a call's frames (and several calls' frames) share syscalls.
    public func write(_ bytes: [UInt8]) {
        guard !closed, !closeAfterFlush, !bytes.isEmpty else { return }
        if outboundIndex == outbound.count {
            outbound = bytes
            outboundIndex = 0
        } else {
            outbound.append(contentsOf: bytes)
        }
        scheduleFlush()
    }

    /// Queues bytes that `encode` appends straight to the outbound buffer (no array of
    /// their own): how a protocol writes its frames. Coalesced like ``write(_:)``.
    public func write(encoding encode: (inout [UInt8]) -> Void) {
        guard !closed, !closeAfterFlush else { return }
        if outboundIndex == outbound.count {
            outbound.removeAll(keepingCapacity: outbound.capacity <= 4 << 20)
            outboundIndex = 0
        }
        encode(&outbound)
        guard pendingWriteCount > 0 else { return }
        scheduleFlush()
    }

    private func scheduleFlush() {
        // Large buffers go out at once; small ones wait for the end of this queue turn.
        if pendingWriteCount >= Self.sendThreshold {
            flush()
        } else if !inTurn && !flushScheduled && !writeSourceActive {
            flushScheduled = true
            queue.async { [self] in
                flushScheduled = false
                flush()
            }
        }
    }

    /// Closes after the queued bytes are sent (or the peer goes away).
    ///
    /// The close is graceful: the socket's sending side shuts down (the peer reads EOF after
    /// the last frame), and what the peer still sends is read and dropped until it closes too
    /// or ``lingerTimeout`` passes. Closing with unread input would make the kernel send a
    /// reset, and a peer could lose the final frames it had not read yet.
    public func closeAfterWriting() {
        guard !closed, !closeAfterFlush else { return }
        closeAfterFlush = true
        onRead = { _ in }
        if pendingWriteCount == 0 { linger() } else { flush() }
    }

    private func linger() {
        guard !closed, !lingering else { return }
        lingering = true
        _ = shutdown(fd, Int32(SHUT_WR))
        // Strong: the channel must live until its sources are cancelled.
        queue.asyncAfter(deadline: .now() + lingerTimeout) { self.close(error: nil) }
    }

    /// Closes now, dropping unsent bytes.
    public func close(error: SocketError? = nil) {
        guard !closed else { return }
        closed = true
        // Wakes the reader thread's poll; it sees `closed` and stops.
        _ = shutdown(fd, Int32(SHUT_RDWR))
        if let writeSource {
            if !writeSourceActive { writeSource.resume() }
            writeSource.cancel()
        }
        writeSource = nil
        outbound = []
        outboundIndex = 0
        let callback = onClose
        onClose = nil
        onRead = { _ in }
        onDrained = nil
        callback?(error)
    }

    /// Reads and delivers until the socket has nothing more. Returns whether anything
    /// happened: bytes read, EOF or an error.
    @discardableResult
    private func readAvailable() -> Bool {
        var delivered = false
        while !closed {
            let count = readBuffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                delivered = true
                onRead(Array(readBuffer[0..<count]))
                // What this chunk's delivery wrote leaves before the next chunk is read.
                sendPending()
                continue
            }
            if count == 0 {
                close(error: nil)
                return true
            }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return delivered }
            close(error: SocketError(call: "read", errno: code, context: peer?.description ?? ""))
            return true
        }
        return true
    }

    /// Sends what is queued now, unless nothing is or the write source is already waiting
    /// for the socket to drain (it sends the rest).
    private func sendPending() {
        guard !closed, pendingWriteCount > 0, !writeSourceActive else { return }
        flush()
    }

    private func flush() {
        guard !closed else { return }
        while outboundIndex < outbound.count {
            let sent = outbound.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + outboundIndex, raw.count - outboundIndex, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                outboundIndex += sent
                continue
            }
            let code = errno
            if sent < 0 && code == EINTR { continue }
            if sent < 0 && (code == EAGAIN || code == EWOULDBLOCK) {
                if !writeSourceActive {
                    writeSourceActive = true
                    writeSource?.resume()
                }
                return
            }
            close(error: SocketError(call: "send", errno: code, context: peer?.description ?? ""))
            return
        }
        // Keep a moderate buffer for the next frames (write(encoding:) appends to it).
        outbound.removeAll(keepingCapacity: outbound.capacity <= 4 << 20)
        outboundIndex = 0
        if writeSourceActive {
            writeSourceActive = false
            writeSource?.suspend()
        }
        if closeAfterFlush {
            linger()
            return
        }
        onDrained?()
    }
}
