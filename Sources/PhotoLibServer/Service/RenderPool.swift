import Foundation
import Synchronization
import PhotoLibCore
import PhotoLibImaging

/// Runs CPU-bound image work (decodes, renders, encodes) on a bounded set of threads, off
/// Swift's cooperative pool. The server has two: `photolibd.render` for requests (its
/// pre-renders for `StartCachingImages` go to a separate one-thread pool at background
/// priority, so caching never delays a request) and `photolibd.validate` for checking
/// uploads, so a hostile upload being decoded never holds up a render.
///
/// Every piece of work given a ``RenderControl`` is stopped when the calling task is cancelled
/// (CANCEL, `CancelImageRequest`, the call's deadline, a closed connection) and when it has
/// run for ``timeLimit`` seconds, whatever the client asked: a file built to burn CPU cannot
/// hold a thread for longer.
final class RenderPool: Sendable {
    private let queue: OperationQueue
    private let background: OperationQueue
    /// The most seconds one piece of work may run before it is stopped.
    let timeLimit: Double

    init(name: String = "photolibd.render", concurrency: Int, timeLimit: Double = 30) {
        let queue = OperationQueue()
        queue.name = name
        queue.maxConcurrentOperationCount = max(1, concurrency)
        queue.qualityOfService = .userInitiated
        self.queue = queue
        let background = OperationQueue()
        background.name = name + ".caching"
        background.maxConcurrentOperationCount = 1
        background.qualityOfService = .background
        self.background = background
        self.timeLimit = timeLimit
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
    /// `CancelImageRequest`, the deadline passed, the connection closed) or `work` has run for
    /// ``timeLimit`` seconds, `control` is cancelled, which stops the C decode/encode loops at
    /// their next check. Work stopped by the time limit fails with `deadlineExceeded`.
    func run<T: Sendable>(control: RenderControl, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        let limit = timeLimit
        return try await withTaskCancellationHandler {
            try await run { () throws -> T in
                let timedOut = TimeLimitFlag()
                let stop = DispatchWorkItem {
                    timedOut.set()
                    control.cancel()
                }
                DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: stop)
                defer { stop.cancel() }
                do {
                    return try work()
                } catch where timedOut.isSet {
                    // Work that failed after the timer stopped it failed because of the timer.
                    throw PhotoLibError(.deadlineExceeded, "the image took longer than the server's limit of \(Self.seconds(limit)) s to decode; it is refused")
                }
            }
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

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// Set once by a time-limit timer; read by the work it stopped.
private final class TimeLimitFlag: Sendable {
    /// Whether the timer fired.
    private let fired = Atomic<Bool>(false)

    func set() { fired.store(true, ordering: .releasing) }
    var isSet: Bool { fired.load(ordering: .acquiring) }
}
