import Dispatch
import Foundation
import Logging
import PhotoLibCore
import PhotoLibNet
import PhotoLibStore
import PhotoLibWire

/// The PhotoLib server: accepts TCP connections (or is handed connected sockets, see
/// ``serve(connectedSocket:)``) and serves a library over the protocol.
///
/// Lifecycle as in grpc-swift: ``start()``, then ``serve()`` until
/// ``beginGracefulShutdown()`` (SIGTERM / SIGINT in `photolibd`).
///
/// `@unchecked Sendable`: every `var` below is read and written only on `queue`
/// (`photolibd.server`, serial: accepting, the connection table, shutdown).
public final class PhotoLibServer: @unchecked Sendable {
    /// The address the server listens on (the real port when 0 was asked for); `nil` for a
    /// server made without one, which serves only sockets it is handed.
    public var listeningEndpoint: Endpoint? { listener?.boundEndpoint }

    private let core: ServerCore
    private let listener: Listener?
    private let queue = DispatchQueue(label: "photolibd.server")
    private var connections: [UInt64: ServerConnection] = [:]
    private var nextConnectionID: UInt64 = 1
    /// Refused connections still lingering (see ``maxLingeringRefusals``); on ``queue``.
    private var lingeringRefusals = 0
    private var shuttingDown = false
    private var stopped: [CheckedContinuation<Void, Never>] = []
    private var isStopped = false
    private let logger: Logger
    private let maintenance: Maintenance
    private let hub: ChangeHub
    private let service: PhotoLibraryService

    /// Binds `endpoint` and prepares to serve `library`.
    public convenience init(library: PhotoLibrary, endpoint: Endpoint, configuration: ServerConfiguration = ServerConfiguration(), logger: Logger) throws {
        try self.init(library: library, listeningOn: endpoint, configuration: configuration, logger: logger)
    }

    /// Prepares to serve `library` without listening anywhere: it serves the connected
    /// sockets handed to ``serve(connectedSocket:)`` (the in-process transport of the tests,
    /// or descriptors inherited from a supervisor).
    public convenience init(library: PhotoLibrary, configuration: ServerConfiguration = ServerConfiguration(), logger: Logger) throws {
        try self.init(library: library, listeningOn: nil, configuration: configuration, logger: logger)
    }

    private init(library: PhotoLibrary, listeningOn endpoint: Endpoint?, configuration requested: ServerConfiguration, logger: Logger) throws {
        // Every memory budget capped at its share of maxMemory.
        let configuration = requested.effective
        self.logger = logger
        let clients = try ClientDirectory(library: library, logger: logger)
        let service = PhotoLibraryService(library: library, configuration: configuration, logger: logger, clients: clients)
        self.maintenance = Maintenance(service: service, configuration: configuration, logger: logger)
        self.hub = service.hub
        self.service = service
        var router = RPCRouter()
        service.register(in: &router)
        self.core = ServerCore(
            configuration: configuration, router: router, logger: logger,
            libraryIdentifier: library.libraryIdentifier, ownerToken: try library.ownerToken(), libraryDirectory: library.directory, clients: clients)
        guard let endpoint else {
            self.listener = nil
            service.statisticsSource.set { [weak self] in self?.statistics }
            service.clientConnections.set { [weak self] identifier, error in self?.closeConnections(ofClient: identifier, error: error) }
            return
        }
        do {
            self.listener = try Listener(endpoint: endpoint, queue: queue)
        } catch {
            throw PhotoLibError(.unavailable, "cannot listen on \(endpoint): \(error)")
        }
        service.statisticsSource.set { [weak self] in self?.statistics }
        service.clientConnections.set { [weak self] identifier, error in self?.closeConnections(ofClient: identifier, error: error) }
    }

    /// What each bounded resource holds now beside its limit (`GetLibraryInfo` for the owner
    /// and `photolibd stats` report it). Waits briefly for the server's and the change feed's
    /// queues; do not call it from them.
    public var statistics: ServerStatistics {
        let snapshots = core.snapshotBudget.usage
        let (_, registrations) = hub.registrationCounts
        let live = hub.liveResultUsage
        return ServerStatistics(
            maxMemory: core.configuration.maxMemory, residentBytes: ServerStatistics.residentBytes(),
            connections: queue.sync { connections.count }, connectionLimit: core.configuration.maxConnections,
            snapshotBytes: snapshots.bytes, snapshotLimit: snapshots.limit,
            snapshotsReleased: snapshots.released, liveResults: live.count, liveResultLimit: hub.liveResultLimit,
            liveResultBytes: live.bytes, liveResultByteLimit: live.byteLimit, registrations: registrations,
            imageCacheBytes: service.imageCache.memory.heldBytes, imageCacheLimit: service.imageCache.memory.budget)
    }

    /// Starts accepting connections.
    public func start() {
        hub.start()
        maintenance.start()
        queue.async {
            self.listener?.start(
                onAccept: { [weak self] fd, peer in self?.accepted(fd: fd, peer: peer) },
                onExhausted: { [weak self] fd in self?.refuseForLackOfDescriptors(fd) })
        }
    }

    /// Serves a connected stream socket exactly as an accepted connection (same limits,
    /// handshake and shutdown); the server owns `fd` from now on. Call after ``start()``.
    public func serve(connectedSocket fd: Int32) {
        queue.async { self.accepted(fd: fd, peer: nil) }
    }

    /// Waits until the server has stopped.
    public func serve() async {
        await withCheckedContinuation { continuation in
            queue.async {
                if self.isStopped { continuation.resume() } else { self.stopped.append(continuation) }
            }
        }
    }

    /// Stops accepting, sends GOAWAY to every client, lets running calls finish within the
    /// grace period, then closes what is left.
    public func beginGracefulShutdown() {
        queue.async {
            guard !self.shuttingDown else { return }
            self.shuttingDown = true
            self.logger.info("shutting down", metadata: ["connections": "\(self.connections.count)"])
            self.listener?.stop()
            self.maintenance.stop()
            // GOAWAY first (queued on each connection's queue now), then the subscriptions
            // end (their STATUS UNAVAILABLE reaches the connection's queue after it): a client
            // learns that the server is going away before its change feed stops.
            for connection in self.connections.values { connection.beginGracefulShutdown() }
            self.hub.stop()
            self.queue.asyncAfter(deadline: .now() + self.core.configuration.shutdownGracePeriod) {
                for connection in self.connections.values {
                    connection.queue.async { connection.forceClose() }
                }
            }
            self.stopIfIdle()
        }
    }

    /// Refused connections that may linger at once (each until its peer closes, at most
    /// `SocketChannel.lingerTimeout`); more are refused with one `send` and closed at once.
    public static let maxLingeringRefusals = 64

    private func accepted(fd: Int32, peer: Endpoint?) {
        let id = nextConnectionID
        nextConnectionID += 1
        let connection = ServerConnection(id: id, fd: fd, peer: peer, core: core)
        guard !shuttingDown, connections.count < core.configuration.maxConnections else {
            let error = shuttingDown
                ? PhotoLibError(.unavailable, "the server is shutting down")
                : PhotoLibError(.resourceExhausted, "the server already has \(core.configuration.maxConnections) connections; try again later")
            // Each lingering refusal holds its socket for up to 2 s: a flood of connections
            // beyond the limit is refused with one send and closed at once instead.
            let linger = lingeringRefusals < Self.maxLingeringRefusals
            if linger {
                lingeringRefusals += 1
                connection.onClose = { [weak self] in
                    guard let self else { return }
                    self.queue.async { self.lingeringRefusals -= 1 }
                }
            }
            connection.queue.async { connection.refuse(error, linger: linger) }
            return
        }
        // Before anything is read: beyond the limits on handshakes in progress the oldest
        // waiting connection makes room, so silent connections cannot fill the connection
        // table nor keep a client that says HELLO at once from getting in.
        let address = peer?.host
        if let (evicted, error) = core.admitHandshake(id: id, from: address), let victim = connections[evicted] {
            victim.queue.async { victim.closeBeforeHandshake(error) }
        }
        connection.holdHandshakeSlot()
        connections[id] = connection
        connection.onClose = { [weak self] in
            guard let self else { return }
            self.queue.async {
                self.connections[id] = nil
                self.stopIfIdle()
            }
        }
        connection.queue.async { connection.start() }
    }

    /// Ends every open connection of client `identifier` with `error` (the owner denied or
    /// revoked it): their calls get `error`'s STATUS, then GOAWAY, then the socket closes.
    func closeConnections(ofClient identifier: String, error: PhotoLibError) {
        queue.async {
            for connection in self.connections.values {
                connection.queue.async { connection.closeIfClient(identifier, error: error) }
            }
        }
    }

    /// When the last exhaustion warning was logged; on ``queue``.
    private var lastExhaustionWarning: DispatchTime?

    /// The process is out of file descriptors: the listener accepted one waiting connection on
    /// its spare descriptor. It gets GOAWAY `UNAVAILABLE` in one non-blocking send and is closed
    /// at once (no thread, no descriptor kept), and the owner gets a warning (at most one per
    /// minute).
    private func refuseForLackOfDescriptors(_ fd: Int32) {
        let status = Wire.Status(code: .unavailable, message: "the server has too many open files to take a connection now; retry in a few seconds")
        let goAway = Frame(.goAway, payload: Wire.GoAway(lastStreamID: 0, status: status).encoded()).encoded
        _ = goAway.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        close(fd)
        let now = DispatchTime.now()
        if lastExhaustionWarning.map({ now.uptimeNanoseconds &- $0.uptimeNanoseconds > 60_000_000_000 }) ?? true {
            lastExhaustionWarning = now
            logger.warning("out of file descriptors: refusing connections until some close; raise the limit (ulimit -n) or lower --max-connections", metadata: [
                "connections": "\(connections.count)",
            ])
        }
    }

    private func stopIfIdle() {
        guard shuttingDown, connections.isEmpty, !isStopped else { return }
        isStopped = true
        let waiting = stopped
        stopped = []
        for continuation in waiting { continuation.resume() }
    }
}
