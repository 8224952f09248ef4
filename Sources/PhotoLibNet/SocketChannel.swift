import Dispatch
import Synchronization
internal import CEpoll
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A connected non-blocking socket whose state lives on a Dispatch queue: bytes in, bytes out.
///
/// Everything happens on ``queue`` (the channel's alone: ``isOnQueue`` reads a mark on it):
/// reads are delivered to ``onReadInPlace`` (the loop's read buffer itself, valid for the
/// call) or else to ``onRead`` (a copy), writes queue in an
/// outbound buffer drained when the socket is writable, and ``onClose`` runs once. Writing to
/// a peer that has gone away never raises `SIGPIPE` (`MSG_NOSIGNAL`).
///
/// Readiness: a started channel is registered with one ``EventLoop`` of
/// ``EventLoopGroup/shared`` (epoll, level-triggered). When the socket is readable (or
/// writable while output waits), the loop's thread runs a *turn* synchronously on ``queue``
/// — on the loop's thread itself when the queue is idle, the common case; the registration
/// changes only when what the channel wants does (reading paused, output waiting). A read turn reads what is available into the loop's one 64 KiB
/// buffer, delivers each chunk, and sends what each delivery wrote before reading the next,
/// so the peer works on the answers while this side handles the rest. A Dispatch read source
/// would cost three thread wake-ups per readable event on Linux (libdispatch's manager
/// thread, a worker, the manager again to re-arm); the loop costs one, which is most of a
/// small request's cost. A started channel lives until it is closed, by either side.
///
/// Back-pressure: when more than ``sendQueueHighWater`` bytes wait to be sent, the channel
/// stops reading from the peer (its read interest is not re-armed) until they drain below
/// ``sendQueueLowWater``; then ``onWritable`` runs. A peer that does not read cannot make
/// this side buffer its answers without bound.
///
/// Its stored `var`s are `@exclusivity(unchecked)`: confined to one queue, and never accessed
/// while an access to the same one is in progress (docs/ARCHITECTURE.md, "Exclusivity").
public final class SocketChannel: @unchecked Sendable {
    /// The queue all callbacks run on and all methods must be called on.
    public let queue: DispatchQueue
    /// The remote address, if known.
    public let peer: Endpoint?
    /// Called with each batch of bytes read.
    @exclusivity(unchecked) public var onRead: ([UInt8]) -> Void = { _ in }
    /// When set, called instead of ``onRead`` with each batch of bytes read, in the event
    /// loop's read buffer itself (valid only during the call): for an owner that copies what
    /// it keeps anyway (a frame decoder), one copy of every byte read fewer.
    @exclusivity(unchecked) public var onReadInPlace: ((UnsafeRawBufferPointer) -> Void)?
    /// Called once when the channel closes: `nil` after an orderly close or EOF.
    @exclusivity(unchecked) public var onClose: ((SocketError?) -> Void)?
    /// Called when the outbound buffer has drained to empty.
    @exclusivity(unchecked) public var onDrained: (() -> Void)?
    /// Called when queued output, having passed ``sendQueueHighWater``, drained below
    /// ``sendQueueLowWater``: writers that held back may go on.
    @exclusivity(unchecked) public var onWritable: (() -> Void)?
    /// Queued output above which the channel stops reading from the peer (bytes).
    @exclusivity(unchecked) public var sendQueueHighWater = 1 << 20
    /// Queued output below which reading resumes (bytes).
    @exclusivity(unchecked) public var sendQueueLowWater = 256 << 10

    private let fd: Int32
    @exclusivity(unchecked) private var outbound: [UInt8] = []
    @exclusivity(unchecked) private var outboundIndex = 0
    /// File regions queued with ``write(file:)``, in order, each sent after the bytes of
    /// ``outbound`` before index `at` (`at` moves when sent bytes are dropped from the front).
    @exclusivity(unchecked) private var regions: [(at: Int, region: FileRegion)] = []
    /// The bytes of ``regions`` still to send.
    @exclusivity(unchecked) private var regionBytes = 0
    @exclusivity(unchecked) private var closed = false
    @exclusivity(unchecked) private var started = false
    @exclusivity(unchecked) private var closeAfterFlush = false
    @exclusivity(unchecked) private var lingering = false
    @exclusivity(unchecked) private var flushScheduled = false
    /// The loop watching the socket, and the registration's token, once started.
    @exclusivity(unchecked) private var loop: EventLoop?
    @exclusivity(unchecked) private var token: UInt64 = 0
    /// The epoll interest registered now.
    @exclusivity(unchecked) private var armedInterest: UInt32 = 0
    /// Whether a `send` found the socket full: the rest waits for `EPOLLOUT`.
    @exclusivity(unchecked) private var waitingToWrite = false
    /// Whether reading is paused because queued output passed ``sendQueueHighWater``.
    @exclusivity(unchecked) private var readingPaused = false
    /// After the last bytes are sent, how long to wait for the peer's close before closing.
    @exclusivity(unchecked) public var lingerTimeout: Double = 2
    /// Whether a turn (a read turn, or ``submit(_:)``'s) is running: what it writes is sent
    /// when it ends (or at ``sendThreshold``), not in a separate queue turn.
    @exclusivity(unchecked) private var inTurn = false
    /// Consulted on ``queue`` at the end of each turn that ``submit(_:)`` runs, before it
    /// sends what waits: while it returns `true`, the bytes stay queued (up to
    /// ``sendThreshold``), because the owner expects more to follow at once; the owner then
    /// calls ``sendHeldWrites()`` as soon as it would return `false`. Read turns (and the work
    /// that joins them) send as usual. `nil`: never hold. A hold lasts at most
    /// ``heldWritesLimit``: the owner's release may never come (the task that would send
    /// may be waiting for a thread that waits for the held bytes' reply).
    @exclusivity(unchecked) public var holdsWrites: (() -> Bool)?
    /// How long held writes (``holdsWrites``) wait at most: a turn that holds schedules one
    /// send of what is still held this long after (one pending at a time, on ``queue``).
    @exclusivity(unchecked) public var heldWritesLimit: DispatchTimeInterval = .milliseconds(1)
    /// Whether a send of held writes after ``heldWritesLimit`` is scheduled (on ``queue``).
    @exclusivity(unchecked) private var heldWritesBackstopPending = false
    /// Whether a turn kept its writes (``holdsWrites``): set before the question is asked,
    /// so that an owner who changes the answer right after sees it.
    private let holdingWrites = Atomic<Bool>(false)
    /// Work handed to the turn running on ``queue`` by other threads (``submit(_:)``), and
    /// whether a turn will still run what is added. Guarded by this `Mutex` (a leaf: the work
    /// runs after release): tasks add to it, the turn on ``queue`` takes from it.
    private let shared = Mutex(SharedTurn())
    /// Queued bytes are sent at once when they reach this many, instead of at the end of
    /// the queue's turn: the peer starts on the first replies of a batch while the rest are
    /// produced. (Measured with `photolib bench images --warm --concurrency 16`: 256 KiB
    /// left both sides taking turns, idle half the time.)
    public static let sendThreshold = 32 << 10
    /// Capacity the outbound buffer keeps once empty, for the next frames; a larger buffer
    /// (after a burst) is released, so an idle connection holds little.
    public static let retainedOutboundCapacity = 64 << 10

    /// Takes ownership of a connected non-blocking socket. `queue` must be the channel's
    /// alone: ``isOnQueue`` reads a mark the channel sets on it, and a second channel on the
    /// same queue would take the first one's (whose turns would then wait for themselves).
    public init(fd: Int32, peer: Endpoint?, queue: DispatchQueue) {
        precondition(queue.getSpecific(key: Self.queueKey) == nil, "SocketChannel: the queue \(queue.label) already belongs to another channel")
        self.fd = fd
        self.peer = peer
        self.queue = queue
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
    }

    /// Marks ``queue`` as this channel's, for ``isOnQueue``.
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// Whether the caller runs on ``queue`` (a callback, a turn, or the owner's own block there).
    public var isOnQueue: Bool {
        DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self)
    }

    /// Bytes queued but not yet accepted by the kernel.
    public var pendingWriteCount: Int { outbound.count - outboundIndex + regionBytes }

    /// Whether the channel is closed.
    public var isClosed: Bool { closed }

    /// Whether reading is paused because too much output waits (see ``sendQueueHighWater``).
    public var isReadingPaused: Bool { readingPaused }

    /// Starts reading: registers the socket with an event loop of `group`. Call once, on
    /// ``queue``. Throws when the loop refuses the descriptor; the channel is then closed.
    public func start(group: EventLoopGroup = .shared) throws(SocketError) {
        precondition(!started, "SocketChannel.start() called twice")
        started = true
        let loop = group.nextLoop()
        do {
            token = try loop.register(fd: fd, interest: wantedInterest, oneShot: false, handler: self)
        } catch {
            close(error: error)
            throw error
        }
        self.loop = loop
        armedInterest = wantedInterest
    }

    /// Instead of ``start(group:)``: sends `bytes` with one non-blocking `send` (as much as the
    /// socket buffer takes) and closes the socket at once, never registered with a loop. For
    /// refusing a connection cheaply; input the peer already sent may make the kernel reset
    /// the connection, so the peer may not read the bytes. ``onClose`` is not called.
    public func sendAndClose(_ bytes: [UInt8]) {
        guard !closed, !started else { return }
        closed = true
        bytes.withUnsafeBytes { raw in _ = send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) }
        _ = shutdown(fd, Int32(SHUT_RDWR))
        _ = Glibc.close(fd)
        onClose = nil
        onRead = { _ in }
        onReadInPlace = nil
    }

    /// The epoll interest the channel wants now.
    private var wantedInterest: UInt32 {
        var interest: UInt32 = 0
        if !readingPaused { interest |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if waitingToWrite { interest |= EPOLLOUT.rawValue }
        return interest
    }

    /// Tells the loop when what the channel wants changed (on ``queue``).
    private func updateInterest() {
        guard let loop, !closed else { return }
        let wanted = wantedInterest
        guard wanted != armedInterest else { return }
        armedInterest = wanted
        loop.modify(fd: fd, token: token, interest: wanted, oneShot: false)
    }

    /// On the queue, from the loop's thread: the socket is ready. Reads (unless paused) until
    /// `EAGAIN` — so the level-triggered registration does not report the same input again —
    /// and sends what waits.
    fileprivate func loopTurn(events: UInt32, buffer: UnsafeMutableRawBufferPointer) {
        guard !closed else { return }
        if events & EPOLLOUT.rawValue != 0 { flush() }
        let hangUp = events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
        if !closed && !readingPaused && events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
            inTurn = true
            shared.withLock { $0.running = true }
            let progressed = readAvailable(into: buffer)
            if hangUp && !progressed && !closed {
                close(error: SocketError(call: "epoll", errno: ECONNRESET, context: peer?.description ?? ""))
            }
            endSharedTurn()
            inTurn = false
            sendPending()
        } else if hangUp && !closed {
            // Not reading (paused): a hang-up can only be seen by sending.
            flush()
            if !closed && pendingWriteCount == 0 {
                close(error: SocketError(call: "epoll", errno: ECONNRESET, context: peer?.description ?? ""))
            }
        }
        updateInterest()
    }

    /// Runs `work` on ``queue`` in a turn, whose writes leave in one `send` at its end. When
    /// a turn runs now (the loop's read turn, or another caller's) and will still take work,
    /// `work` joins it and this returns at once: it runs before that turn's writes go out,
    /// with no thread woken and no wait. Otherwise this runs a turn itself (`queue.sync`: on
    /// the calling thread when the queue is idle), which others may join in turn.
    ///
    /// For callers that may wait for the queue for a moment (a task, suspended in a
    /// continuation): not on ``queue`` itself, nor holding a lock that work on it takes.
    /// Returns whether `work` ran before this returned (`false`: it joined a running turn).
    @discardableResult
    public func submit(_ work: @escaping @Sendable () -> Void) -> Bool {
        let joined = shared.withLock { turn in
            guard turn.running else {
                turn.running = true
                return false
            }
            turn.waiting.append(work)
            return true
        }
        if joined { return false }
        queue.sync {
            inTurn = true
            work()
            endSharedTurn()
            inTurn = false
            sendUnlessHeld()
        }
        return true
    }

    /// On ``queue``, outside any turn (a block of the owner's own on the queue): runs `work`
    /// as a turn, whose writes leave in one `send` at its end instead of a `send` scheduled
    /// apart. Within a turn already, `work` just runs (its writes join that turn's).
    public func turn(_ work: () -> Void) {
        if inTurn { return work() }
        inTurn = true
        work()
        inTurn = false
        sendPending()
    }

    /// On ``queue``, outside a read turn: runs the read turn the loop would run, now: reads what
    /// the socket holds already and delivers it (its writes leave at the end). For a decision
    /// that must not miss input that arrived but has not been read yet, because the loop's
    /// turn for it has not come (the server's choice of a connection that sent no HELLO, in a
    /// burst of connections accepted before their first read). Reads in chunks of
    /// `chunkSize` bytes into a buffer of its own, allocated for the call (the loop's is only
    /// for the loop's thread). Returns whether anything happened (bytes, EOF or an error).
    @discardableResult
    public func readWaiting(chunkSize: Int) -> Bool {
        guard started, !closed, !readingPaused, !inTurn, chunkSize > 0 else { return false }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        inTurn = true
        shared.withLock { $0.running = true }
        let progressed = readAvailable(into: buffer)
        endSharedTurn()
        inTurn = false
        sendPending()
        updateInterest()
        return progressed
    }

    /// Sends what turns held back (``holdsWrites``), if they did: joins the turn running
    /// now, which sends at its end, or runs one on the calling thread. Call it when
    /// ``holdsWrites`` stops returning `true`, from any thread: on ``queue`` itself (where
    /// waiting for the queue would deadlock) a turn's end sends them, and outside a turn they
    /// are sent at once.
    public func sendHeldWrites() {
        guard holdingWrites.load(ordering: .sequentiallyConsistent) else { return }
        if isOnQueue {
            if !inTurn { sendPending() }
            return
        }
        submit {}
    }

    /// On ``queue``, in a turn: runs the work others handed to it so far (its writes join
    /// the turn's).
    private func runSubmitted() {
        let waiting = shared.withLock { turn -> [@Sendable () -> Void] in
            defer { turn.waiting = [] }
            return turn.waiting
        }
        for work in waiting { work() }
    }

    /// On ``queue``, at the end of a turn, before its writes go out: runs the work handed to
    /// it until none is left, and from then on takes no more (later callers run their own
    /// turn).
    private func endSharedTurn() {
        while true {
            let waiting = shared.withLock { turn -> [@Sendable () -> Void] in
                if turn.waiting.isEmpty { turn.running = false }
                defer { turn.waiting = [] }
                return turn.waiting
            }
            if waiting.isEmpty { return }
            for work in waiting { work() }
        }
    }

    /// Queues bytes for sending.
    ///
    /// Writes are coalesced: bytes queued during one turn of ``queue`` go out in one `send`
    /// at the end of it, so a call's frames (and several calls' frames) share syscalls.
    public func write(_ bytes: [UInt8]) {
        guard !closed, !closeAfterFlush, !bytes.isEmpty else { return }
        if outboundIndex == outbound.count && regions.isEmpty {
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
        if outboundIndex == outbound.count && regions.isEmpty {
            outbound.removeAll(keepingCapacity: outbound.capacity <= Self.retainedOutboundCapacity)
            outboundIndex = 0
        }
        encode(&outbound)
        guard pendingWriteCount > 0 else { return }
        scheduleFlush()
    }

    /// Queues `region` of a file, to be sent with `sendfile(2)` after everything queued before
    /// it and before anything queued after it: the file's bytes go from the page cache to the
    /// socket without being read into memory (plain sockets only: TLS must see the bytes).
    /// Coalesced and bounded like ``write(_:)`` (the region's bytes count as queued output).
    /// A file that ends before the region does closes the channel with `EIO`: the peer was
    /// promised bytes that cannot come.
    public func write(file region: FileRegion) {
        guard !closed, !closeAfterFlush, region.count > 0 else { return }
        regions.append((outbound.count, region))
        regionBytes += region.count
        scheduleFlush()
    }

    private func scheduleFlush() {
        // Large buffers go out at once; small ones wait for the end of this queue turn.
        if pendingWriteCount >= Self.sendThreshold {
            if !waitingToWrite { flush() }
        } else if !inTurn && !flushScheduled && !waitingToWrite {
            flushScheduled = true
            queue.async { [self] in
                flushScheduled = false
                sendPending()
            }
        }
        pauseReadingIfFull()
    }

    /// Stops reading when queued output passed the high-water mark.
    private func pauseReadingIfFull() {
        guard !readingPaused, !closeAfterFlush, pendingWriteCount > sendQueueHighWater else { return }
        readingPaused = true
        updateInterest()
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
        onReadInPlace = nil
        // Input is dropped from now on: reading goes on whatever is queued.
        if readingPaused {
            readingPaused = false
            updateInterest()
        }
        if pendingWriteCount == 0 { linger() } else { flush() }
    }

    private func linger() {
        guard !closed, !lingering else { return }
        lingering = true
        _ = shutdown(fd, Int32(SHUT_WR))
        // Strong: the channel must live until it is closed.
        queue.asyncAfter(deadline: .now() + lingerTimeout) { self.close(error: nil) }
    }

    /// Closes now, dropping unsent bytes.
    public func close(error: SocketError? = nil) {
        guard !closed else { return }
        closed = true
        if let loop {
            // A stale event already taken from epoll finds the token gone (or `closed`).
            loop.deregister(fd: fd, token: token)
            self.loop = nil
        }
        _ = Glibc.close(fd)
        outbound = []
        outboundIndex = 0
        regions = []
        regionBytes = 0
        let callback = onClose
        onClose = nil
        onRead = { _ in }
        onReadInPlace = nil
        onDrained = nil
        onWritable = nil
        callback?(error)
    }

    /// Reads and delivers until the socket has nothing more, or queued output passes the
    /// high-water mark. Returns whether anything happened: bytes read, EOF or an error.
    @discardableResult
    private func readAvailable(into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        var delivered = false
        while !closed && !readingPaused {
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if count > 0 {
                delivered = true
                let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                if let onReadInPlace { onReadInPlace(bytes) } else { onRead(Array(bytes)) }
                // What this chunk's delivery wrote, and what was handed to the turn meanwhile
                // (``submit(_:)``), leaves before the next chunk is read.
                runSubmitted()
                sendPending()
                pauseReadingIfFull()
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

    /// At the end of a submitted turn: sends what waits, unless the owner holds it
    /// (``holdsWrites``).
    private func sendUnlessHeld() {
        if let holds = holdsWrites, pendingWriteCount > 0 {
            holdingWrites.store(true, ordering: .sequentiallyConsistent)
            if holds() { return scheduleHeldWritesBackstop() }
            holdingWrites.store(false, ordering: .sequentiallyConsistent)
        }
        sendPending()
    }

    /// On ``queue``, when a turn held its writes: sends what is still held after
    /// ``heldWritesLimit``, whether or not the owner released it by then.
    private func scheduleHeldWritesBackstop() {
        guard !heldWritesBackstopPending else { return }
        heldWritesBackstopPending = true
        queue.asyncAfter(deadline: .now() + heldWritesLimit) { [weak self] in
            guard let self else { return }
            heldWritesBackstopPending = false
            guard holdingWrites.load(ordering: .sequentiallyConsistent) else { return }
            sendPending()
        }
    }

    /// Sends what is queued now, unless nothing is or the socket is full already (the loop
    /// sends the rest when it drains).
    private func sendPending() {
        guard !closed, pendingWriteCount > 0, !waitingToWrite else { return }
        flush()
    }

    private func flush() {
        guard !closed else { return }
        if holdsWrites != nil { holdingWrites.store(false, ordering: .sequentiallyConsistent) }
        while outboundIndex < outbound.count || !regions.isEmpty {
            let end = regions.first?.at ?? outbound.count
            let sent: Int
            if outboundIndex < end {
                // More to follow (a region): tell the kernel, so that a frame's header and its
                // file bytes share packets.
                let flags = Int32(MSG_NOSIGNAL) | (regions.isEmpty ? 0 : Int32(MSG_MORE))
                sent = outbound.withUnsafeBytes { raw in send(fd, raw.baseAddress! + outboundIndex, end - outboundIndex, flags) }
                if sent > 0 {
                    outboundIndex += sent
                    continue
                }
            } else {
                var region = regions[0].region
                var offset = off_t(region.offset)
                sent = sendfile(fd, region.descriptor, &offset, region.count)
                if sent > 0 {
                    region.offset += sent
                    region.count -= sent
                    regionBytes -= sent
                    if region.count == 0 { regions.removeFirst() } else { regions[0].region = region }
                    continue
                }
                if sent == 0 {
                    close(error: SocketError(call: "sendfile", errno: EIO, context: "the file ended before the bytes promised to \(peer?.description ?? "the peer")"))
                    return
                }
            }
            let code = errno, call = outboundIndex < end ? "send" : "sendfile"
            if sent < 0 && code == EINTR { continue }
            if sent < 0 && (code == EAGAIN || code == EWOULDBLOCK) {
                if !waitingToWrite {
                    waitingToWrite = true
                    updateInterest()
                }
                resumeReadingIfDrained()
                return
            }
            close(error: SocketError(call: call, errno: code, context: peer?.description ?? ""))
            return
        }
        // Keep a moderate buffer for the next frames (write(encoding:) appends to it).
        outbound.removeAll(keepingCapacity: outbound.capacity <= Self.retainedOutboundCapacity)
        outboundIndex = 0
        if waitingToWrite {
            waitingToWrite = false
            updateInterest()
        }
        if closeAfterFlush {
            linger()
            return
        }
        resumeReadingIfDrained()
        onDrained?()
    }

    /// Resumes reading (and tells ``onWritable``) once queued output is below the low-water mark.
    private func resumeReadingIfDrained() {
        guard readingPaused, pendingWriteCount <= sendQueueLowWater else { return }
        // Compact what was sent, so the buffer does not keep the whole burst.
        if outboundIndex > 0 && outboundIndex >= outbound.count / 2 {
            outbound.removeFirst(outboundIndex)
            for index in regions.indices { regions[index].at -= outboundIndex }
            outboundIndex = 0
        }
        readingPaused = false
        updateInterest()
        onWritable?()
    }
}

extension SocketChannel: EventLoopHandler {
    /// On the loop's thread: runs the turn on ``queue`` (synchronously, on this thread when
    /// the queue is idle), with the loop's read buffer.
    func ready(events: UInt32, on loop: EventLoop) {
        let buffer = loop.readBuffer
        queue.sync { loopTurn(events: events, buffer: buffer) }
    }
}

/// The turn running on a ``SocketChannel``'s queue, as other threads see it (``SocketChannel/submit(_:)``).
struct SharedTurn {
    /// Whether a turn runs (or is about to: its caller claimed it) that will still run
    /// ``waiting`` before it ends.
    var running = false
    /// Work handed to that turn, in order.
    var waiting: [@Sendable () -> Void] = []
}
