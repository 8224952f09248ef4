import Foundation
import PhotoLibClient
import XCTest
import PhotoLibTestSupport

/// A subscriber that stops reading neither grows the server's memory nor delays the others;
/// when it reads again it gets a resync, then incremental changes.
final class SlowSubscriberTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: ServerProcess?

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("photolib-e2e-slow")
    }

    override func tearDown() {
        server?.stopGracefully()
        server = nil
        directory?.remove()
    }

    func testStalledSubscriberIsResyncedWithoutDelayingOthersOrGrowingTheServer() async throws {
        let (server, ids) = try startChangeServer(directory, photos: 30)
        self.server = server
        let writer = try await connectClient(server, name: "writer")
        let fastClient = try await connectClient(server, name: "fast")
        var small = ClientConfiguration()
        small.maxFrameSize = 128 << 10
        small.initialStreamWindow = 128 << 10
        small.initialConnectionWindow = 128 << 10
        let slowClient = try await connectClient(server, configuration: small, name: "slow")
        defer {
            writer.close()
            fastClient.close()
            slowClient.close()
        }
        let start = try await currentToken(writer)
        let specs: [(String, FetchOptions)] = [
            ("all", FetchOptions()),
            ("newest", FetchOptions(sortDescriptors: [.init(key: .creationDate, ascending: false)])),
            ("favorites", FetchOptions(predicate: "isFavorite == true")),
            ("widest 10", FetchOptions(sortDescriptors: [.init(key: .pixelWidth, ascending: false)], fetchLimit: 10)),
        ]

        // The slow subscriber registers and then never reads (its credit runs out).
        let slow = try await withTimeout(20, "slow subscribe") { try await slowClient.subscribe() }
        defer { slow.cancel() }
        var slowFetches: [TrackedFetch] = []
        // Three registrations of each (they share the server's live results): large notifications.
        for copy in 1...3 {
            for (name, options) in specs { slowFetches.append(try await TrackedFetch(name: "slow \(name) #\(copy)", options: options, subscription: slow)) }
        }
        try await withTimeout(20, "slow objects") { try await slow.register(objects: ids) }

        let fast = try await withTimeout(20, "fast subscribe") { try await fastClient.subscribe() }
        defer { fast.cancel() }
        var fastFetches: [TrackedFetch] = []
        for (name, options) in specs { fastFetches.append(try await TrackedFetch(name: "fast " + name, options: options, subscription: fast)) }
        let fastCollector = ChangeCollector(fast)
        defer { fastCollector.stop() }

        let rssBefore = try XCTUnwrap(residentKiB(server.pid))
        var peak = rssBefore
        // 300 transactions of ten favourite toggles each, each as soon as the reading subscriber has the previous one.
        var random = SplitMix64(seed: 0x510E)
        var favorites = Set<String>()
        var commits: [(token: Int64, at: Date)] = []
        let began = Date()
        for i in 0..<300 {
            let chosen = Array(ids.shuffled(using: &random).prefix(10))
            var requests: [ChangeRequest] = []
            for id in chosen {
                let now = !favorites.contains(id)
                if now { favorites.insert(id) } else { favorites.remove(id) }
                requests.append(.setAssetProperties(.init(asset: id, isFavorite: now)))
            }
            let token = try await commit(writer, "toggle \(i)", requests)
            commits.append((token, Date()))
            // Paced by the subscriber that reads: one notification per transaction (no coalescing).
            _ = try await fastCollector.waitFor(token: token, timeout: 10, "fast subscriber, transaction \(i)")
            if i % 25 == 0, let rss = residentKiB(server.pid) { peak = max(peak, rss) }
        }
        let committedIn = Date().timeIntervalSince(began)
        let last = commits.last!.token

        // (a) The fast subscriber got every transaction, contiguously and promptly.
        let fastChanges = try await fastCollector.waitFor(token: last, timeout: 10, "fast subscriber")
        let lastCommit = commits.last!.at
        let arrivals = fastCollector.arrivalTimes
        XCTAssertLessThan(arrivals[fastChanges.count - 1].timeIntervalSince(lastCommit), 10)
        assertContiguous(fastChanges, from: String(start), "fast subscriber")
        XCTAssertEqual(Set(fastChanges.map(\.changeToken)).count, fastChanges.count)
        var worst = 0.0
        var latencies: [Double] = []
        for (change, arrived) in zip(fastChanges, arrivals) {
            guard let commitTime = commits.first(where: { String($0.token) == change.changeToken })?.at else { continue }
            latencies.append(arrived.timeIntervalSince(commitTime))
            worst = max(worst, arrived.timeIntervalSince(commitTime))
        }
        latencies.sort()
        XCTAssertLessThan(worst, 5, "a notification reached the fast subscriber \(worst) s after its commit")
        for change in fastChanges {
            for fetch in fastFetches { try await fetch.apply(change) }
        }
        for fetch in fastFetches {
            XCTAssertEqual(fetch.resyncCount, 0, "\(fetch.name) was resynced although it kept up")
            try await fetch.assertMatchesFresh(writer, "300 transactions")
        }

        // (b) The server's memory stayed bounded while the slow subscriber was stalled.
        try await Task.sleep(nanoseconds: 300_000_000)
        let rssAfter = try XCTUnwrap(residentKiB(server.pid))
        peak = max(peak, rssAfter)
        XCTAssertLessThan(peak - rssBefore, 50 * 1024, "photolibd grew from \(rssBefore) KiB to \(peak) KiB with a stalled subscriber")

        // (c) The slow subscriber reads again: a resync, then incremental changes.
        let slowCollector = ChangeCollector(slow)
        defer { slowCollector.stop() }
        let slowChanges = try await slowCollector.waitFor(token: last, timeout: 20, "slow subscriber catching up")
        assertContiguous(slowChanges, from: String(start), "slow subscriber")
        XCTAssertEqual(Set(slowChanges.map(\.changeToken)).count, slowChanges.count, "a token delivered twice")
        XCTAssertLessThan(slowChanges.count, 300, "the stalled subscriber received its whole backlog instead of a resync")
        for change in slowChanges {
            for fetch in slowFetches { try await fetch.apply(change) }
        }
        for fetch in slowFetches {
            XCTAssertGreaterThan(fetch.resyncCount, 0, "\(fetch.name) never received hasIncrementalChanges == false")
            try await fetch.assertMatchesFresh(writer, "the resync")
        }
        // Objects changed during the stall are reported too (with their latest values).
        var reported = Set<String>()
        for change in slowChanges { reported.formUnion(change.changedObjects.map(\.localIdentifier)) }
        XCTAssertEqual(reported, Set(ids), "every observed asset changed during the stall")
        if let final = slowChanges.last {
            for object in final.changedObjects {
                if let asset = object.assetAfterChanges { XCTAssertEqual(asset.isFavorite, favorites.contains(asset.localIdentifier), "stale object value for \(asset.localIdentifier)") }
            }
        }

        // Then incremental again.
        let resyncs = slowFetches.map(\.resyncCount)
        let next = try await commit(writer, "after", [.setAssetProperties(.init(asset: ids[0], isFavorite: !favorites.contains(ids[0])))])
        let more = try await slowCollector.waitFor(token: next, timeout: 10, "slow subscriber live again")
        assertContiguous(more, from: String(start), "slow subscriber, live again")
        for change in more.dropFirst(slowChanges.count) {
            for fetch in slowFetches { try await fetch.apply(change) }
        }
        XCTAssertEqual(slowFetches.map(\.resyncCount), resyncs, "a subscriber that reads again gets incremental changes")
        for fetch in slowFetches { try await fetch.assertMatchesFresh(writer, "live after the resync") }
        print("slow-subscriber run: 300 commits in \(String(format: "%.2f", committedIn)) s; fast latency p50 \(String(format: "%.1f", latencies[latencies.count / 2] * 1000)) ms, max \(String(format: "%.1f", worst * 1000)) ms; RSS \(rssBefore) → peak \(peak) KiB; slow got \(slowChanges.count) notifications, resyncs \(resyncs)")
    }
}
