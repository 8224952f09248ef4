import ArgumentParser
import CPhotoLibSystem
import Dispatch
import Foundation
import Logging
import PhotoLibCore
import PhotoLibNet
import PhotoLibServer
import PhotoLibStore

extension PhotoLibDaemon {
    /// `photolibd serve`: runs the server until SIGTERM or SIGINT.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve a library. The first line on stdout is exactly 'listening on HOST:PORT'.")

        @Option(name: .long, help: "The library directory (created if missing).")
        var library: String

        @Option(name: .long, help: "Address to listen on; port 0 picks a free port.")
        var listen: String = "127.0.0.1:7800"

        @Option(name: .long, help: "Largest frame payload accepted, in bytes (131072…16777216).")
        var maxFrameSize: Int = ServerConfiguration().maxFrameSize

        @Option(name: .long, help: "Most simultaneous connections.")
        var maxConnections: Int = ServerConfiguration().maxConnections

        @Option(name: .long, help: "Seconds a new connection has to complete its HELLO before it is closed.")
        var handshakeTimeout: Double = ServerConfiguration().handshakeTimeout

        @Option(name: .long, help: "Most connections that have not completed the handshake yet, server-wide; a newer one closes the oldest waiting.")
        var maxPendingHandshakes: Int = ServerConfiguration().maxPendingHandshakes

        @Option(name: .long, help: "Most connections from one address that have not completed the handshake yet; a newer one from it closes the oldest waiting.")
        var maxPendingHandshakesPerAddress: Int = ServerConfiguration().maxPendingHandshakesPerAddress

        @Option(name: .long, help: "Bytes queued for one client's socket above which the server stops reading from that client until they drain.")
        var maxSendQueueBytes: Int = ServerConfiguration().maxSendQueueBytes

        @Option(name: .long, help: "The most response credit used of a stream window a client announces, in bytes.")
        var maxResponseStreamWindow: Int = ServerConfiguration().maxResponseStreamWindow

        @Option(name: .long, help: "The most response credit used of the connection window a client announces, in bytes.")
        var maxResponseConnectionWindow: Int = ServerConfiguration().maxResponseConnectionWindow

        @Option(name: .long, help: "Seconds between two answered PINGs on one connection (later ones are dropped).")
        var controlFrameInterval: Double = ServerConfiguration().controlFrameInterval

        @Option(name: .long, help: "Unanswered PINGs within one --control-frame-interval beyond which a connection is closed.")
        var maxUnansweredControlFrames: Int = ServerConfiguration().maxUnansweredControlFrames

        @Option(name: .long, help: "Most concurrent calls per connection.")
        var maxConcurrentCalls: Int = ServerConfiguration().maxConcurrentStreams

        @Option(name: .long, help: "Close connections idle this many seconds.")
        var idleTimeout: Double = ServerConfiguration().idleTimeout

        @Option(name: .long, help: "Seconds running calls get to finish on shutdown.")
        var shutdownGrace: Double = ServerConfiguration().shutdownGracePeriod

        @Option(name: .long, help: "Largest image side a client may request, in pixels.")
        var maxImageDimension: Int = ServerConfiguration().maxImageDimension

        @Option(name: .long, help: "glibc malloc arenas (memory pools shared by threads). Fewer keep less freed memory, more contend less. 0 leaves glibc's default of 8 per core.")
        var mallocArenas: Int = max(2, ProcessInfo.processInfo.activeProcessorCount)

        @Option(name: .long, help: "Memory for cached rendered images, in MiB (0 disables).")
        var imageMemoryCacheMib: Int = ServerConfiguration().imageMemoryCacheBytes >> 20

        @Option(name: .long, help: "Disk space for cached rendered images under DIR/cache, in MiB (0 disables).")
        var imageDiskCacheMib: Int = ServerConfiguration().imageDiskCacheBytes >> 20

        @Option(name: .long, help: "Days assets stay in Recently Deleted before they are purged.")
        var trashRetentionDays: Double = ServerConfiguration().trashRetention / 86_400

        @Option(name: .long, help: "Days of persistent history (change log) to keep.")
        var historyRetentionDays: Double = ServerConfiguration().historyRetention / 86_400

        @Option(name: .long, help: "Seconds between clean-up rounds (trash, staged uploads, history).")
        var maintenanceInterval: Double = ServerConfiguration().maintenanceInterval

        @Option(name: .long, help: "The memory limit every in-memory budget draws from, in MiB: fetch-result snapshots, the image memory cache and live fetch results take at most a quarter each, or their own size when smaller (snapshots 256 MiB, --image-memory-cache-mib); resident memory also holds what counts bound (connections, calls, decodes) (default: a quarter of this machine's memory, at most 8 GiB).")
        var maxMemoryMib: Int = ServerConfiguration.defaultMaxMemory >> 20

        @Option(name: .long, help: "Fetch results one connection may observe at once (change feed registrations).")
        var maxObservedResultsPerConnection: Int = ServerConfiguration().maxObservedResultsPerConnection

        @Option(name: .long, help: "Distinct live fetch results the server keeps up to date at once (each holds its listing in memory; identical fetches share one).")
        var maxLiveResults: Int = ServerConfiguration().maxLiveResults

        @Option(name: .long, help: "Refuse an access level by policy: clients asking for it are 'restricted' (read-write or add-only; repeatable).")
        var restrictAccess: [String] = []

        @Option(name: .long, help: "Connections without a token (asking for authorization) open at once.")
        var maxTokenlessConnections: Int = ServerConfiguration().maxTokenlessConnections

        @Option(name: .long, help: "Disk space held back in DIR/reserve so that deletes and trash purges work on a full disk, in MiB (0: none). Uploads are refused before they would use it.")
        var diskReserveMib: Int = DiskReserve.defaultSize >> 20

        @Option(name: .long, help: "SQLite reader connections beside the one writer (WAL: reads never wait for a write). 0: reads share the writer's connection and wait for its writes (to compare).")
        var storeReaders: Int = PhotoLibrary.defaultReaderCount

        @Option(name: .long, help: "Seconds one decode, render or upload check may run before it is stopped (DEADLINE_EXCEEDED).")
        var decodeTimeLimit: Double = ServerConfiguration().decodeTimeLimit

        @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
        var logLevel: String = "info"

        @OptionGroup var tls: TLSOptions

        func validate() throws {
            guard (131_072...16_777_216).contains(maxFrameSize) else { throw ValidationError("--max-frame-size must be within 131072…16777216 (128 KiB … 16 MiB)") }
            guard maxConnections > 0 else { throw ValidationError("--max-connections must be positive") }
            guard maxPendingHandshakes > 0, maxPendingHandshakesPerAddress > 0 else {
                throw ValidationError("--max-pending-handshakes and --max-pending-handshakes-per-address must be positive")
            }
            guard handshakeTimeout > 0, handshakeTimeout <= 600 else { throw ValidationError("--handshake-timeout must be within 0…600 seconds") }
            guard maxSendQueueBytes >= 65_536 else { throw ValidationError("--max-send-queue-bytes must be at least 65536") }
            guard maxResponseStreamWindow >= 131_072, maxResponseConnectionWindow >= 131_072 else {
                throw ValidationError("--max-response-stream-window and --max-response-connection-window must be at least 131072 (one chunk message)")
            }
            guard controlFrameInterval >= 0, maxUnansweredControlFrames >= 1 else {
                throw ValidationError("--control-frame-interval must not be negative and --max-unanswered-control-frames must be positive")
            }
            guard (0...1024).contains(mallocArenas) else { throw ValidationError("--malloc-arenas must be within 0…1024") }
            guard maxConcurrentCalls > 0 else { throw ValidationError("--max-concurrent-calls must be positive") }
            guard idleTimeout > 0, shutdownGrace >= 0 else { throw ValidationError("--idle-timeout must be positive and --shutdown-grace not negative") }
            guard trashRetentionDays >= 0, historyRetentionDays >= 0, maintenanceInterval >= 1 else {
                throw ValidationError("--trash-retention-days and --history-retention-days must not be negative; --maintenance-interval is at least 1 second")
            }
            guard (1...65_535).contains(maxImageDimension) else { throw ValidationError("--max-image-dimension must be within 1…65535") }
            guard (0...1_048_576).contains(imageMemoryCacheMib), (0...16_777_216).contains(imageDiskCacheMib) else {
                throw ValidationError("--image-memory-cache-mib must be within 0…1048576 and --image-disk-cache-mib within 0…16777216")
            }
            guard (64...1_048_576).contains(maxMemoryMib) else { throw ValidationError("--max-memory-mib must be within 64…1048576") }
            guard maxObservedResultsPerConnection > 0, maxLiveResults > 0 else { throw ValidationError("--max-observed-results-per-connection and --max-live-results must be positive") }
            guard restrictAccess.allSatisfy({ $0 == "read-write" || $0 == "add-only" }) else {
                throw ValidationError("--restrict-access takes read-write or add-only")
            }
            guard maxTokenlessConnections >= 1 else { throw ValidationError("--max-tokenless-connections must be positive") }
            guard (0...65_536).contains(diskReserveMib) else { throw ValidationError("--disk-reserve-mib must be within 0…65536") }
            guard (0...64).contains(storeReaders) else { throw ValidationError("--store-readers must be within 0…64") }
            guard decodeTimeLimit >= 0.1, decodeTimeLimit <= 3600 else { throw ValidationError("--decode-time-limit must be within 0.1…3600 seconds") }
            guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical") }
            do { _ = try Endpoint(parsing: listen) } catch { throw ValidationError(error.description) }
        }

        /// Raises the open-file soft limit to the hard limit; returns the soft limit now.
        static func raiseOpenFileLimit() -> Int {
            var limit = rlimit()
            guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
            if limit.rlim_cur < limit.rlim_max {
                limit.rlim_cur = limit.rlim_max
                _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
                _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            }
            return Int(clamping: limit.rlim_cur)
        }

        func run() async throws {
            let level = Logger.Level(rawValue: logLevel) ?? .info
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
            let logger = Logger(label: "photolibd")
            // A peer that disappears must not kill the process with SIGPIPE.
            signal(SIGPIPE, SIG_IGN)
            // One descriptor per connection: the soft limit (often 1024) goes up to the hard one.
            let files = Self.raiseOpenFileLimit()
            if files < maxConnections + 64 {
                logger.warning("this process may open \(files) files, fewer than --max-connections \(maxConnections) needs: raise the hard limit (ulimit -Hn, LimitNOFILE=) or lower --max-connections")
            }
            if mallocArenas > 0 && CPhotoLibSystem_limit_malloc_arenas(Int32(mallocArenas)) == 0 {
                logger.notice("the C library did not accept --malloc-arenas \(mallocArenas); its default applies")
            }

            let photoLibrary: PhotoLibrary
            do {
                photoLibrary = try PhotoLibrary.open(at: library, diskReserveSize: diskReserveMib << 20, readers: storeReaders)
            } catch {
                throw Failure.exit("photolibd: cannot open library \(library): \(error.message)")
            }
            // New libraries are created 0700/0600; an older or hand-made one may not be.
            if let mode = (try? FileManager.default.attributesOfItem(atPath: library)[.posixPermissions]) as? Int, mode & 0o077 != 0 {
                logger.warning("the library directory is accessible by other users: run chmod 700 on it", metadata: [
                    "library": "\(library)", "mode": "\(String(mode & 0o777, radix: 8))",
                ])
            }
            if !photoLibrary.diskReserve.isHeld {
                logger.warning("the library's disk has no room for its reserve; uploads are refused until space is freed", metadata: [
                    "free.mib": "\((photoLibrary.diskReserve.freeBytes() ?? 0) >> 20)", "reserve.mib": "\(diskReserveMib)",
                ])
            }
            let report = photoLibrary.lastRecovery
            if !report.isClean {
                logger.warning("recovered library", metadata: [
                    "removed.temporary": "\(report.removedTemporaryFiles.count)",
                    "removed.orphans": "\(report.removedOrphanFiles.count)",
                    "missing.originals": "\(report.assetsWithMissingOriginals.count)",
                ])
            }
            var configuration = ServerConfiguration()
            configuration.maxFrameSize = maxFrameSize
            configuration.maxConnections = maxConnections
            configuration.handshakeTimeout = handshakeTimeout
            configuration.maxPendingHandshakes = maxPendingHandshakes
            configuration.maxPendingHandshakesPerAddress = maxPendingHandshakesPerAddress
            configuration.maxSendQueueBytes = maxSendQueueBytes
            configuration.maxResponseStreamWindow = maxResponseStreamWindow
            configuration.maxResponseConnectionWindow = maxResponseConnectionWindow
            configuration.controlFrameInterval = controlFrameInterval
            configuration.maxUnansweredControlFrames = maxUnansweredControlFrames
            configuration.maxConcurrentStreams = maxConcurrentCalls
            configuration.idleTimeout = idleTimeout
            configuration.shutdownGracePeriod = shutdownGrace
            configuration.maxImageDimension = maxImageDimension
            configuration.decodeTimeLimit = decodeTimeLimit
            configuration.maxMemory = maxMemoryMib << 20
            configuration.maxTokenlessConnections = maxTokenlessConnections
            configuration.restrictedAccessLevels = Set(restrictAccess.map { $0 == "read-write" ? AccessLevel.readWrite : AccessLevel.addOnly })
            configuration.maxObservedResultsPerConnection = maxObservedResultsPerConnection
            configuration.maxLiveResults = maxLiveResults
            configuration.trashRetention = trashRetentionDays * 86_400
            configuration.historyRetention = historyRetentionDays * 86_400
            configuration.maintenanceInterval = maintenanceInterval
            configuration.imageMemoryCacheBytes = imageMemoryCacheMib << 20
            configuration.imageDiskCacheBytes = imageDiskCacheMib << 20
            configuration.tls = try tls.context(library: library, logger: logger)

            let server: PhotoLibServer
            do {
                server = try PhotoLibServer(library: photoLibrary, endpoint: try Endpoint(parsing: listen), configuration: configuration, logger: logger)
            } catch {
                throw Failure.exit("photolibd: cannot serve on \(listen): \((error as? PhotoLibError)?.message ?? String(describing: error))")
            }
            let signals = [SIGTERM, SIGINT].map { number -> any DispatchSourceSignal in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
                source.setEventHandler {
                    logger.info("received signal \(number); shutting down gracefully")
                    server.beginGracefulShutdown()
                }
                source.resume()
                return source
            }
            server.start()
            // Unbuffered, so a parent process reading the pipe sees it at once.
            FileHandle.standardOutput.write(Data("listening on \(server.listeningEndpoint.map(\.description) ?? listen)\n".utf8))
            TLSOptions.announce(configuration.tls)
            TLSOptions.warnIfPlaintext(configuration.tls, listening: server.listeningEndpoint.map(\.description) ?? listen, host: (try? Endpoint(parsing: listen))?.host ?? listen, logger: logger)
            let effective = configuration.effective
            // A budget asked for beyond its share of the memory limit is cut: say so.
            if effective.imageMemoryCacheBytes < configuration.imageMemoryCacheBytes {
                logger.warning("--image-memory-cache-mib is cut from \(configuration.imageMemoryCacheBytes >> 20) to \(effective.imageMemoryCacheBytes >> 20) MiB: each memory budget may take at most a quarter of --max-memory-mib (\(effective.maxMemory >> 20))")
            }
            logger.info("serving", metadata: [
                "library": "\(library)", "endpoint": "\(server.listeningEndpoint.map(\.description) ?? listen)",
                "memory.limit.mib": "\(effective.maxMemory >> 20)", "snapshots.mib": "\(effective.snapshotMemoryBytes >> 20)",
                "image.cache.mib": "\(effective.imageMemoryCacheBytes >> 20)", "live.results.mib": "\(effective.liveResultMemoryBytes >> 20)",
            ])

            await server.serve()
            signals.forEach { $0.cancel() }
            logger.info("stopped")
        }
    }
}
