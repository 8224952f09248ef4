import Foundation
@testable import PhotoLibClient
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// The client library against the real server code over the in-process transport, and
/// against a scripted peer where the server would have to misbehave: deadlines, task
/// cancellation, GOAWAY, flow control and protocol errors.
final class ConnectionTests: XCTestCase {
    /// A host name that does not resolve says so, in getaddrinfo's words, not errno's
    /// ("Invalid argument — is photolibd running there?").
    func testAHostNameThatDoesNotResolveSaysSo() async throws {
        do {
            _ = try await PhotoLibrary.connect(to: "no-such-host.invalid:7800", token: "t")
            XCTFail("connected to a name that does not exist")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .unavailable)
            XCTAssertTrue(error.message.contains("the host name no-such-host.invalid does not resolve"), error.message)
            XCTAssertFalse(error.message.contains("Invalid argument"), error.message)
        }
    }

    func testFetchAndImagesThroughTightWindows() async throws {
        let server = try InProcessServer(photos: [Fixtures.landscape, Fixtures.portrait])
        addTeardownBlock { await server.tearDown() }
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token, configuration: .minimalWindows)
        defer { library.close() }
        let info = try await library.libraryInfo()
        XCTAssertEqual(info.assetCount, 2)
        let assets = try await library.fetchAssets().allObjects()
        XCTAssertEqual(Set(assets.map(\.localIdentifier)), Set(server.assets))
        let portrait = server.assets[1]
        let thumbnail = try await library.imageManager.image(
            forAssetIdentifier: portrait, targetSize: PixelSize(width: 256, height: 256),
            options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact))
        XCTAssertEqual(thumbnail.height, 256, "aspect fit of a 2560×3837 portrait")
        XCTAssertEqual(thumbnail.width, 171)
        // The original, many 128 KiB windows long: the client returns credit as it consumes.
        let original = try await library.imageManager.image(
            forAssetIdentifier: portrait, targetSize: .maximum,
            options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .none, version: .original))
        XCTAssertEqual(original.data, try Fixtures.bytes(at: Fixtures.portrait), "byte for byte")
    }

    /// Sixteen tasks on one connection await images one after the other, as the async API's
    /// busiest callers do: a task's next request may wait in the connection for the other
    /// tasks resumed with it (their requests leave together), so this checks that every
    /// request still leaves when those tasks open no call (some stop early; some make a
    /// unary call in between; one is cancelled). A request that stayed held would hang the
    /// round, which the watchdog turns into a failure.
    func testManyTasksAwaitingImagesOnOneConnectionAllFinish() async throws {
        let server = try InProcessServer(photos: [Fixtures.landscape, Fixtures.portrait])
        addTeardownBlock { await server.tearDown() }
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer { library.close() }
        let manager = library.imageManager
        let target = PixelSize(width: 128, height: 128)
        let options = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact)
        let expected = [server.assets[0]: (128, 72), server.assets[1]: (85, 128)]
        let completed = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<16 {
                group.addTask {
                    var done = 0
                    // Workers stop after 5…20 images, so tasks leave while others still run.
                    for round in 0..<(5 + worker) {
                        let asset = server.assets[(worker + round) % 2]
                        let image = try await manager.image(forAssetIdentifier: asset, targetSize: target, options: options)
                        XCTAssertEqual(image.width, expected[asset]!.0)
                        XCTAssertEqual(image.height, expected[asset]!.1)
                        done += 1
                        if worker % 4 == 1 {
                            let info = try await library.libraryInfo()
                            XCTAssertEqual(info.assetCount, 2)
                        }
                    }
                    return done
                }
            }
            let cancelled = Task {
                try await manager.image(forAssetIdentifier: server.assets[0], targetSize: .maximum, options: ImageRequestOptions(resizeMode: .none, version: .original))
            }
            cancelled.cancel()
            group.addTask {
                _ = try? await cancelled.value
                return 0
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                throw PhotoLibError(.deadlineExceeded, "the tasks did not finish within 60 s: a request stayed in the connection")
            }
            var total = 0
            for _ in 0..<17 { total += try await group.next() ?? 0 }
            group.cancelAll()
            return total
        }
        XCTAssertEqual(completed, (0..<16).reduce(0) { $0 + 5 + $1 })
        let info = try await library.libraryInfo()
        XCTAssertEqual(info.assetCount, 2, "the connection still serves calls")
    }

    /// A task's next call waits in the connection while a task resumed with it has not run
    /// yet (their calls usually leave together), and leaves as soon as that task has run,
    /// even though it opens no call of its own. Each task runs on an executor that parks it,
    /// so the order is certain: both calls end in one read turn, which resumes B and A; A
    /// runs once that turn is over and opens its next call, which must wait for B; B runs,
    /// and A's call must reach the server without anything else happening on the connection.
    /// (The hold's time limit is raised, so that only B's run can end it.)
    func testACallHeldForAResumedTaskLeavesWhenThatTaskRuns() async throws {
        let peer = try ScriptedServer()
        var configuration = ClientConfiguration()
        configuration.requestHoldLimit = 60
        let library = try await peer.connect(configuration: configuration)
        defer { library.close() }
        let gateA = GatedExecutor()
        let gateB = GatedExecutor()
        let taskA = Task(executorPreference: gateA) {
            let first = try await library.libraryInfo()
            let second = try await library.libraryInfo()
            return [first.assetCount, second.assetCount]
        }
        let callA = try await peer.next { $0.type == .call }
        let taskB = Task(executorPreference: gateB) { try await library.libraryInfo().assetCount }
        let callB = try await peer.next { $0.type == .call }
        // A CALL on the wire does not mean its task has suspended yet: a task whose answer
        // came before it suspended would go on on its own thread and never park.
        try await gateA.waitUntilIdle()
        try await gateB.waitUntilIdle()
        gateA.close()
        gateB.close()
        func answer(_ stream: UInt32, count: UInt64) -> [UInt8] {
            Frame(.message, stream: stream, payload: Wire.LibraryInfo(assetCount: count).encoded()).encoded
                + Frame(.status, stream: stream, payload: Wire.Status(code: .ok).encoded()).encoded
        }
        XCTAssertTrue(peer.raw.send(answer(callB.streamID, count: 2) + answer(callA.streamID, count: 1)))
        try await gateA.waitForParkedJob()
        try await gateB.waitForParkedJob()
        gateA.open()
        let early = try? await peer.next(timeout: 0.3) { $0.type == .call }
        XCTAssertNil(early, "A's next call left while B, resumed with A, had not run")
        gateB.open()
        let secondA = try await peer.next(timeout: 5) { $0.type == .call }
        XCTAssertTrue(peer.raw.send(answer(secondA.streamID, count: 3)))
        let countB = try await taskB.value
        let countsA = try await taskA.value
        XCTAssertEqual(countB, 2)
        XCTAssertEqual(countsA, [1, 3])
    }

    /// A task's next call held for a resumed task that does not run (its executor is
    /// blocked, as a main-actor task is while the main thread waits for the held call) still
    /// reaches the server: a hold has a time limit (a liveness check with a generous bound).
    func testACallHeldForAResumedTaskThatNeverRunsStillLeaves() async throws {
        let peer = try ScriptedServer()
        let library = try await peer.connect()
        defer { library.close() }
        let gateA = GatedExecutor()
        let gateB = GatedExecutor()
        let taskA = Task(executorPreference: gateA) {
            let first = try await library.libraryInfo()
            let second = try await library.libraryInfo()
            return [first.assetCount, second.assetCount]
        }
        let callA = try await peer.next { $0.type == .call }
        let taskB = Task(executorPreference: gateB) { try await library.libraryInfo().assetCount }
        let callB = try await peer.next { $0.type == .call }
        // A CALL on the wire does not mean its task has suspended yet: a task whose answer
        // came before it suspended would go on on its own thread and never park.
        try await gateA.waitUntilIdle()
        try await gateB.waitUntilIdle()
        gateA.close()
        gateB.close()
        func answer(_ stream: UInt32, count: UInt64) -> [UInt8] {
            Frame(.message, stream: stream, payload: Wire.LibraryInfo(assetCount: count).encoded()).encoded
                + Frame(.status, stream: stream, payload: Wire.Status(code: .ok).encoded()).encoded
        }
        XCTAssertTrue(peer.raw.send(answer(callB.streamID, count: 2) + answer(callA.streamID, count: 1)))
        try await gateA.waitForParkedJob()
        try await gateB.waitForParkedJob()
        gateA.open()
        let secondA = try? await peer.next(timeout: 5) { $0.type == .call }
        XCTAssertNotNil(secondA, "A's next call waited for B, which never ran")
        gateB.open()
        if let secondA { XCTAssertTrue(peer.raw.send(answer(secondA.streamID, count: 3))) }
        let countB = try await taskB.value
        XCTAssertEqual(countB, 2)
        if secondA != nil {
            let countsA = try await taskA.value
            XCTAssertEqual(countsA, [1, 3])
        } else {
            taskA.cancel()
        }
    }

    func testADeadlineEndsACallTheServerNeverAnswersAndCancelsIt() async throws {
        let peer = try ScriptedServer()
        var configuration = ClientConfiguration()
        configuration.callTimeout = 0.3
        let library = try await peer.connect(configuration: configuration)
        defer { library.close() }
        let started = Date()
        do {
            _ = try await library.libraryInfo()
            XCTFail("a call nobody answers must not succeed")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .deadlineExceeded, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        let call = try await peer.next { $0.type == .call }
        let start = try Wire.CallStart(decoding: call.payload)
        XCTAssertEqual(start.method, PhotoLibraryMethods.getLibraryInfo.path)
        XCTAssertEqual(start.timeoutMs, 300, "the deadline travels with the call")
        let cancel = try await peer.next { $0.type == .cancel }
        XCTAssertEqual(cancel.streamID, call.streamID, "the client abandons the call on the wire too")
    }

    func testCancellingTheTaskEndsTheCallAndSendsCancel() async throws {
        let peer = try ScriptedServer()
        let library = try await peer.connect()
        defer { library.close() }
        let task = Task { try await library.libraryInfo() }
        let call = try await peer.next { $0.type == .call }
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("a cancelled call must not succeed")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .cancelled, "\(error)")
        } catch is CancellationError {
        }
        let cancel = try await peer.next { $0.type == .cancel }
        XCTAssertEqual(cancel.streamID, call.streamID)
    }

    func testAMessageOverTheAnnouncedWindowIsAConnectionError() async throws {
        let peer = try ScriptedServer()
        let library = try await peer.connect(configuration: .minimalWindows)
        defer { library.close() }
        XCTAssertEqual(peer.hello?.initialStreamWindow, 128 << 10, "the client announces its windows")
        let task = Task { try await library.libraryInfo() }
        let call = try await peer.next { $0.type == .call }
        // 128 KiB + 1 on a stream whose window is 128 KiB: the server broke flow control.
        peer.raw.send(Frame(.message, stream: call.streamID, payload: [UInt8](repeating: 0, count: (128 << 10) + 1)))
        let goAway = try await peer.next { $0.type == .goAway }
        let status = try Wire.GoAway(decoding: goAway.payload).status
        XCTAssertEqual(status?.code, .resourceExhausted, status?.message ?? "")
        XCTAssertEqual(status?.reason, .protocolViolation)
        do {
            _ = try await task.value
            XCTFail("the call cannot succeed on a broken connection")
        } catch let error as PhotoLibError {
            XCTAssertFalse(error.message.isEmpty)
        }
    }

    func testAnUnknownFrameFromTheServerFailsCallsClearly() async throws {
        let peer = try ScriptedServer()
        let library = try await peer.connect()
        defer { library.close() }
        let task = Task { try await library.libraryInfo() }
        _ = try await peer.next { $0.type == .call }
        peer.raw.send(RawConnection.rawFrame(length: 0, type: 42))
        do {
            _ = try await task.value
            XCTFail("the call cannot succeed after a protocol error")
        } catch let error as PhotoLibError {
            // The connection error the client detected (and sent in its GOAWAY), as the call's error.
            XCTAssertEqual(error.code, .invalidArgument, "\(error)")
            XCTAssertTrue(error.message.contains("unknown frame type 42"), "the error names the frame type: \(error.message)")
        }
        let goAway = try await peer.next { $0.type == .goAway }
        XCTAssertEqual(try Wire.GoAway(decoding: goAway.payload).status?.reason, .protocolViolation)
        do {
            _ = try await library.libraryInfo()
            XCTFail("a closed connection takes no new calls")
        } catch let error as PhotoLibError {
            XCTAssertNotEqual(error.code, .ok, "\(error)")
        }
    }

    func testServerGoAwayEndsTheConnectionAndNewCallsFailCleanly() async throws {
        let server = try InProcessServer(photos: [Fixtures.landscape])
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer { library.close() }
        let info = try await library.libraryInfo()
        XCTAssertEqual(info.assetCount, 1)
        await server.tearDown()
        do {
            _ = try await library.libraryInfo()
            XCTFail("a call after the server went away must fail")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .unavailable, "\(error)")
            XCTAssertFalse(error.message.isEmpty)
        }
    }
}

/// A task executor whose jobs wait while it is closed: a task that prefers it can be resumed
/// and yet not run until the test opens it (how a test fixes the order in which tasks run).
private final class GatedExecutor: TaskExecutor, @unchecked Sendable {
    /// Guards `isOpen`, `parked` and `running`.
    private let lock = NSLock()
    private var isOpen = true
    private var parked: [UnownedJob] = []
    /// Jobs handed to a thread and not finished: a task's job ends when it suspends.
    private var running = 0

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let runNow = lock.withLock { () -> Bool in
            if !isOpen { parked.append(job) }
            return isOpen
        }
        if runNow { run(job) }
    }

    /// From now on, jobs wait for ``open()``.
    func close() {
        lock.withLock { isOpen = false }
    }

    /// Returns once no job of this executor runs (its tasks have suspended or ended), or
    /// throws after 30 s.
    func waitUntilIdle() async throws {
        for _ in 0..<3000 {
            if lock.withLock({ running == 0 }) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw PhotoLibError(.deadlineExceeded, "a task on the gated executor did not suspend within 30 s")
    }

    /// Returns once a job waits (a task that prefers this executor was resumed), or throws
    /// after 30 s.
    func waitForParkedJob() async throws {
        for _ in 0..<3000 {
            if lock.withLock({ !parked.isEmpty }) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw PhotoLibError(.deadlineExceeded, "no task was resumed onto the gated executor within 30 s")
    }

    /// Runs the waiting jobs, and later ones at once.
    func open() {
        let waiting = lock.withLock { () -> [UnownedJob] in
            isOpen = true
            defer { parked = [] }
            return parked
        }
        waiting.forEach(run)
    }

    private func run(_ job: UnownedJob) {
        lock.withLock { running += 1 }
        DispatchQueue.global().async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
            self.lock.withLock { self.running -= 1 }
        }
    }
}
