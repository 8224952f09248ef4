import Foundation
import PhotoLibImaging

/// Runs CPU-bound image renders on a bounded set of threads, off Swift's cooperative pool:
/// requests on the main pool (`userInitiated`), pre-renders for `StartCachingImages` on a
/// separate one-thread pool at background priority, so caching never delays a request.
final class RenderPool: Sendable {
    private let queue: OperationQueue
    private let background: OperationQueue

    init(concurrency: Int) {
        let queue = OperationQueue()
        queue.name = "photolibd.render"
        queue.maxConcurrentOperationCount = max(1, concurrency)
        queue.qualityOfService = .userInitiated
        self.queue = queue
        let background = OperationQueue()
        background.name = "photolibd.render.caching"
        background.maxConcurrentOperationCount = 1
        background.qualityOfService = .background
        self.background = background
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

    /// Runs `work` on the pool; when the calling task is cancelled (the client sent CANCEL,
    /// `CancelImageRequest`, the deadline passed, the connection closed) `control` is
    /// cancelled, which stops the C decode/encode loops at their next check.
    func run<T: Sendable>(control: RenderControl, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withTaskCancellationHandler {
            try await run(work)
        } onCancel: {
            control.cancel()
        }
    }

    /// Queues `work` on the background pool (pre-renders); it runs when the pool is free.
    func runInBackground(_ work: @escaping @Sendable () -> Void) {
        background.addOperation(work)
    }

    /// Pre-renders queued and not yet finished.
    var backgroundBacklog: Int { background.operationCount }
}
