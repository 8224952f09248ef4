import Foundation
import PhotoLibCore
import PhotoLibNet
import PhotoLibWire

/// The server's explicit limits and timings; every one can be set from `photolibd serve`.
public struct ServerConfiguration: Sendable {
    /// Largest frame payload accepted from clients (bytes).
    public var maxFrameSize: Int = WireLimits.defaultMaxFrameSize
    /// Initial per-stream credit granted to clients for request data.
    public var initialStreamWindow: Int = WireLimits.defaultStreamWindow
    /// Initial connection credit granted to clients for request data.
    public var initialConnectionWindow: Int = WireLimits.defaultConnectionWindow
    /// Most concurrent calls per connection.
    public var maxConcurrentStreams: Int = 100
    /// Most open connections; more are refused with GOAWAY `RESOURCE_EXHAUSTED`. Connections
    /// hold no thread (the process's few event loops serve them all); an idle one costs a few KB.
    public var maxConnections: Int = 1024
    /// Most connections that have not completed the handshake (no WELCOME yet), server-wide;
    /// a new one beyond it takes the place of the oldest waiting, which gets GOAWAY
    /// `RESOURCE_EXHAUSTED`. Keep it well below ``maxConnections``: connections that are
    /// through the handshake keep the rest, so a flood of silent connections cannot lock out
    /// clients with a credential.
    public var maxPendingHandshakes: Int = 256
    /// Most connections from one peer address that have not completed the handshake; beyond
    /// it the oldest from that address makes room, as beyond ``maxPendingHandshakes``. (Sockets handed
    /// to `serve(connectedSocket:)` have no address and count only server-wide.)
    public var maxPendingHandshakesPerAddress: Int = 64
    /// Bytes queued for one connection's socket above which the server stops reading from
    /// that client (and holds its calls' responses back) until they drain to a quarter of it.
    public var maxSendQueueBytes: Int = 1 << 20
    /// The most response credit the server uses of a stream window the client announces
    /// (`Hello.initial_stream_window` and its WINDOW_UPDATEs); credit beyond it is not used.
    /// Never less than twice the client's maximum frame size (docs/PROTOCOL.md 9.3).
    public var maxResponseStreamWindow: Int = 4 << 20
    /// The most response credit the server uses of the connection window the client announces
    /// (never less than twice the client's maximum frame size either).
    public var maxResponseConnectionWindow: Int = 16 << 20
    /// The server answers at most one PING per this many seconds on a connection; later PINGs
    /// within the interval are dropped unanswered.
    public var controlFrameInterval: Double = 0.1
    /// Unanswered PINGs within one ``controlFrameInterval`` beyond which the connection is
    /// closed with GOAWAY `RESOURCE_EXHAUSTED` (reason `PROTOCOL_VIOLATION`).
    public var maxUnansweredControlFrames: Int = 100
    /// A connection that sends no frame for this long is closed (seconds).
    public var idleTimeout: Double = 300
    /// A connection must complete its HELLO within this long (seconds).
    public var handshakeTimeout: Double = 10
    /// Running calls get this long to finish after a graceful shutdown begins (seconds).
    public var shutdownGracePeriod: Double = 10
    /// Fetch-result snapshots expire this long after their last use (seconds).
    public var snapshotLifetime: Double = 600
    /// Most live snapshots per connection; the least recently used one is dropped beyond it.
    public var maxSnapshotsPerConnection: Int = 256
    /// Bytes all connections' fetch-result snapshots may hold at once (a snapshot of n assets
    /// takes about 16 n bytes; identical fetches share one list). Beyond it the least
    /// recently used snapshots of the connection holding the most are released; their next
    /// use fails "snapshot expired — fetch again".
    public var snapshotMemoryBytes: Int = 256 << 20
    /// Bytes of resource data (`RequestResourceData`: exports, movies) that all calls through
    /// TLS together may read ahead of what their connections have written, in batches of 1 MiB
    /// per call; a call that finds it spent reads 64 KiB at a time. 0: every call reads 64 KiB
    /// at a time. (On plain TCP nothing is read ahead: the socket sends the file's bytes with
    /// `sendfile`.)
    public var resourceReadAheadBytes: Int = 32 << 20
    /// Largest image side a client may ask for (pixels).
    public var maxImageDimension: Int = 16_384
    /// Concurrent image renders across the server (CPU bound).
    public var renderConcurrency: Int = 2
    /// Image requests per connection that may render, read or send a large image at once
    /// (maximum size, `RESIZE_MODE_NONE`, or a target side over 1024 px; the original file as it
    /// is streams from disk and is not counted); the connection's further large requests wait
    /// for a turn. A rendered image is held by its call until its last part is handed to the
    /// connection, so this bounds what a client that reads nothing makes the server hold:
    /// this many images per connection instead of one per open call. Editing inputs count
    /// too when they hold an image in memory: the editing base of a HEIC, PNG or WebP
    /// original, or a display-size image over 1024 px.
    public var maxLargeImagesPerConnection: Int = 4
    /// Concurrent checks of uploaded images (full decodes), on their own threads so that a
    /// hostile upload never delays renders.
    public var validationConcurrency: Int = 1
    /// The most seconds one decode, render or upload check may run; longer work is stopped
    /// and the call fails with `DEADLINE_EXCEEDED` (a client's shorter deadline still applies).
    public var decodeTimeLimit: Double = 30
    /// Bytes of rendered images kept in memory (LRU); 0 disables the memory cache.
    public var imageMemoryCacheBytes: Int = 256 << 20
    /// Bytes of rendered images kept on disk under `DIR/cache/images` (least recently used
    /// dropped first); 0 disables the disk cache.
    public var imageDiskCacheBytes: Int = 2 << 30
    /// Most pending pre-render registrations (`StartCachingImages`) per connection.
    public var maxCachingRequestsPerConnection: Int = 4096
    /// Assets stay in Recently Deleted this long before they are purged (seconds; 30 days).
    public var trashRetention: Double = 30 * 24 * 3600
    /// Persistent history (change log) older than this is pruned (seconds; 90 days).
    public var historyRetention: Double = 90 * 24 * 3600
    /// How often trash, staged uploads and history are cleaned up (seconds).
    public var maintenanceInterval: Double = 3600

    /// How often the change feed looks for transactions made by other processes (seconds).
    public var changePollInterval: Double = 0.05
    /// Notifications queued for one subscriber before its backlog becomes one resync.
    public var maxQueuedNotifications: Int = 64
    /// Fetch results one connection may observe at once (over all its subscriptions).
    public var maxObservedResultsPerConnection: Int = 64
    /// Distinct live fetch results the server keeps up to date at once (identical fetches
    /// share one; each holds its listing in memory).
    public var maxLiveResults: Int = 512
    /// Objects one subscription may observe with `registerObjects`.
    public var maxObservedObjectsPerSubscription: Int = 10_000

    /// Connections open without a token at once (they may only ask for authorization);
    /// more get GOAWAY `RESOURCE_EXHAUSTED` at their HELLO.
    public var maxTokenlessConnections: Int = 32

    /// Access levels the server refuses by policy: a client asking for one is `restricted`
    /// (PhotoKit's `.restricted`), e.g. add-only uploads on a read-only archive.
    public var restrictedAccessLevels: Set<AccessLevel> = []

    /// The server's name in WELCOME.
    public var serverName: String = "photolibd/0.1.0"

    /// TLS for every connection: the server context presenting the library's identity
    /// (`photolibd serve --tls`); `nil` serves plain TCP (loopback only, see `docs/PROTOCOL.md`).
    public var tls: TLSContext?

    /// The one memory limit every in-memory budget draws from (bytes): fetch-result
    /// snapshots, the rendered-image memory cache and the live fetch results of the change
    /// feed may each take at most a quarter of it (their own settings apply when smaller).
    /// The rest is for what is bounded by counts: connections, calls, uploads in flight (one
    /// chunk each) and decodes (``renderConcurrency`` + ``validationConcurrency`` at once).
    /// Default: a quarter of the machine's memory, at most 8 GiB.
    public var maxMemory: Int = ServerConfiguration.defaultMaxMemory

    /// A quarter of the machine's physical memory, at most 8 GiB, at least 256 MiB.
    public static var defaultMaxMemory: Int {
        let physical = Int(clamping: ProcessInfo.processInfo.physicalMemory)
        return max(256 << 20, min(physical / 4, 8 << 30))
    }

    /// Bytes one asset costs in a live fetch result of the change feed, as measured by
    /// Scripts/stress (resident memory over live results of 50,000 members: the sort keys
    /// and identifier in the order-statistic index and its lookup table, and what building
    /// them leaves in the allocator). A live result keeps every match of its query, its
    /// fetch limit lifted.
    public static let liveResultBytesPerAsset = 800

    /// The settings in force: each memory budget capped at its share of ``maxMemory``.
    public var effective: ServerConfiguration {
        var capped = self
        let share = max(1 << 20, maxMemory / 4)
        capped.snapshotMemoryBytes = min(snapshotMemoryBytes, share)
        capped.imageMemoryCacheBytes = min(imageMemoryCacheBytes, share)
        return capped
    }

    /// The bytes the change feed's live fetch results may hold: a quarter of ``maxMemory``.
    public var liveResultMemoryBytes: Int { max(1 << 20, maxMemory / 4) }

    /// The defaults.
    public init() {}
}
