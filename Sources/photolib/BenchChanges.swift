import ArgumentParser
import Dispatch
import Foundation
import Histogram
import PhotoLibClient
import Synchronization

extension PhotoLibCommand {
    /// `photolib bench changes`: commit-to-notification latency of the live change feed.
    struct BenchChanges: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "changes",
            abstract: "Measure commit-to-notification latency (HDR histogram) with N subscribers sharing one fetch.",
            discussion: """
                Opens --subscribers subscriptions spread over --connections connections, all registering the \
                same fetch (the server shares one live result), then toggles the favourite flag of a random \
                asset --toggles times through another connection, one transaction at a time: each waits until \
                every subscriber has its notification (10 s at most) and --interval ms. Latency runs from just \
                before performChanges is sent to each subscriber's arrival. Stops by itself. The favourite \
                flags stay as the toggles leave them: run it on a library made for benchmarks.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "Also draw the latencies (percentiles over time and a histogram) as a self-contained SVG file.")
        var chart: String?

        @Option(name: .long, help: "Subscriptions to open.")
        var subscribers: Int = 1

        @Option(name: .long, help: "Connections to spread them over (default: one per 100 subscribers).")
        var connections: Int?

        @Option(name: .long, help: "Favourite toggles (transactions) to measure.")
        var toggles: Int = 200

        @Option(name: .long, help: "Pause between transactions, in milliseconds.")
        var interval: Double = 5

        @Option(name: .long, help: "Sort of the shared fetch, KEY[:asc|desc].")
        var sort: String = "creationDate:desc"

        @Option(name: .long, help: "Also report the server's VmRSS: its pid (on the same machine).")
        var serverPid: Int32?

        @Option(name: .long, help: "How subscribers take changes: 'async' (a task iterating ChangeSubscription.changes each) or 'handler' (subscribe(changeHandler:), on the connection's queue).")
        var api: API = .async

        @Option(name: .long, help: "With --api async, where the subscribers' tasks run: pool (Swift's global executor) or connection (each prefers its connection's executor, PhotoLibrary.taskExecutor).")
        var executor: BenchExecutor = .pool

        /// The client API the subscribers use.
        enum API: String, ExpressibleByArgument {
            case async, handler
        }

        func validate() throws {
            guard (1...10_000).contains(subscribers) else { throw ValidationError("--subscribers must be within 1…10000") }
            if let connections, !(1...256).contains(connections) { throw ValidationError("--connections must be within 1…256") }
            guard (1...100_000).contains(toggles) else { throw ValidationError("--toggles must be within 1…100000") }
            guard interval >= 0, interval <= 10_000 else { throw ValidationError("--interval must be within 0…10000 ms") }
            guard executor == .pool || api == .async else { throw ValidationError("--executor applies to --api async only") }
        }

        /// The fetch result a handler subscriber follows: set once registered (by the task
        /// that registers), then by its handler (on its connection's queue).
        final class Watched: Sendable {
            let result = Mutex<FetchResult<Asset>?>(nil)
        }

        /// Arrivals per token, shared by the subscriber tasks.
        final class Arrivals: @unchecked Sendable {
            private let lock = NSLock()
            private var times: [Int64: [UInt64]] = [:]
            private var resyncCount = 0

            /// Resyncs seen so far.
            var resyncs: Int { lock.withLock { resyncCount } }

            /// The measuring task, waiting until `count` arrivals of `token` are in.
            private var waiter: (token: Int64, count: Int, continuation: CheckedContinuation<Void, Never>)?

            func record(token: Int64, at time: UInt64, resync: Bool) {
                let done: CheckedContinuation<Void, Never>? = lock.withLock {
                    times[token, default: []].append(time)
                    if resync { resyncCount += 1 }
                    guard let waiting = waiter, waiting.token == token, times[token]!.count >= waiting.count else { return nil }
                    waiter = nil
                    return waiting.continuation
                }
                done?.resume()
            }

            /// Returns once `count` arrivals of `token` are in, or after `timeout` seconds
            /// (woken by the last arrival: the measuring task does not poll, which would take
            /// CPU from the subscribers it measures).
            func wait(for token: Int64, count: Int, timeout: Double) async {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ready = lock.withLock {
                        if (times[token]?.count ?? 0) >= count { return true }
                        waiter = (token, count, continuation)
                        return false
                    }
                    if ready { return continuation.resume() }
                    DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                        let expired: CheckedContinuation<Void, Never>? = self.lock.withLock {
                            guard let waiting = self.waiter, waiting.token == token else { return nil }
                            self.waiter = nil
                            return waiting.continuation
                        }
                        expired?.resume()
                    }
                }
            }

            func count(through token: Int64) -> Int { lock.withLock { times[token]?.count ?? 0 } }
            func all() -> [Int64: [UInt64]] { lock.withLock { times } }
        }

        func run() async throws {
            if let chart { try FileOutput.check(chart) }
            let token = try connection.resolvedToken()
            let server = connection.resolvedServer
            // Each subscription registers one fetch: at most 64 per connection by default
            // (`serve --max-observed-results-per-connection`), and 100 calls.
            let perConnection = 50
            let connectionCount = connections ?? max(1, (subscribers + perConnection - 1) / perConnection)
            guard (subscribers + connectionCount - 1) / connectionCount <= 64 else {
                throw CLIError("at most 64 subscriptions per connection (the server's default registration limit): use --connections \((subscribers + perConnection - 1) / perConnection) or more")
            }
            var descriptors: [AssetSortDescriptor] = []
            do {
                for part in sort.split(separator: ",") { descriptors.append(try AssetSortDescriptor(parsing: String(part))) }
            } catch { throw CLIError(error.message) }
            let options = FetchOptions(sortDescriptors: descriptors)
            var libraries: [PhotoLibrary] = []
            let writer: PhotoLibrary
            let configuration = try connection.clientConfiguration()
            do {
                writer = try await PhotoLibrary.connect(to: server, token: token, clientName: "photolib-bench-changes/writer", configuration: configuration)
                for _ in 0..<connectionCount {
                    libraries.append(try await PhotoLibrary.connect(to: server, token: token, clientName: "photolib-bench-changes/0.1.0", configuration: configuration))
                }
            } catch let error as PhotoLibError {
                throw CLIError(error.message, code: error.code)
            }
            defer {
                writer.close()
                libraries.forEach { $0.close() }
            }
            let assets = try await writer.fetchAssets(with: FetchOptions(fetchLimit: 1000)).allObjects()
            guard !assets.isEmpty else { throw CLIError("the library has no assets") }
            var favorite = Dictionary(assets.map { ($0.localIdentifier, $0.isFavorite) }, uniquingKeysWith: { a, _ in a })
            let totalAssets = try await writer.libraryInfo().assetCount

            // Subscribe everyone (registration time is reported too).
            let arrivals = Arrivals()
            let registerStart = DispatchTime.now()
            var subscriptions: [ChangeSubscription] = []
            var readers: [Task<Void, Never>] = []
            for i in 0..<subscribers {
                if api == .handler {
                    let watched = Watched()
                    let subscription = try await libraries[i % connectionCount].subscribe { result in
                        guard case .success(let change) = result else { return }
                        let now = DispatchTime.now().uptimeNanoseconds
                        let details: FetchResultChanges? = watched.result.withLock { result in
                            guard let details = result.flatMap(change.changeDetails(for:)) else { return nil }
                            result = details.fetchResultAfterChanges
                            return details
                        }
                        if let value = Int64(change.changeToken) { arrivals.record(token: value, at: now, resync: details.map { !$0.hasIncrementalChanges } ?? false) }
                    }
                    let registered = try await subscription.registerFetch(with: options)
                    watched.result.withLock { $0 = $0 ?? registered }
                    subscriptions.append(subscription)
                    continue
                }
                let subscription = try await libraries[i % connectionCount].subscribe()
                let watched = try await subscription.registerFetch(with: options)
                subscriptions.append(subscription)
                let read: @Sendable () async -> Void = { [watched] in
                    var watched = watched
                    do {
                        for try await change in subscription.changes {
                            let now = DispatchTime.now().uptimeNanoseconds
                            let details = change.changeDetails(for: watched)
                            if let details { watched = details.fetchResultAfterChanges }
                            if let value = Int64(change.changeToken) { arrivals.record(token: value, at: now, resync: details.map { !$0.hasIncrementalChanges } ?? false) }
                        }
                    } catch {}
                }
                readers.append(executor.task(on: libraries[i % connectionCount], read))
            }
            let registerSeconds = Double(DispatchTime.now().uptimeNanoseconds - registerStart.uptimeNanoseconds) / 1e9
            let rssSubscribed = serverPid.flatMap(Self.residentKiB)

            var commits: [Int64: UInt64] = [:]
            var commitHistogram = Histogram<UInt64>(lowestDiscernibleValue: 1_000, highestTrackableValue: 600_000_000_000, numberOfSignificantValueDigits: .three)
            var missing = 0
            var generator = SystemRandomNumberGenerator()
            let ids = Array(favorite.keys).sorted()
            let started = DispatchTime.now()
            let cpuBefore = (server: serverPid.flatMap(Self.cpuSeconds), client: Self.cpuSeconds(getpid()))
            for _ in 0..<toggles {
                let id = ids.randomElement(using: &generator)!
                let now = !(favorite[id] ?? false)
                favorite[id] = now
                let before = DispatchTime.now().uptimeNanoseconds
                let result = try await writer.performChanges([.setAssetProperties(.init(asset: id, isFavorite: now))])
                let after = DispatchTime.now().uptimeNanoseconds
                _ = commitHistogram.record(max(1_000, after - before))
                guard let committed = Int64(result.changeToken) else { continue }
                commits[committed] = before
                await arrivals.wait(for: committed, count: subscribers, timeout: 10)
                if arrivals.count(through: committed) < subscribers { missing += 1 }
                if interval > 0 { try await Task.sleep(nanoseconds: UInt64(interval * 1e6)) }
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            let rssAfter = serverPid.flatMap(Self.residentKiB)
            let cpuAfter = (server: serverPid.flatMap(Self.cpuSeconds), client: Self.cpuSeconds(getpid()))
            for subscription in subscriptions { subscription.cancel() }
            for reader in readers { reader.cancel() }

            var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1_000, highestTrackableValue: 600_000_000_000, numberOfSignificantValueDigits: .three)
            var delivered = 0
            var samples: [LatencyChart.Sample] = []
            for (committed, times) in arrivals.all() {
                guard let begin = commits[committed] else { continue }
                for time in times {
                    let latency = max(1_000, time > begin ? time - begin : 1_000)
                    _ = histogram.record(latency)
                    delivered += 1
                    if chart != nil {
                        samples.append(LatencyChart.Sample(
                            time: Double(time &- started.uptimeNanoseconds) / 1e9, milliseconds: Double(latency) / 1e6))
                    }
                }
            }
            func ms(_ nanoseconds: UInt64) -> Double { (Double(nanoseconds) / 1e6 * 1000).rounded() / 1000 }
            let report = Report(
                api: api.rawValue, executor: api == .async ? executor.rawValue : nil,
                subscribers: subscribers, connections: connectionCount, libraryAssets: totalAssets, transactions: commits.count,
                notificationsDelivered: delivered, notificationsExpected: commits.count * subscribers, transactionsNotFullyDelivered: missing,
                resyncs: arrivals.resyncs, seconds: seconds, registerSeconds: registerSeconds,
                latencyMs: ["p50": ms(histogram.valueAtPercentile(50)), "p90": ms(histogram.valueAtPercentile(90)), "p99": ms(histogram.valueAtPercentile(99)), "max": ms(histogram.max)],
                commitMs: ["p50": ms(commitHistogram.valueAtPercentile(50)), "p99": ms(commitHistogram.valueAtPercentile(99))],
                serverRSSMiBSubscribed: rssSubscribed.map { Double($0) / 1024 }, serverRSSMiBAfter: rssAfter.map { Double($0) / 1024 },
                serverCPUMicrosecondsPerNotification: Self.perNotification(cpuBefore.server, cpuAfter.server, delivered),
                clientCPUMicrosecondsPerNotification: Self.perNotification(cpuBefore.client, cpuAfter.client, delivered))
            if let chart {
                try LatencyChart(
                    title: "photolib bench changes: commit to notification",
                    subtitle: "\(subscribers) subscriber\(subscribers == 1 ? "" : "s") on \(connectionCount) connection\(connectionCount == 1 ? "" : "s"), \(totalAssets) assets, \(commits.count) transactions; one point per delivered notification",
                    samples: samples, unit: ("notification", "notifications")
                ).write(to: chart)
            }
            if connection.json {
                try Output.jsonLine(report)
            } else {
                let apiLabel = api == .handler ? "handler API" : executor == .connection ? "async API, connection executor" : "async API"
                let l = report.latencyMs
                print(String(format: "changes: %d subscribers (" + apiLabel + ") on %d connections, %d assets: %d transactions in %.2f s (subscribed in %.2f s)", subscribers, connectionCount, totalAssets, commits.count, seconds, registerSeconds))
                print(String(format: "commit-to-notification ms: p50 %.3f  p90 %.3f  p99 %.3f  max %.3f   (performChanges round trip p50 %.3f p99 %.3f)", l["p50"]!, l["p90"]!, l["p99"]!, l["max"]!, report.commitMs["p50"]!, report.commitMs["p99"]!))
                print("delivered \(delivered)/\(report.notificationsExpected) notifications, \(missing) transactions not delivered to all within 10 s, \(arrivals.resyncs) resyncs")
                if let server = report.serverCPUMicrosecondsPerNotification, let client = report.clientCPUMicrosecondsPerNotification {
                    print(String(format: "CPU per notification delivered while toggling: server %.1f µs, this client %.1f µs", server, client))
                }
                if let rssSubscribed, let rssAfter {
                    print(String(format: "server VmRSS: %.1f MiB subscribed, %.1f MiB after the run", Double(rssSubscribed) / 1024, Double(rssAfter) / 1024))
                }
            }
        }

        struct Report: Encodable {
            var api: String
            /// With the async API, where its tasks ran (`pool` or `connection`).
            var executor: String?
            var subscribers: Int
            var connections: Int
            var libraryAssets: Int
            var transactions: Int
            var notificationsDelivered: Int
            var notificationsExpected: Int
            var transactionsNotFullyDelivered: Int
            var resyncs: Int
            var seconds: Double
            var registerSeconds: Double
            var latencyMs: [String: Double]
            var commitMs: [String: Double]
            var serverRSSMiBSubscribed: Double?
            var serverRSSMiBAfter: Double?
            var serverCPUMicrosecondsPerNotification: Double?
            var clientCPUMicrosecondsPerNotification: Double?
        }

        /// User + system CPU time of process `pid` so far, from `/proc/PID/stat` (clock ticks).
        static func cpuSeconds(_ pid: Int32) -> Double? {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = text.lastIndex(of: ")") else { return nil }
            // After the command's closing parenthesis: state is field 3; utime and stime are 14 and 15.
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
            return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }

        /// Microseconds of CPU per notification between two readings.
        static func perNotification(_ before: Double?, _ after: Double?, _ count: Int) -> Double? {
            guard let before, let after, count > 0 else { return nil }
            return (after - before) * 1e6 / Double(count)
        }

        static func residentKiB(_ pid: Int32) -> Int? {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
            for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
                return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
            }
            return nil
        }
    }
}
