import Foundation
import Synchronization
@testable import PhotoLibClient
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import XCTest

/// ``PhotoLibrary/taskExecutor``: tasks that prefer it run on the connection's queue after
/// each call of theirs, every call still completes (images, unary calls, awaits elsewhere in
/// between, tasks on Swift's pool beside them), and a closed connection or a cancelled task
/// still resumes them. The real server code serves over the in-process transport.
final class ConnectionExecutorTests: XCTestCase {
    func testTasksPreferringTheConnectionExecutorRunOnItsQueueAndFinish() async throws {
        let server = try InProcessServer(photos: [Fixtures.landscape, Fixtures.portrait])
        addTeardownBlock { await server.tearDown() }
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer { library.close() }
        let manager = library.imageManager
        let target = PixelSize(width: 128, height: 128)
        let options = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact)
        let expected = [server.assets[0]: (128, 72), server.assets[1]: (85, 128)]
        let connection = library.connection
        let completed = try await withThrowingTaskGroup(of: (done: Int, offQueue: Int).self) { group in
            for worker in 0..<20 {
                // Four of the tasks stay on Swift's pool, beside the others on the connection.
                let preferred = worker % 5 == 4 ? nil : library.taskExecutor
                group.addTask(executorPreference: preferred) {
                    var done = 0, offQueue = 0
                    for round in 0..<(5 + worker) {
                        let asset = server.assets[(worker + round) % 2]
                        let image = try await manager.image(forAssetIdentifier: asset, targetSize: target, options: options)
                        if connection.isOnQueue != (preferred != nil) { offQueue += 1 }
                        XCTAssertEqual(image.width, expected[asset]!.0)
                        XCTAssertEqual(image.height, expected[asset]!.1)
                        done += 1
                        if worker % 3 == 1 {
                            let info = try await library.libraryInfo()
                            XCTAssertEqual(info.assetCount, 2)
                            if connection.isOnQueue != (preferred != nil) { offQueue += 1 }
                        }
                        if worker % 4 == 2 {
                            // Away and back: the task returns to its preferred executor.
                            try await Task.sleep(for: .milliseconds(1))
                            if connection.isOnQueue != (preferred != nil) { offQueue += 1 }
                        }
                    }
                    return (done, offQueue)
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                throw PhotoLibError(.deadlineExceeded, "the tasks did not finish within 60 s: a job was never run")
            }
            var total = (done: 0, offQueue: 0)
            for _ in 0..<20 {
                let result = try await group.next()!
                total.done += result.done
                total.offQueue += result.offQueue
            }
            group.cancelAll()
            return total
        }
        XCTAssertEqual(completed.done, (0..<20).reduce(0) { $0 + 5 + $1 })
        XCTAssertEqual(completed.offQueue, 0, "tasks preferring the connection's executor run on its queue after each await, the others never do")
        XCTAssertFalse(connection.isOnQueue)
    }

    /// A task on the executor that yields without end does not keep the connection's queue:
    /// each yield is a turn of its own, and calls keep being answered meanwhile.
    func testATaskThatKeepsYieldingDoesNotStarveTheConnection() async throws {
        let server = try InProcessServer(photos: [Fixtures.landscape])
        addTeardownBlock { await server.tearDown() }
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer { library.close() }
        let stop = Mutex(false)
        let yielder = Task(executorPreference: library.taskExecutor) { () -> Int in
            var yields = 0
            while !stop.withLock({ $0 }) {
                await Task.yield()
                yields += 1
            }
            return yields
        }
        let answered = try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask {
                var count = 0
                for _ in 0..<5 { count += try await library.libraryInfo().assetCount }
                return count
            }
            group.addTask {
                try await Task.sleep(for: .seconds(20))
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            return first
        }
        stop.withLock { $0 = true }
        let yields = await yielder.value
        XCTAssertEqual(answered, 5, "calls are answered while a task on the executor keeps yielding")
        XCTAssertGreaterThan(yields, 0)
    }

    /// Closing the connection, or cancelling a task, while tasks on its executor wait for
    /// calls ends those calls and resumes the tasks, with the reason.
    func testClosingAndCancellingResumeTasksOnTheConnectionExecutor() async throws {
        let server = try InProcessServer(photos: [Fixtures.landscape, Fixtures.portrait])
        addTeardownBlock { await server.tearDown() }
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        let manager = library.imageManager
        let original = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .none, version: .original)
        let cancelled = Task(executorPreference: library.taskExecutor) {
            while true {
                _ = try await manager.image(forAssetIdentifier: server.assets[1], targetSize: .maximum, options: original)
                try Task.checkCancellation()
            }
        }
        let looping = (0..<8).map { worker in
            Task(executorPreference: library.taskExecutor) { () -> Int in
                var done = 0
                do {
                    while true {
                        _ = try await manager.image(forAssetIdentifier: server.assets[worker % 2], targetSize: PixelSize(width: 64, height: 64))
                        done += 1
                    }
                } catch {
                    XCTAssertEqual((error as? PhotoLibError)?.code, .cancelled, "\(error)")
                }
                return done
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        cancelled.cancel()
        do {
            try await cancelled.value
            XCTFail("a cancelled task's call must end it")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .cancelled)
        } catch is CancellationError {}
        library.close()
        var total = 0
        for task in looping { total += await task.value }
        XCTAssertGreaterThan(total, 0, "the tasks made calls before the close")
    }
}
