import ArgumentParser
import Dispatch
import Foundation
import Histogram
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib bench`: load testers.
    struct Bench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load-test image requests, or measure a raw TCP request/response loop for comparison.",
            subcommands: [BenchImages.self, BenchTCPEcho.self, BenchChanges.self, BenchFetch.self, BenchImportFetch.self, BenchFilter.self, BenchConnections.self, BenchBusy.self])
    }
}

/// Where a benchmark's tasks run (`--executor`): Swift's global pool, or each on its
/// connection's executor (`PhotoLibrary.taskExecutor`).
enum BenchExecutor: String, ExpressibleByArgument, CaseIterable {
    case pool, connection

    /// Adds `work` to `group`, preferring `library`'s executor or not. On the pool it is a
    /// plain task: a preference of `nil` still gives a task a preference record, which Swift's
    /// runtime looks up under the task's status lock on every resume (a cost applications
    /// making plain tasks do not pay).
    func addTask(to group: inout TaskGroup<Void>, on library: PhotoLibrary, _ work: @escaping @Sendable () async -> Void) {
        if self == .connection {
            group.addTask(executorPreference: library.taskExecutor, operation: work)
        } else {
            group.addTask(operation: work)
        }
    }

    /// A task running `work`, preferring `library`'s executor or not (see ``addTask(to:on:_:)``).
    func task(on library: PhotoLibrary, _ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        self == .connection ? Task(executorPreference: library.taskExecutor, operation: work) : Task(operation: work)
    }
}

/// Latency and throughput of one load run.
struct BenchReport: Encodable {
    var requests: Int
    var errors: Int
    var seconds: Double
    var requestsPerSecond: Double
    var megabytesPerSecond: Double
    var latencyMs: [String: Double]
    var firstError: String?

    init(histogram: Histogram<UInt64>, requests: Int, errors: Int, bytes: Int, seconds: Double, firstError: String?) {
        self.requests = requests
        self.errors = errors
        self.seconds = seconds
        requestsPerSecond = seconds > 0 ? Double(requests) / seconds : 0
        megabytesPerSecond = seconds > 0 ? Double(bytes) / 1_048_576 / seconds : 0
        func ms(_ nanoseconds: UInt64) -> Double { (Double(nanoseconds) / 1e6 * 1000).rounded() / 1000 }
        latencyMs = [
            "p50": ms(histogram.valueAtPercentile(50)), "p90": ms(histogram.valueAtPercentile(90)),
            "p99": ms(histogram.valueAtPercentile(99)), "p99.9": ms(histogram.valueAtPercentile(99.9)),
            "max": ms(histogram.max), "mean": (histogram.mean / 1e6 * 1000).rounded() / 1000,
        ]
        self.firstError = firstError
    }

    func print(label: String) {
        let l = latencyMs
        Swift.print(String(format: "%@: %d requests, %d errors in %.2f s: %.1f req/s, %.2f MB/s", label, requests, errors, seconds, requestsPerSecond, megabytesPerSecond))
        Swift.print(String(format: "latency ms: p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f  mean %.3f",
                           l["p50"]!, l["p90"]!, l["p99"]!, l["p99.9"]!, l["max"]!, l["mean"]!))
        if let firstError { Swift.print("first error: \(firstError)") }
    }
}

/// Shared counters of a run's workers.
final class BenchState: @unchecked Sendable {
    private let lock = NSLock()
    private var issued = 0
    private(set) var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1_000, highestTrackableValue: 600_000_000_000, numberOfSignificantValueDigits: .three)
    private(set) var completed = 0
    private(set) var errors = 0
    private(set) var bytes = 0
    private(set) var firstError: String?
    /// One sample per completed request for `--chart` (finish time since `started`, latency),
    /// at most ``maxSamples``; `nil` when no chart was asked for.
    private(set) var samples: [LatencyChart.Sample]?
    /// Completed requests left out of ``samples`` because it was full.
    private(set) var samplesDropped = 0
    let limit: Int?
    let deadline: DispatchTime?
    /// When the run began (for the samples' times).
    let started = DispatchTime.now()

    /// The most samples kept for a chart (16 bytes each): a `--duration` run may complete
    /// millions of requests; those after the first ``maxSamples`` are counted, not drawn.
    static let maxSamples = 1_000_000

    init(limit: Int?, seconds: Double?, keepSamples: Bool = false) {
        self.limit = limit
        self.deadline = seconds.map { .now() + $0 }
        self.samples = keepSamples ? [] : nil
    }

    /// The clock the run reads (uptime nanoseconds): once per request, where the request
    /// that just finished and the next one share the reading.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// The next request's index, or `nil` when the run is over; `now` is ``now()``.
    func next(now: UInt64 = BenchState.now()) -> Int? {
        lock.withLock {
            if let limit, issued >= limit { return nil }
            if let deadline, now >= deadline.uptimeNanoseconds { return nil }
            issued += 1
            return issued - 1
        }
    }

    /// Bytes of an image that is not the request's last.
    func received(bytes count: Int) {
        lock.withLock { bytes += count }
    }

    /// A request that took `nanoseconds` and ended at `finished` (``now()``) with `count` bytes.
    func record(nanoseconds: UInt64, bytes count: Int, finished: UInt64 = BenchState.now()) {
        lock.withLock {
            _ = histogram.record(max(1_000, nanoseconds))
            completed += 1
            bytes += count
            guard samples != nil else { return }
            if samples!.count < Self.maxSamples {
                samples!.append(LatencyChart.Sample(time: Double(finished &- started.uptimeNanoseconds) / 1e9, milliseconds: Double(nanoseconds) / 1e6))
            } else {
                samplesDropped += 1
            }
        }
    }

    func fail(_ error: any Error) {
        lock.withLock {
            errors += 1
            if firstError == nil { firstError = "\(error)" }
        }
    }
}

extension PhotoLibCommand {
    /// `photolib bench images`.
    struct BenchImages: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "images",
            abstract: "Load-test RequestImage: requests/s, MB/s, latency percentiles (HDR histogram), errors.",
            discussion: "Stops by itself after --requests (default 500) or --duration seconds.")

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "Target size WIDTHxHEIGHT or 'max'.")
        var size: String = "256x256"

        @Option(name: .long, help: "fit or fill.")
        var mode: Get.Mode = .fit

        @Option(name: .long, help: "Delivery: opportunistic, high or fast (latency is to the last image).")
        var delivery: Get.Delivery = .high

        @Option(name: .long, help: "Resize mode: none, fast, exact.")
        var resize: Get.Resize = .exact

        @Option(name: .long, help: "TCP connections to open.")
        var connections: Int = 1

        @Option(name: .long, help: "Requests in flight at once, spread over the connections.")
        var concurrency: Int = 1

        @Option(name: .long, help: "Total requests (default 500 unless --duration).")
        var requests: Int?

        @Option(name: .long, help: "Run for this many seconds instead.")
        var duration: Double?

        @Option(name: .long, help: "Only this asset (repeatable); default: every asset (at most 1000).")
        var asset: [String] = []

        @Flag(name: .long, help: "Defeat every server cache (bypass_cache; library owner only).")
        var cold = false

        @Flag(name: .long, help: "Request every image once before measuring, to fill the caches.")
        var warm = false

        @Option(name: .long, help: "Also draw the latencies (percentiles over time and a histogram) as a self-contained SVG file.")
        var chart: String?

        @Option(name: .long, help: "Client API: async (image(...) / image streams in tasks) or handler (PhotoKit's result handler, run on the connection's queue).")
        var api: API = .async

        @Option(name: .long, help: "With --api async, where the tasks run: pool (Swift's global executor) or connection (each prefers its connection's executor, PhotoLibrary.taskExecutor).")
        var executor: BenchExecutor = .pool

        /// Which ImageManager API the requests go through.
        enum API: String, ExpressibleByArgument, CaseIterable {
            case async, handler
        }

        func validate() throws {
            do { _ = try Get.targetSize(size) } catch { throw ValidationError(error.message) }
            guard (1...256).contains(connections) else { throw ValidationError("--connections must be within 1…256") }
            guard (1...4096).contains(concurrency) else { throw ValidationError("--concurrency must be within 1…4096") }
            if let requests, requests < 1 { throw ValidationError("--requests must be positive") }
            if let duration, !(duration > 0 && duration <= 3600) { throw ValidationError("--duration must be more than 0 and at most 3600 s") }
            guard requests == nil || duration == nil else { throw ValidationError("give --requests or --duration, not both") }
            guard !(cold && warm) else { throw ValidationError("--cold and --warm exclude each other") }
            guard executor == .pool || api == .async else { throw ValidationError("--executor applies to --api async only") }
        }

        func run() async throws {
            // The chart's path is checked first: a run is not thrown away for a typo.
            if let chart { try FileOutput.check(chart) }
            let target = try Get.targetSize(size)
            let token = try connection.resolvedToken()
            // TLS and pins as every command takes them (--tls, --fingerprint, known servers).
            let configuration = try connection.clientConfiguration()
            var libraries: [PhotoLibrary] = []
            do {
                for _ in 0..<connections {
                    libraries.append(try await PhotoLibrary.connect(to: connection.resolvedServer, token: token, clientName: "photolib-bench/0.1.0", configuration: configuration))
                }
            } catch let error as PhotoLibError {
                throw CLIError(error.message, code: error.code)
            }
            defer { libraries.forEach { $0.close() } }
            var identifiers = asset
            if identifiers.isEmpty {
                identifiers = try await libraries[0].fetchAssets(with: FetchOptions(fetchLimit: 1000)).allObjects().map(\.localIdentifier)
            }
            guard !identifiers.isEmpty else { throw CLIError("the library has no assets to request") }
            let options = ImageRequestOptions(
                deliveryMode: [.opportunistic: .opportunistic, .high: .highQualityFormat, .fast: .fastFormat][delivery]!,
                resizeMode: [.none: .none, .fast: .fast, .exact: .exact][resize]!)
            let contentMode: ContentMode = mode == .fill ? .aspectFill : .aspectFit
            let managers = libraries.map { library -> ImageManager in
                var manager = library.imageManager
                manager.bypassCache = cold
                return manager
            }
            if warm {
                for identifier in identifiers {
                    _ = try await managers[0].image(forAssetIdentifier: identifier, targetSize: target, contentMode: contentMode, options: options)
                }
            }
            let state = BenchState(limit: duration == nil ? (requests ?? 500) : nil, seconds: duration, keepSamples: chart != nil)
            let ids = identifiers
            // Latency is to the last image: with one image per request, wait for it alone.
            let finalOnly = delivery == .high
            let started = DispatchTime.now()
            if api == .handler {
                await HandlerLoop(state: state, managers: managers, ids: ids, target: target, contentMode: contentMode, options: options).run(concurrency: concurrency)
            } else {
                await withTaskGroup(of: Void.self) { group in
                    for worker in 0..<concurrency {
                        let manager = managers[worker % managers.count]
                        let work: @Sendable () async -> Void = {
                            var now = BenchState.now()
                            while let index = state.next(now: now) {
                                let begin = now
                                do {
                                    let identifier = ids[index % ids.count]
                                    var received = 0
                                    if finalOnly {
                                        received = try await manager.image(forAssetIdentifier: identifier, targetSize: target, contentMode: contentMode, options: options).data.count
                                    } else {
                                        for try await image in try await manager.requestImage(forAssetIdentifier: identifier, targetSize: target, contentMode: contentMode, options: options) {
                                            received += image.data.count
                                        }
                                    }
                                    now = BenchState.now()
                                    state.record(nanoseconds: now - begin, bytes: received, finished: now)
                                } catch {
                                    now = BenchState.now()
                                    state.fail(error)
                                }
                            }
                        }
                        executor.addTask(to: &group, on: libraries[worker % libraries.count], work)
                    }
                }
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            let report = BenchReport(histogram: state.histogram, requests: state.completed, errors: state.errors, bytes: state.bytes, seconds: seconds, firstError: state.firstError)
            let label = "images \(size) \(mode.rawValue) \(delivery.rawValue) \(cold ? "cold" : warm ? "warm" : "as-is") c=\(concurrency) n=\(connections)\(api == .handler ? " api=handler" : executor == .connection ? " executor=connection" : "")"
            if let chart {
                let dropped = state.samplesDropped > 0 ? "; the first \(BenchState.maxSamples) drawn" : ""
                try LatencyChart(
                    title: "photolib bench images: request latency",
                    subtitle: String(format: "%@: %d requests, %d errors in %.2f s (%.1f req/s); one point per request%@", label, report.requests, report.errors, seconds, report.requestsPerSecond, dropped),
                    samples: state.samples ?? []
                ).write(to: chart)
            }
            if connection.json {
                try Output.jsonLine(report)
            } else {
                report.print(label: label)
            }
            // Every request failing is a failed run (its latencies are no figures), not exit 0.
            if report.requests == 0 && report.errors > 0 {
                throw CLIError("every request failed: \(report.firstError ?? "no detail")")
            }
        }
    }
}

/// Keeps requests in flight through PhotoKit-style result handlers: each request's last
/// image (or error) starts the next request from the handler, on the connection's queue,
/// without any task.
final class HandlerLoop: @unchecked Sendable {
    private let state: BenchState
    private let managers: [ImageManager]
    private let ids: [String]
    private let target: PixelSize
    private let contentMode: ContentMode
    private let options: ImageRequestOptions
    private let lock = NSLock()
    private var running = 0
    private var done: CheckedContinuation<Void, Never>?

    init(state: BenchState, managers: [ImageManager], ids: [String], target: PixelSize, contentMode: ContentMode, options: ImageRequestOptions) {
        self.state = state
        self.managers = managers
        self.ids = ids
        self.target = target
        self.contentMode = contentMode
        self.options = options
    }

    /// Runs `concurrency` request chains, spread over the managers, until the state says stop.
    func run(concurrency: Int) async {
        await withCheckedContinuation { continuation in
            lock.withLock {
                done = continuation
                running = concurrency
            }
            for worker in 0..<concurrency { next(worker % managers.count) }
        }
    }

    /// Starts the chain's next request through `managers[manager]`; `now` is the clock read
    /// when the last one ended. The result handler keeps the index, not the manager (whose
    /// connection each copy would retain and release).
    private func next(_ manager: Int, now: UInt64 = BenchState.now()) {
        guard let index = state.next(now: now) else {
            let finished = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                running -= 1
                guard running == 0 else { return nil }
                defer { done = nil }
                return done
            }
            finished?.resume()
            return
        }
        let begin = now
        managers[manager].requestImage(forAssetIdentifier: ids[index % ids.count], targetSize: target, contentMode: contentMode, options: options) { [self] result in
            let end = BenchState.now()
            switch result {
            case .success(let image) where !image.isFinal:
                state.received(bytes: image.data.count)
                return
            case .success(let image):
                state.record(nanoseconds: end - begin, bytes: image.data.count, finished: end)
            case .failure(let error):
                state.fail(error)
            }
            next(manager, now: end)
        }
    }
}
