import Foundation
import Synchronization
import XCTest

@testable import PhotoLibServer

/// `AsyncSlots`: never more holders than the limit, waiters served first come first served,
/// a cancelled waiter leaves at once and takes no slot. Real tasks, no timing assertions.
final class AsyncSlotsTests: XCTestCase {
    /// A value the test's tasks share.
    final class Shared<Value: Sendable>: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
        func withLock<T>(_ body: (inout Value) -> T) -> T { value.withLock { body(&$0) } }
    }

    func testNeverMoreHoldersThanTheLimit() async throws {
        let slots = AsyncSlots(limit: 3)
        let counts = Shared((now: 0, most: 0))
        // Holders keep their slot until the gate opens: the rest must be waiting by then.
        let gate = Shared(false)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    try await slots.acquire()
                    counts.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                    while !gate.withLock({ $0 }) { await Task.yield() }
                    counts.withLock { $0.now -= 1 }
                    slots.release()
                }
            }
            let deadline = ContinuousClock.now + .seconds(30)
            while !(slots.inUse == 3 && slots.waiting == 61) && ContinuousClock.now < deadline { await Task.yield() }
            XCTAssertEqual(slots.inUse, 3)
            XCTAssertEqual(slots.waiting, 61, "every task beyond the limit waits")
            XCTAssertEqual(counts.withLock { $0.most }, 3)
            gate.withLock { $0 = true }
            try await group.waitForAll()
        }
        XCTAssertEqual(counts.withLock { $0.most }, 3)
        XCTAssertEqual(slots.inUse, 0)
        XCTAssertEqual(slots.waiting, 0)
    }

    func testWaitersAreServedInTheOrderTheyCame() async throws {
        let slots = AsyncSlots(limit: 1)
        try await slots.acquire()
        let order = Shared<[Int]>([])
        var tasks: [Task<Void, any Error>] = []
        for index in 0..<5 {
            tasks.append(Task {
                try await slots.acquire()
                order.withLock { $0.append(index) }
                slots.release()
            })
            // The next waiter queues only after this one is queued.
            while slots.waiting < index + 1 { await Task.yield() }
        }
        slots.release()
        for task in tasks { try await task.value }
        XCTAssertEqual(order.withLock { $0 }, [0, 1, 2, 3, 4])
    }

    func testACancelledWaiterLeavesAtOnceAndTakesNoSlot() async throws {
        let slots = AsyncSlots(limit: 1)
        try await slots.acquire()
        let waiter = Task { try await slots.acquire() }
        while slots.waiting < 1 { await Task.yield() }
        waiter.cancel()
        do {
            try await waiter.value
            XCTFail("a cancelled waiter got a slot")
        } catch is CancellationError {}
        XCTAssertEqual(slots.waiting, 0)
        slots.release()
        XCTAssertEqual(slots.inUse, 0, "the slot went back to the free count, not to the cancelled waiter")
        try await slots.acquire()
        XCTAssertEqual(slots.inUse, 1)
    }

    func testATaskCancelledBeforeAskingGetsNoSlot() async throws {
        let slots = AsyncSlots(limit: 2)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await slots.acquire()
        }
        do {
            try await task.value
            XCTFail("a cancelled task got a slot")
        } catch is CancellationError {}
        XCTAssertEqual(slots.inUse, 0)
    }
}
