import Dispatch
internal import CEpoll
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening TCP socket that hands accepted connections to a callback on its queue.
///
/// Readiness comes from an ``EventLoop`` (one-shot): when connections wait, the loop's thread
/// hands one accept round to its queue (`async`: the listener's queue may be busy, and the
/// loop must not wait for it) and the round re-arms the socket when it is done.
public final class Listener: @unchecked Sendable {
    /// The address actually bound (with the real port when 0 was asked for).
    public let boundEndpoint: Endpoint
    private let fd: Int32
    private let queue: DispatchQueue
    /// The loop watching the socket and the registration's token, between ``start(onAccept:onExhausted:group:)``
    /// and ``stop()``. On ``queue``.
    private var loop: EventLoop?
    private var token: UInt64 = 0
    /// What an accept round does, set by ``start(onAccept:onExhausted:group:)``. On ``queue``.
    private var acceptRound: (() -> Void)?
    /// A descriptor kept open (on /dev/null) for one purpose: when the process has run out of
    /// descriptors, it is closed to accept one waiting connection, refuse it, and close it
    /// again, so the peer hears why instead of waiting. On ``queue``.
    private var spare: Int32 = -1
    /// How long accepting pauses after the process ran out of descriptors (doubling while it
    /// lasts, 10 ms … 1 s); 0 when accepting works. On ``queue``.
    private var backoff: Double = 0
    /// Whether accepting is paused for a backoff (the socket is not re-armed). On ``queue``.
    private var paused = false
    /// Whether ``stop()`` closed the socket. On ``queue``.
    private var closedSocket = false

    /// The longest pause in accepting while descriptors are exhausted (seconds).
    public static let maximumBackoff = 1.0

    /// Binds and listens on `endpoint` (port 0 picks a free port).
    public init(endpoint: Endpoint, backlog: Int32 = 256, queue: DispatchQueue) throws(SocketError) {
        let addresses = try SocketAddress.resolve(endpoint, passive: true)
        var lastError = SocketError(call: "bind", errno: EADDRNOTAVAIL, context: endpoint.description)
        for (family, address) in addresses {
            let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else {
                lastError = SocketError(call: "socket", errno: errno, context: endpoint.description)
                continue
            }
            SocketOptions.setInt(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            let bound = address.withUnsafeBytes { raw in
                bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
            }
            if bound != 0 || listen(fd, backlog) != 0 {
                lastError = SocketError(call: bound != 0 ? "bind" : "listen", errno: errno, context: endpoint.description)
                close(fd)
                continue
            }
            do {
                try SocketOptions.setNonBlocking(fd)
            } catch {
                close(fd)
                throw error
            }
            self.fd = fd
            self.queue = queue
            self.boundEndpoint = SocketAddress.endpoint(of: fd, peer: false) ?? endpoint
            return
        }
        throw lastError
    }

    /// Starts accepting; `onAccept` runs on the listener's queue with each new socket
    /// (non-blocking, `TCP_NODELAY`) and its peer's address.
    ///
    /// When the process runs out of file descriptors (EMFILE/ENFILE) the waiting connection
    /// would make the listening socket readable forever and the loop spin; instead one
    /// connection is accepted on the spare descriptor and handed to `onExhausted` (which
    /// must answer and close it quickly), and accepting pauses, 10 ms at first, doubling up to
    /// ``maximumBackoff`` while it lasts. `group`: the event loops, one of which watches the
    /// socket.
    public func start(onAccept: @escaping @Sendable (Int32, Endpoint?) -> Void, onExhausted: @escaping @Sendable (Int32) -> Void = { close($0) }, group: EventLoopGroup = .shared) {
        spare = open("/dev/null", O_RDONLY | O_CLOEXEC)
        acceptRound = { [weak self] in self?.acceptPending(onAccept: onAccept, onExhausted: onExhausted) }
        let loop = group.nextLoop()
        do {
            token = try loop.register(fd: fd, interest: EPOLLIN.rawValue, oneShot: true, handler: self)
            self.loop = loop
        } catch {
            // Only a broken descriptor or no memory for epoll: nothing will be accepted.
            stop()
        }
    }

    /// On ``queue``: one round of accepting, then the socket is armed again (unless paused
    /// or stopped).
    fileprivate func runAcceptRound() {
        guard let loop, let acceptRound else { return }
        acceptRound()
        if !paused, self.loop != nil { loop.modify(fd: fd, token: token, interest: EPOLLIN.rawValue, oneShot: true) }
    }

    private func acceptPending(onAccept: (Int32, Endpoint?) -> Void, onExhausted: (Int32) -> Void) {
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(fd, $0, &length) }
            }
            if client < 0 {
                let code = errno
                if code == EINTR || code == ECONNABORTED { continue }
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM { descriptorsExhausted(onExhausted) }
                // EAGAIN: drained; anything else: try again on the next event.
                return
            }
            backoff = 0
            do {
                try SocketOptions.setNonBlocking(client)
            } catch {
                close(client)
                continue
            }
            SocketOptions.setNoDelay(client)
            onAccept(client, SocketAddress.endpoint(from: storage))
        }
    }

    /// Refuses one waiting connection through the spare descriptor, then pauses accepting.
    private func descriptorsExhausted(_ onExhausted: (Int32) -> Void) {
        if spare >= 0 {
            close(spare)
            spare = -1
            let client = accept(fd, nil, nil)
            if client >= 0 { onExhausted(client) }
            spare = open("/dev/null", O_RDONLY | O_CLOEXEC)
        }
        guard loop != nil, !paused else { return }
        backoff = backoff == 0 ? 0.01 : min(Self.maximumBackoff, backoff * 2)
        paused = true
        queue.asyncAfter(deadline: .now() + backoff) { [weak self] in
            guard let self, self.paused else { return }
            self.paused = false
            if let loop = self.loop { loop.modify(fd: self.fd, token: self.token, interest: EPOLLIN.rawValue, oneShot: true) }
        }
    }

    /// Stops accepting and closes the socket. Call on the listener's queue.
    public func stop() {
        paused = false
        acceptRound = nil
        if let loop {
            loop.deregister(fd: fd, token: token)
            self.loop = nil
        }
        guard !closedSocket else { return }
        closedSocket = true
        _ = Glibc.close(fd)
        if spare >= 0 {
            _ = Glibc.close(spare)
            spare = -1
        }
    }
}

extension Listener: EventLoopHandler {
    /// On the loop's thread: hands an accept round to the listener's queue.
    func ready(events: UInt32, on loop: EventLoop) {
        queue.async { self.runAcceptRound() }
    }
}
