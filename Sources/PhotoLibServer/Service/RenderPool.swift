import Foundation
import PhotoLibImaging

/// Runs CPU-bound image renders on a bounded set of threads, off Swift's cooperative pool.
final class RenderPool: Sendable {
    private let queue: OperationQueue

    init(concurrency: Int) {
        let queue = OperationQueue()
        queue.name = "photolibd.render"
        queue.maxConcurrentOperationCount = max(1, concurrency)
        queue.qualityOfService = .userInitiated
        self.queue = queue
    }

    /// Runs `work` on the pool; skips it if the caller is cancelled before it starts.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { continuation in
            queue.addOperation {
                do { continuation.resume(returning: try work()) } catch { continuation.resume(throwing: error) }
            }
        }
    }
}
