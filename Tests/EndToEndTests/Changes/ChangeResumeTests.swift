import Foundation
import PhotoLibClient
import XCTest

/// A subscription resumed from a token delivers what was missed, then live changes: no gap,
/// no duplicate — after a clean close, after the client process is killed, and after a
/// backlog longer than the server's per-subscriber queue.
final class ChangeResumeTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: ServerProcess?

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("photolib-e2e-resume")
    }

    override func tearDown() {
        server?.stopGracefully()
        server = nil
        directory?.remove()
    }

    private func toggle(_ writer: PhotoLibrary, _ ids: [String], favorite: Bool) async throws -> Int64 {
        try await commit(writer, "favorite", ids.map { .setAssetProperties(.init(asset: $0, isFavorite: favorite)) })
    }

    func testResumeAfterClosingTheClientMissesNothingAndRepeatsNothing() async throws {
        let (server, ids) = try startChangeServer(directory, photos: 8)
        self.server = server
        let writer = try await connectClient(server, name: "writer")
        defer { writer.close() }
        let start = try await currentToken(writer)

        // First session: three live notifications.
        var token = String(start)
        do {
            let first = try await connectClient(server, name: "first")
            let subscription = try await withTimeout(20, "subscribe") { try await first.subscribe() }
            let fetch = try await TrackedFetch(name: "all", options: FetchOptions(), subscription: subscription)
            let collector = ChangeCollector(subscription)
            var last: Int64 = 0
            for (i, id) in ids.prefix(3).enumerated() { last = try await toggle(writer, [id], favorite: i % 2 == 0) }
            let changes = try await collector.waitFor(token: last, timeout: 10)
            assertContiguous(changes, from: String(start), "first session")
            for change in changes { try await fetch.apply(change) }
            try await fetch.assertMatchesFresh(writer, "first session")
            token = try XCTUnwrap(changes.last?.changeToken)
            collector.stop()
            first.close()
        }

        // While nobody listens: five transactions of different kinds.
        var missed: [Int64] = []
        missed.append(try await toggle(writer, [ids[4]], favorite: true))
        missed.append(try await commit(writer, "trash", [.deleteAssets([ids[5]])]))
        missed.append(try await commit(writer, "date", [.setAssetProperties(.init(asset: ids[6], creationDate: Date(timeIntervalSince1970: 1_000_000_000)))]))
        missed.append(try await commit(writer, "hide", [.setAssetProperties(.init(asset: ids[7], isHidden: true))]))
        missed.append(try await toggle(writer, [ids[0], ids[1]], favorite: false))

        // Resume: the missed transactions first (contiguous from the token), then live ones.
        let second = try await connectClient(server, name: "second")
        defer { second.close() }
        let resumeFrom = token
        let subscription = try await withTimeout(20, "subscribe(since: \(token))") { try await second.subscribe(since: resumeFrom) }
        defer { subscription.cancel() }
        let collector = ChangeCollector(subscription)
        defer { collector.stop() }
        let caughtUp = try await collector.waitFor(token: missed.last!, timeout: 10, "catch-up")
        assertContiguous(caughtUp, from: token, "catch-up")
        let covered = Set(caughtUp.map(\.changeToken))
        XCTAssertEqual(caughtUp.last?.changeToken, String(missed.last!))
        // Each missed transaction was its own commit: one notification each, naming what it touched.
        XCTAssertEqual(caughtUp.map(\.changeToken), missed.map(String.init), "one catch-up notification per missed transaction")
        if caughtUp.count == missed.count {
            XCTAssertEqual(caughtUp[0].changeDetails(forObject: ids[4])?.assetAfterChanges?.isFavorite, true)
            XCTAssertNotNil(caughtUp[1].changeDetails(forObject: ids[5]))
            XCTAssertEqual(caughtUp[3].changeDetails(forObject: ids[7])?.assetAfterChanges?.isHidden, true)
        }
        let fetch = try await TrackedFetch(name: "all", options: FetchOptions(), subscription: subscription)
        var live: [Int64] = []
        live.append(try await toggle(writer, [ids[2]], favorite: true))
        live.append(try await commit(writer, "restore", [.restoreAssets([ids[5]])]))
        let all = try await collector.waitFor(token: live.last!, timeout: 10, "live after catch-up")
        assertContiguous(all, from: token, "catch-up then live")
        XCTAssertEqual(Set(all.map(\.changeToken)).count, all.count, "a token delivered twice")
        XCTAssertTrue(covered.isDisjoint(with: all.dropFirst(caughtUp.count).map(\.changeToken)))
        for change in all.dropFirst(caughtUp.count) { try await fetch.apply(change) }
        try await fetch.assertMatchesFresh(writer, "live after resume")
    }

    func testResumeAfterTheWatchingProcessIsKilled() async throws {
        let (server, ids) = try startChangeServer(directory, photos: 6)
        self.server = server
        let writer = try await connectClient(server, name: "writer")
        defer { writer.close() }
        let start = try await currentToken(writer)

        struct Line: Decodable {
            var changeToken: String
            var sinceToken: String
            var hasIncrementalChanges: Bool?
            var count: Int?
            var changedIdentifiers: [String]?
            var insertedIdentifiers: [String]?
            var touchedIdentifiers: [String]?
            var deletedIdentifiers: [String]?
        }
        func lines(_ child: ChildProcess) -> [Line] {
            child.stdout.split(separator: "\n").compactMap { try? JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        }
        func waitForLines(_ child: ChildProcess, _ n: Int, _ what: String) throws -> [Line] {
            guard waitUntil(timeout: 15, { lines(child).count >= n || !child.isRunning }), lines(child).count >= n else {
                throw E2EError("\(what): expected \(n) JSON lines from `\(child.commandLine)`; stdout:\n\(child.stdout)\nstderr:\n\(child.stderr)")
            }
            return lines(child)
        }

        // `photolib watch --json`, killed with SIGKILL after two notifications.
        let watcher = try ChildProcess(Paths.photolib, ["watch", "--json"], environment: server.cliEnvironment)
        defer {
            watcher.killHard()
            watcher.cleanUp()
        }
        // It prints nothing until subscribed: commit until it has printed two notifications.
        var firstTokens: [Int64] = []
        var seen: [Line] = []
        let deadline = Date().addingTimeInterval(20)
        var flip = true
        while lines(watcher).count < 2, Date() < deadline, watcher.isRunning {
            firstTokens.append(try await toggle(writer, [ids[0]], favorite: flip))
            flip.toggle()
            try await Task.sleep(nanoseconds: 250_000_000)
        }
        seen = try waitForLines(watcher, 2, "before the kill")
        watcher.send(SIGKILL)
        _ = watcher.waitForExit(timeout: 10)
        seen = lines(watcher)
        let resumeToken = try XCTUnwrap(seen.last?.changeToken)
        // The lines it printed were contiguous.
        var previous = seen.first!.sinceToken
        for line in seen {
            XCTAssertEqual(line.sinceToken, previous)
            previous = line.changeToken
        }
        XCTAssertLessThanOrEqual(Int64(resumeToken)!, firstTokens.last!)
        XCTAssertGreaterThanOrEqual(Int64(seen.first!.sinceToken)!, start, "the watcher starts from the token current when it subscribed, not before")

        // Changes while no watcher runs (the commits after resumeToken not yet printed count too).
        var missed: [Int64] = []
        missed.append(try await toggle(writer, [ids[3]], favorite: true))
        missed.append(try await commit(writer, "trash", [.deleteAssets([ids[4]])]))
        missed.append(try await toggle(writer, [ids[5]], favorite: true))
        let current = try await currentToken(writer)
        let history = try await withTimeout(20, "history") { try await writer.fetchPersistentChanges(since: resumeToken) }
        let expectedCatchUp = history.changes.map(\.changeToken)
        XCTAssertEqual(expectedCatchUp.last, String(current))

        // Resume with the CLI: catch-up lines, then two live ones, then it stops by itself.
        let resumed = try ChildProcess(Paths.photolib, ["watch", "--since", resumeToken, "--json", "--count", String(expectedCatchUp.count + 2)], environment: server.cliEnvironment)
        defer {
            resumed.killHard()
            resumed.cleanUp()
        }
        let catchUp = try waitForLines(resumed, expectedCatchUp.count, "catch-up")
        XCTAssertEqual(catchUp.map(\.changeToken), expectedCatchUp, "the resumed watcher must first print exactly the missed transactions")
        // Each catch-up line says which assets its transaction touched (they used to be empty).
        for (token, asset) in zip(missed, [ids[3], ids[4], ids[5]]) {
            let line = try XCTUnwrap(catchUp.first { $0.changeToken == String(token) }, "no catch-up line for \(token)")
            XCTAssertEqual(line.touchedIdentifiers, [asset], "catch-up line \(token)")
            XCTAssertEqual(line.deletedIdentifiers, [])
        }
        // Its registerFetch follows the catch-up; commits made before it lands are (rightly)
        // not notified to a subscription with nothing registered, so keep committing until
        // the watcher has printed its two live notifications and stopped.
        var live: [Int64] = []
        var exit: ProcessResult?
        for attempt in 0..<40 where exit == nil {
            live.append(try await toggle(writer, [ids[1]], favorite: attempt % 2 == 0))
            exit = resumed.waitForExit(timeout: 0.5)
        }
        guard let result = exit else {
            XCTFail("photolib watch --count did not stop by itself; stdout:\n\(resumed.stdout)\nstderr:\n\(resumed.stderr)")
            return
        }
        XCTAssertTrue(result.succeeded, "\(result)")
        let printed = lines(resumed)
        XCTAssertEqual(printed.count, expectedCatchUp.count + 2)
        XCTAssertEqual(Array(printed.map(\.changeToken).prefix(expectedCatchUp.count)), expectedCatchUp)
        var since = resumeToken
        for line in printed {
            XCTAssertEqual(line.sinceToken, since, "gap or duplicate in \(printed.map { "\($0.sinceToken)→\($0.changeToken)" })")
            since = line.changeToken
        }
        // The live lines carry the watched fetch's details, ending at the last commit seen.
        let liveLines = printed.suffix(2)
        XCTAssertTrue(live.map(String.init).contains(liveLines.last?.changeToken ?? ""))
        for line in liveLines {
            XCTAssertEqual(line.hasIncrementalChanges, true)
            XCTAssertEqual(line.changedIdentifiers, [ids[1]])
        }
    }

    func testResumeAfterABacklogLongerThanTheServerQueue() async throws {
        let (server, ids) = try startChangeServer(directory, photos: 4)
        self.server = server
        let writer = try await connectClient(server, name: "writer")
        defer { writer.close() }
        let start = try await currentToken(writer)
        // 150 transactions while nobody is subscribed (the server queues 64 per subscriber).
        var last: Int64 = 0
        for i in 0..<150 { last = try await toggle(writer, [ids[i % ids.count]], favorite: (i / ids.count) % 2 == 0) }

        let client = try await connectClient(server, name: "resumer")
        defer { client.close() }
        let subscription = try await withTimeout(20, "subscribe(since:)") { try await client.subscribe(since: String(start)) }
        defer { subscription.cancel() }
        let collector = ChangeCollector(subscription)
        defer { collector.stop() }
        let fetch = try await TrackedFetch(name: "favorites", options: FetchOptions(predicate: "isFavorite == true"), subscription: subscription)
        let caughtUp = try await collector.waitFor(token: last, timeout: 20, "catch-up of 150")
        assertContiguous(caughtUp, from: String(start), "catch-up of 150")
        XCTAssertEqual(Set(caughtUp.map(\.changeToken)).count, caughtUp.count, "a token delivered twice")
        XCTAssertEqual(caughtUp.last?.changeToken, String(last))
        let liveToken = try await toggle(writer, [ids[0]], favorite: true)
        let all = try await collector.waitFor(token: liveToken, timeout: 10, "live after a long catch-up")
        assertContiguous(all, from: String(start), "catch-up then live")
        for change in all.dropFirst(caughtUp.count) { try await fetch.apply(change) }
        try await fetch.assertMatchesFresh(writer, "live after a long catch-up")
    }
}
