import Foundation
internal import CPhotoLibSystem

/// Runs blocking work on a bounded set of threads named for their job, off Swift's
/// cooperative pool and the event loops: async code awaits the result (``run(_:)``), the
/// connection queues hand work over without waiting (``submit(_:)``).
///
/// The one place the server hands blocking work to: SQLite reads and writes, reads of
/// library files, waits for a fetch snapshot still being read. A cooperative thread that
/// blocks stalls every task scheduled on it, and the pool has only as many threads as cores;
/// a `BlockingPool` thread may block. At most `concurrency` closures run at once however
/// many clients call (the rest wait their turn in FIFO order), so a burst of clients cannot
/// make it spawn threads without bound.
///
/// Its threads are its own (not Dispatch's or an `OperationQueue`'s): a closure is handed to
/// a thread waiting on the pool's condition variable, one wake-up, where an `OperationQueue`
/// on Linux took two or three thread hops through libdispatch per closure. A thread starts
/// when work finds every running thread busy (up to `concurrency`) and ends after
/// `idleTimeout` seconds without work, so an idle server holds none. Work waiting for a
/// thread is bounded by the calls that can be open (`maxConcurrentStreams` per connection).
///
/// `@unchecked Sendable`: ``condition`` guards `jobs`, `head`, `threads` and `idle`; the
/// other properties are immutable.
final class BlockingPool: @unchecked Sendable {
    /// The pool's name (its threads' name), as the notes and logs call it.
    let name: String
    /// The most closures running at once (the most threads).
    let concurrency: Int
    /// How long a thread waits for work before it ends (seconds).
    let idleTimeout: TimeInterval
    /// The nice value its threads take at least when they start (0: the process's): 10 for background
    /// work that should yield the CPU to serving (see `CPhotoLibSystem_lower_thread_priority`).
    let niceness: Int32
    /// Guards the queue and the thread counts, and wakes idle threads when work arrives (a
    /// condition variable, which `Mutex` has not). A leaf lock: closures run outside it.
    private let condition = NSCondition()
    /// Work not started yet, in order from `head` (the taken prefix is dropped in bulk).
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    /// Threads running (busy or waiting for work), at most `concurrency`.
    private var threads = 0
    /// Threads waiting for work.
    private var idle = 0

    /// A pool named `name` running at most `concurrency` closures at once, on threads that
    /// run at nice value `niceness`.
    init(name: String, concurrency: Int, idleTimeout: TimeInterval = 10, niceness: Int32 = 0) {
        self.name = name
        self.concurrency = max(1, concurrency)
        self.idleTimeout = idleTimeout
        self.niceness = niceness
    }

    /// Runs `work` on the pool and returns its result; skips it if the calling task is
    /// cancelled before it is queued. `work` may block; it must not wait for the pool itself.
    func run<T: Sendable, Failure: Error>(_ work: @escaping @Sendable () throws(Failure) -> T) async throws -> T {
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { continuation in
            submit {
                do { continuation.resume(returning: try work()) } catch { continuation.resume(throwing: error) }
            }
        }
    }

    /// Queues `work` and returns at once (never blocks: callable from a connection's queue).
    /// `work` may block; it must not wait for the pool itself.
    func submit(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(work)
        // More work waiting than threads waiting for it: one more thread, within the bound.
        let start = jobs.count - head > idle && threads < concurrency
        if start { threads += 1 }
        condition.unlock()
        // Signalled after the unlock: a thread woken while this one still held the lock
        // would wake only to wait for it (two more futex calls and a switch per job). The
        // woken thread checks for work under the lock, so no job is missed.
        condition.signal()
        if start {
            // Linux keeps 15 bytes of a thread's name: "photolibd.library-io" shows as
            // "library-io". Set by the thread itself (set before start, Foundation keeps it
            // to itself and the thread shows its creator's name).
            let threadName = name.utf8.count > 15 ? String(name.split(separator: ".").last ?? "") : name
            Thread { [self] in
                Thread.current.name = threadName
                // Best effort: a thread the system keeps at the process's priority still works.
                if niceness != 0 { _ = CPhotoLibSystem_lower_thread_priority(niceness) }
                takeWork()
            }.start()
        }
    }

    /// How many threads the pool has now (busy or idle).
    var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return threads
    }

    /// A thread's life: takes work in order until none comes for `idleTimeout`.
    private func takeWork() {
        condition.lock()
        while true {
            while head == jobs.count {
                idle += 1
                let signalled = condition.wait(until: Date(timeIntervalSinceNow: idleTimeout))
                idle -= 1
                if !signalled && head == jobs.count {
                    threads -= 1
                    condition.unlock()
                    return
                }
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: jobs.capacity <= 1024)
                head = 0
            } else if head >= 1024 {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job()
            condition.lock()
        }
    }
}
