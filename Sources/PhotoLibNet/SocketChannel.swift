import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A connected non-blocking socket driven by Dispatch sources: bytes in, bytes out.
///
/// Everything happens on ``queue``: reads are delivered to ``onRead``, writes queue in an
/// outbound buffer drained when the socket is writable, and ``onClose`` runs once.
/// Writing to a peer that has gone away never raises `SIGPIPE` (`MSG_NOSIGNAL`).
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
    private var readSource: (any DispatchSourceRead)?
    private var writeSource: (any DispatchSourceWrite)?
    private var writeSourceActive = false
    private var outbound: [UInt8] = []
    private var outboundIndex = 0
    private var closed = false
    private var closeAfterFlush = false
    private var lingering = false
    private var flushScheduled = false
    /// After the last bytes are sent, how long to wait for the peer's close before closing.
    public var lingerTimeout: Double = 2
    private var readBuffer = [UInt8](repeating: 0, count: 64 << 10)

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
        readSource?.cancel()
    }

    /// Bytes queued but not yet accepted by the kernel.
    public var pendingWriteCount: Int { outbound.count - outboundIndex }

    /// Whether the channel is closed.
    public var isClosed: Bool { closed }

    /// Starts reading. Call once, on ``queue``.
    public func start() {
        let read = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        read.setEventHandler { [weak self] in self?.readAvailable() }
        let write = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
        write.setEventHandler { [weak self] in self?.flush() }
        // The descriptor is closed once both sources are cancelled.
        let group = DispatchGroup()
        group.enter()
        group.enter()
        read.setCancelHandler { group.leave() }
        write.setCancelHandler { group.leave() }
        group.notify(queue: queue) { [fd] in _ = Glibc.close(fd) }
        readSource = read
        writeSource = write
        read.resume()
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
        if pendingWriteCount >= 256 << 10 {
            flush()
        } else if !flushScheduled && !writeSourceActive {
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
        readSource?.cancel()
        if let writeSource {
            if !writeSourceActive { writeSource.resume() }
            writeSource.cancel()
        }
        readSource = nil
        writeSource = nil
        outbound = []
        outboundIndex = 0
        let callback = onClose
        onClose = nil
        onRead = { _ in }
        onDrained = nil
        callback?(error)
    }

    private func readAvailable() {
        guard !closed else { return }
        while !closed {
            let count = readBuffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                onRead(Array(readBuffer[0..<count]))
                continue
            }
            if count == 0 {
                close(error: nil)
                return
            }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return }
            close(error: SocketError(call: "read", errno: code, context: peer?.description ?? ""))
            return
        }
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
