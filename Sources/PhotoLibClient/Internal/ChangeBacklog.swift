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
    /// Whether the subscription still runs, and how it ended.
    private enum Ending {
        case running
        /// Ended with this error, not handed to the reader yet.
        case failed(PhotoLibError)
        /// Ended: in order, or with an error the reader has been given (later reads answer `nil`).
        case ended
    }

    private struct State {
        /// Notifications not taken yet, from ``head`` on, with their message sizes.
        var waiting: [(change: PhotoLibraryChange, size: Int)] = []
        var head = 0
        /// The task waiting for the next notification.
        var reader: UnsafeContinuation<PhotoLibraryChange?, any Error>?
        var ending = Ending.running
    }

    /// What a read finds.
    private enum Found {
        case change(PhotoLibraryChange, size: Int)
        case end
        case error(PhotoLibError)
        /// Nothing yet: the reader given (if any) now waits.
        case nothing
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
            guard case .running = state.ending else { return nil }
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
            guard case .running = state.ending else { return nil }
            // A reader waits only when nothing does: it takes the end at once.
            state.ending = state.reader == nil ? error.map(Ending.failed) ?? .ended : .ended
            defer { state.reader = nil }
            return state.reader
        }
        guard let reader else { return }
        if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
    }

    /// The next notification, waiting for it when none waits; `nil` once the subscription
    /// ended (after its error, if it ended with one, is thrown once). One task at a time.
    func next() async throws -> PhotoLibraryChange? {
        switch take(orWait: nil) {
        case .change(let change, let size):
            connection.consumed(size, stream: stream.id)
            return change
        case .end:
            return nil
        case .error(let error):
            throw error
        case .nothing:
            break
        }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<PhotoLibraryChange?, any Error>) in
                switch take(orWait: continuation) {
                case .change(let change, let size):
                    connection.consumed(size, stream: stream.id)
                    continuation.resume(returning: change)
                case .end:
                    continuation.resume(returning: nil)
                case .error(let error):
                    continuation.resume(throwing: error)
                case .nothing:
                    break
                }
            }
        } onCancel: {
            // As `ChangeSubscription.cancel()`: the sequence ends (first, so that the call's
            // CANCELLED, coming back from the connection's queue, cannot fail the read
            // instead), and so does the call.
            finish(nil)
            connection.cancel(stream.id)
        }
    }

    /// Under the lock: the oldest notification waiting (the array empties once all are
    /// taken, so it holds nothing between bursts), else the end (an error once, then `nil`),
    /// else nothing, and then `reader`, if given, waits. A second reader waiting at once is
    /// refused (`failedPrecondition`).
    private func take(orWait reader: UnsafeContinuation<PhotoLibraryChange?, any Error>?) -> Found {
        state.withLock { state in
            if state.head < state.waiting.count {
                let taken = state.waiting[state.head]
                state.head += 1
                if state.head == state.waiting.count {
                    state.waiting.removeAll(keepingCapacity: state.waiting.count <= 64)
                    state.head = 0
                }
                return .change(taken.change, size: taken.size)
            }
            switch state.ending {
            case .ended:
                return .end
            case .failed(let error):
                state.ending = .ended
                return .error(error)
            case .running:
                guard let reader else { return .nothing }
                guard state.reader == nil else {
                    return .error(PhotoLibError(.failedPrecondition, "ChangeSubscription.changes is being iterated by another task: one task at a time"))
                }
                state.reader = reader
                return .nothing
            }
        }
    }
}
