import Dispatch
import Synchronization
internal import CEpoll
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What an ``EventLoop`` calls when a descriptor it watches is ready.
protocol EventLoopHandler: AnyObject, Sendable {
    /// On the loop's thread: `events` are epoll's bits (`EPOLLIN`, `EPOLLOUT`, `EPOLLHUP`…).
    /// A one-shot registration is disarmed until the handler re-arms it.
    func ready(events: UInt32, on loop: EventLoop)
}

/// One epoll instance and the one thread that waits on it: readiness of many sockets.
///
/// A socket's registration is level-triggered and stays armed: its handler runs its turn
/// synchronously (`queue.sync` on the socket's own serial queue, which never blocks by
/// design, see ``SocketChannel``) and reads until `EAGAIN` before the loop waits again, so
/// the same readiness is never reported twice, and the interest changes (`epoll_ctl`) only
/// when the socket's wishes do (reading paused for back-pressure, output waiting for room):
/// no syscall per turn beyond `epoll_wait` and the reads. A handler that hands its work to
/// another queue (the listener's accept round) registers one-shot (`EPOLLONESHOT`) instead
/// and re-arms when done. `epoll_ctl` is safe from any thread while the loop waits, so
/// registering and changing interest need no wake-up. Handlers run on the loop's thread and
/// must not block.
///
/// The loop owns one read buffer, used by every read it runs: memory for
/// reading costs 64 KiB per loop, not per connection.
public final class EventLoop: Sendable {
    /// Bytes of the loop's read buffer: the most one `read` takes from a socket.
    public static let readBufferSize = 64 << 10

    /// The loop's name (its thread's name): `photolib.loop.N`.
    public let name: String
    private let epoll: Int32
    /// The registered handlers by token (the token travels in `epoll_event.data`; a stale
    /// event of a descriptor deregistered meanwhile finds nothing). Guarded by this `Mutex`:
    /// registration happens on connection queues, lookups on the loop's thread.
    private let handlers = Mutex<[UInt64: any EventLoopHandler]>([:])
    /// The last token handed out (tokens are never reused, descriptors are).
    private let lastToken = Atomic<UInt64>(0)
    /// The buffer every read on this loop's thread uses; only touched on that thread.
    nonisolated(unsafe) let readBuffer: UnsafeMutableRawBufferPointer

    /// Creates the epoll instance and starts the loop's thread.
    init(name: String) throws(SocketError) {
        self.name = name
        epoll = try syscall("epoll_create1", name) { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 16)
        do {
            try LoopThread.start(name: name) { [self] in run() }
        } catch {
            _ = Glibc.close(epoll)
            readBuffer.deallocate()
            throw error
        }
    }

    /// Watches `fd` for `interest` (epoll bits; with `oneShot`, `EPOLLONESHOT` is added),
    /// calling `handler` on the loop's thread. Returns the registration's token. The handler
    /// is kept until ``deregister(fd:token:)``.
    func register(fd: Int32, interest: UInt32, oneShot: Bool, handler: any EventLoopHandler) throws(SocketError) -> UInt64 {
        let token = lastToken.add(1, ordering: .relaxed).newValue
        handlers.withLock { $0[token] = handler }
        var event = epoll_event()
        event.events = interest | (oneShot ? EPOLLONESHOT.rawValue : 0)
        event.data.u64 = token
        do {
            try syscall("epoll_ctl", "EPOLL_CTL_ADD") { epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) }
        } catch {
            handlers.withLock { _ = $0.removeValue(forKey: token) }
            throw error
        }
        return token
    }

    /// Sets what `fd` is watched for (`oneShot`: arms it for one event again). With
    /// `interest` 0 only errors and hang-ups are reported.
    func modify(fd: Int32, token: UInt64, interest: UInt32, oneShot: Bool) {
        var event = epoll_event()
        event.events = interest | (oneShot ? EPOLLONESHOT.rawValue : 0)
        event.data.u64 = token
        _ = epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event)
    }

    /// Stops watching `fd` and drops its handler; call before closing the descriptor.
    func deregister(fd: Int32, token: UInt64) {
        var event = epoll_event()
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &event)
        handlers.withLock { _ = $0.removeValue(forKey: token) }
    }

    /// The loop thread's life: wait, dispatch each ready descriptor to its handler, forever.
    private func run() {
        let capacity = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        while true {
            let count = epoll_wait(epoll, events, Int32(capacity), -1)
            if count < 0 {
                // EINTR: a signal; nothing else can fail on a valid epoll descriptor.
                continue
            }
            for index in 0..<Int(count) {
                let event = events[index]
                let token = event.data.u64
                guard let handler = handlers.withLock({ $0[token] }) else { continue }
                handler.ready(events: event.events, on: self)
            }
        }
    }
}

/// The few event loops every socket of the process shares: a fixed number of threads,
/// whatever the number of connections.
public final class EventLoopGroup: Sendable {
    /// The loops; sockets are spread over them in turn.
    public let loops: [EventLoop]
    private let next = Atomic<Int>(0)

    /// The process's group: one loop per core, at most two (`PHOTOLIB_EVENT_LOOPS` overrides,
    /// 1…16). Created on first use; its threads live as long as the process.
    public static let shared: EventLoopGroup = {
        let cores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        var count = min(2, cores)
        if let text = getenv("PHOTOLIB_EVENT_LOOPS"), let asked = Int(String(cString: text)), (1...16).contains(asked) {
            count = asked
        }
        do {
            return try EventLoopGroup(count: count)
        } catch {
            fatalError("cannot start the event loops: \(error) — the system refused a thread or an epoll instance")
        }
    }()

    /// Starts `count` loops.
    public init(count: Int) throws(SocketError) {
        var loops: [EventLoop] = []
        for index in 0..<max(1, count) {
            loops.append(try EventLoop(name: "photolib.loop.\(index)"))
        }
        self.loops = loops
    }

    /// The loop for the next socket (round robin).
    public func nextLoop() -> EventLoop {
        loops[next.add(1, ordering: .relaxed).oldValue % loops.count]
    }
}

/// A detached POSIX thread with a name, for an event loop.
enum LoopThread {
    /// The body a thread runs, boxed to cross `pthread_create`'s `void *`.
    private final class Body {
        let name: String
        let run: () -> Void
        init(name: String, _ run: @escaping () -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// Starts a detached thread named `name` running `body`. Throws (`pthread_create`'s
    /// error) when the system refuses a thread.
    static func start(name: String, _ body: @escaping () -> Void) throws(SocketError) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let context = Unmanaged.passRetained(Body(name: name, body)).toOpaque()
        var thread = pthread_t()
        let code = pthread_create(&thread, &attributes, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            // Linux limits thread names to 15 bytes.
            _ = CEpoll_name_this_thread(String(body.name.prefix(15)))
            body.run()
            return nil
        }, context)
        guard code == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw SocketError(call: "pthread_create", errno: code, context: name)
        }
    }
}
