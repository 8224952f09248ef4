import PhotoLibCore
import PhotoLibWire

/// Takes a call's response messages on the connection's queue, as they arrive, instead of
/// handing each to a task: the messages are consumed there (their flow-control credit goes
/// back without waiting for a task), and the call's outcome is reported once.
///
/// Created by the caller, then confined to the connection's queue (hence `Sendable`: an
/// implementation is `@unchecked Sendable` on that ground); it must not block the queue.
protocol ResponseConsumer: AnyObject, Sendable {
    /// One response message. Throwing ends the call: the server is sent CANCEL and
    /// ``finish(_:)`` gets the error.
    func receive(_ payload: [UInt8]) throws(PhotoLibError)

    /// One response message read where it lies (the socket's read buffer): valid only during
    /// the call. The default copies it for ``receive(_:)``; a consumer that decodes it into
    /// values of its own at once reads it in place, one copy of the bytes fewer.
    func receive(borrowing payload: BorrowedBytes) throws(PhotoLibError)

    /// The call is over: `nil` after STATUS OK, otherwise why it failed (the server's status,
    /// a lost connection, a deadline, a cancellation). Called exactly once.
    func finish(_ error: PhotoLibError?)

    /// Whether each message's flow-control credit goes back as soon as ``receive(_:)``
    /// returns (`true`, the default), or only when the consumer says it is done with the
    /// bytes (`false`: it hands them on to another queue, or a subscription's backlog until
    /// the application takes them, and calls ``ClientConnection/consumed(_:stream:)`` itself,
    /// so that a consumer slower than the network holds at most the call's receive window).
    var returnsCreditOnReceipt: Bool { get }

    /// The call is open as stream `id` (before its first message): what a consumer that
    /// returns its own credit names in ``ClientConnection/consumed(_:stream:)``.
    func opened(stream id: UInt32)

    /// Whether ``finish(_:)`` resumes the waiting task itself, on the connection's queue
    /// (`true`, the default), or hands the end to another queue that resumes it later
    /// (`false`: that queue calls ``ResumedTasks/resuming()`` just before it resumes the
    /// task, so that other tasks' requests are not held while it works; see
    /// ``ClientConnection/consume(_:request:timeout:_:)``).
    var resumesInFinish: Bool { get }
}

extension ResponseConsumer {
    func receive(borrowing payload: BorrowedBytes) throws(PhotoLibError) {
        try receive(payload.copied())
    }

    var returnsCreditOnReceipt: Bool { true }

    func opened(stream id: UInt32) {}

    var resumesInFinish: Bool { true }
}
