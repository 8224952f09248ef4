import Foundation

/// Runs blocking work on a bounded set of threads named for their job, off Swift's
/// cooperative pool, and lets async code await the result.
///
/// The one place the server's async handlers hand blocking work to: SQLite reads and
/// writes, reads of library files, waits for a fetch snapshot still being read. A
/// cooperative thread that blocks stalls every task scheduled on it, and the pool has only
/// as many threads as cores; a `BlockingPool` thread may block. At most `concurrency`
/// closures run at once however many clients call (the rest wait their turn in FIFO
/// order), so a burst of clients cannot make it spawn threads without bound.
final class BlockingPool: Sendable {
    /// The pool's name (its `OperationQueue`'s name), as the notes and logs call it.
    let name: String
    /// Runs the closures; at most `concurrency` at once.
    private let queue: OperationQueue

    /// A pool named `name` running at most `concurrency` closures at once.
    init(name: String, concurrency: Int, qualityOfService: QualityOfService = .userInitiated) {
        self.name = name
        let queue = OperationQueue()
        queue.name = name
        queue.maxConcurrentOperationCount = max(1, concurrency)
        queue.qualityOfService = qualityOfService
        self.queue = queue
    }

    /// Runs `work` on the pool and returns its result; skips it if the calling task is
    /// cancelled before it is queued. `work` may block; it must not wait for the pool itself.
    func run<T: Sendable, Failure: Error>(_ work: @escaping @Sendable () throws(Failure) -> T) async throws -> T {
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { continuation in
            queue.addOperation {
                do { continuation.resume(returning: try work()) } catch { continuation.resume(throwing: error) }
            }
        }
    }
}
