import PhotoLibCore
import Synchronization

/// The notifications of a subscription that its application has not taken yet, and the task
/// waiting for the next one: what ``ChangeSubscription/changes`` reads.
///
/// Filled on the connection's queue (``SubscriptionEvents``), emptied by the one task that
/// iterates. Each notification's flow-control credit goes back to the server only as the
/// application takes it, so the server's window bounds what waits here (a slow reader slows
/// the server down; one far behind receives a resync). Taking a notification that waits
/// already costs one hold of the lock; waiting costs one continuation and one cancellation
/// handler. (It replaces two `AsyncThrowingStream`s stacked, whose generic storage was not
/// specialized and cost three continuations and cancellation handlers per notification: 16
/// µs of client CPU per notification at 10,000 subscribers, `photolib bench changes`.)
///
/// Cancelling the waiting task cancels the subscription's call and ends the sequence (its
/// read answers `nil`), as `AsyncThrowingStream` did.
final class ChangeBacklog: Sendable {
    private struct State {
        /// Notifications not taken yet, from ``head`` on, with their message sizes.
        var waiting: [(change: PhotoLibraryChange, size: Int)] = []
        var head = 0
        /// The task waiting for the next notification.
        var reader: UnsafeContinuation<PhotoLibraryChange?, any Error>?
        /// Set when the subscription ended: `nil` inside after an orderly end.
        var end: PhotoLibError??
        /// Whether the end (an error) was handed to the reader: later reads answer `nil`.
        var endTaken = false

        /// Takes the oldest notification waiting (there is one); the array empties once all
        /// are taken, so it holds nothing between bursts.
        mutating func take() -> (change: PhotoLibraryChange, size: Int) {
            let taken = waiting[head]
            head += 1
            if head == waiting.count {
                waiting.removeAll(keepingCapacity: waiting.count <= 64)
                head = 0
            }
            return taken
        }
    }

    /// What ``State`` holds. A leaf lock: the reader is resumed after it is released.
    private let state = Mutex(State())
    private let connection: ClientConnection
    /// The subscription's call (its id is set once it is open, before anyone iterates).
    private let stream: ClientStream

    /// A backlog of `stream`'s notifications on `connection`.
    init(connection: ClientConnection, stream: ClientStream) {
        self.connection = connection
        self.stream = stream
    }

    /// A backlog that has ended already, with nothing in it (a subscription whose changes go
    /// to a handler).
    static func ended(connection: ClientConnection, stream: ClientStream) -> ChangeBacklog {
        let backlog = ChangeBacklog(connection: connection, stream: stream)
        backlog.finish(nil)
        return backlog
    }

    /// On the connection's queue: a notification of `size` bytes, for the reader (at once
    /// when it waits).
    func append(_ change: PhotoLibraryChange, size: Int) {
        let reader: UnsafeContinuation<PhotoLibraryChange?, any Error>? = state.withLock { state in
            guard state.end == nil else { return nil }
            guard let reader = state.reader else {
                state.waiting.append((change, size))
                return nil
            }
            state.reader = nil
            return reader
        }
        guard let reader else { return }
        connection.consumed(size, stream: stream.id)
        reader.resume(returning: change)
    }

    /// The subscription ended (`error`: why, `nil` after an orderly end): the reader gets
    /// what waits first, then the end. Later calls change nothing.
    func finish(_ error: PhotoLibError?) {
        let reader: UnsafeContinuation<PhotoLibraryChange?, any Error>? = state.withLock { state in
            guard state.end == nil else { return nil }
            state.end = .some(error)
            guard let reader = state.reader else { return nil }
            state.reader = nil
            state.endTaken = true
            return reader
        }
        guard let reader else { return }
        if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
    }

    /// The next notification, waiting for it when none waits; `nil` once the subscription
    /// ended (after its error, if it ended with one, is thrown once). One task at a time.
    func next() async throws -> PhotoLibraryChange? {
        switch try takeWaiting() {
        case .change(let change, let size):
            connection.consumed(size, stream: stream.id)
            return change
        case .ended:
            return nil
        case .empty:
            break
        }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<PhotoLibraryChange?, any Error>) in
                let ready: Result<(change: PhotoLibraryChange, size: Int)?, any Error>? = state.withLock { state in
                    if state.head < state.waiting.count { return .success(state.take()) }
                    if let end = state.end {
                        guard !state.endTaken, let error = end else { return .success(nil) }
                        state.endTaken = true
                        return .failure(error)
                    }
                    guard state.reader == nil else {
                        return .failure(PhotoLibError(.failedPrecondition, "ChangeSubscription.changes is being iterated by another task: one task at a time"))
                    }
                    state.reader = continuation
                    return nil
                }
                switch ready {
                case nil:
                    break
                case .success(let taken?):
                    connection.consumed(taken.size, stream: stream.id)
                    continuation.resume(returning: taken.change)
                case .success(nil):
                    continuation.resume(returning: nil)
                case .failure(let error):
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            // As `ChangeSubscription.cancel()`: the call ends, and so does the sequence.
            connection.cancel(stream.id)
            finish(nil)
        }
    }

    /// What a read finds without waiting.
    private enum Waiting {
        case change(PhotoLibraryChange, size: Int)
        case ended
        case empty
    }

    /// A notification that waits already, the end (throwing its error once), or nothing.
    private func takeWaiting() throws -> Waiting {
        let found: Result<Waiting, PhotoLibError> = state.withLock { state in
            if state.head < state.waiting.count {
                let taken = state.take()
                return .success(.change(taken.change, size: taken.size))
            }
            guard let end = state.end else { return .success(.empty) }
            guard !state.endTaken, let error = end else { return .success(.ended) }
            state.endTaken = true
            return .failure(error)
        }
        return try found.get()
    }
}
