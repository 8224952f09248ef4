import Foundation
import PhotoLibCore
import Synchronization
import XCTest

@testable import PhotoLibServer

/// `BlockingPool`'s own threads: bounded, in order, results and errors back to the caller,
/// idle threads ending. Real threads and real blocking (semaphores), no timing assertions.
final class BlockingPoolTests: XCTestCase {
    func testResultsComeBackToEveryCaller() async throws {
        let pool = BlockingPool(name: "test.pool", concurrency: 3)
        let results = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for index in 0..<200 {
                group.addTask { (index, try await pool.run { index * index }) }
            }
            var results: [Int: Int] = [:]
            for try await (index, square) in group { results[index] = square }
            return results
        }
        XCTAssertEqual(results.count, 200)
        for (index, square) in results { XCTAssertEqual(square, index * index) }
        XCTAssertLessThanOrEqual(pool.threadCount, 3)
    }

    func testErrorsReachTheCallerAsThrown() async {
        let pool = BlockingPool(name: "test.pool", concurrency: 2)
        do {
            _ = try await pool.run { () throws(PhotoLibError) -> Int in throw PhotoLibError(.notFound, "no such thing") }
            XCTFail("the error was not thrown")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .notFound)
            XCTAssertEqual(error.message, "no such thing")
        } catch {
            XCTFail("unexpected error \(error)")
        }
    }

    /// Twenty closures that block until released: exactly `concurrency` run at once, the
    /// rest wait their turn, and all of them complete once released.
    func testNoMoreThanConcurrencyRunAtOnce() throws {
        let pool = BlockingPool(name: "test.pool", concurrency: 3)
        let running = Mutex((now: 0, most: 0))
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0..<20 {
            done.enter()
            pool.submit {
                running.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                started.signal()
                gate.wait()
                running.withLock { $0.now -= 1 }
                done.leave()
            }
        }
        for _ in 0..<3 { XCTAssertEqual(started.wait(timeout: .now() + 10), .success, "three closures start") }
        // A fourth cannot start while the three block.
        XCTAssertEqual(started.wait(timeout: .now() + 0.3), .timedOut, "a fourth closure started beside three blocked ones")
        XCTAssertEqual(pool.threadCount, 3)
        for _ in 0..<20 { gate.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "every closure ran")
        XCTAssertEqual(running.withLock { $0.most }, 3)
    }

    func testOneThreadRunsWorkInTheOrderSubmitted() {
        let pool = BlockingPool(name: "test.pool", concurrency: 1)
        let order = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        for index in 0..<2000 {
            pool.submit {
                order.withLock { $0.append(index) }
                if index == 1999 { done.signal() }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.withLock { $0 }, Array(0..<2000))
    }

    /// A pool for background work runs it at least at its nice value; a default pool's thread keeps
    /// the one it inherits from the thread that started it (Linux keeps a nice value per
    /// thread, `getpriority` of 0 is this thread's; Dispatch gives its threads one by QoS).
    func testAPoolsThreadsRunAtItsNiceValue() async throws {
        func niceness(_ pool: BlockingPool) async throws -> Int32 {
            try await pool.run { () throws(PhotoLibError) -> Int32 in getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }
        }
        let process = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let background = BlockingPool(name: "test.background", concurrency: 1, niceness: 10)
        let lowered = try await niceness(background)
        let plain = try await niceness(BlockingPool(name: "test.pool", concurrency: 1))
        XCTAssertEqual(lowered, max(10, process), "10, or the process's own when it already runs nicer")
        XCTAssertEqual(plain, process)
        XCTAssertEqual(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0), process, "the caller's own thread keeps its priority")
    }

    func testIdleThreadsEndAndNewWorkStartsOneAgain() async throws {
        let pool = BlockingPool(name: "test.pool", concurrency: 2, idleTimeout: 0.1)
        _ = try await pool.run { 1 }
        let deadline = Date().addingTimeInterval(10)
        while pool.threadCount > 0, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        XCTAssertEqual(pool.threadCount, 0, "an idle pool holds no thread")
        let answer = try await pool.run { 42 }
        XCTAssertEqual(answer, 42, "work after the threads ended runs on a new one")
    }

    func testACancelledTaskDoesNotQueueItsWork() async {
        let pool = BlockingPool(name: "test.pool", concurrency: 1)
        let ran = Atomic<Bool>(false)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pool.run { ran.store(true, ordering: .relaxed) }
        }
        do {
            try await task.value
            XCTFail("a cancelled task's work was run")
        } catch {
            XCTAssertTrue(error is CancellationError)
        }
        XCTAssertFalse(ran.load(ordering: .relaxed))
    }
}
