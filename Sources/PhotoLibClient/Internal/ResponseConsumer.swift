import PhotoLibCore

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

    /// The call is over: `nil` after STATUS OK, otherwise why it failed (the server's status,
    /// a lost connection, a deadline, a cancellation). Called exactly once.
    func finish(_ error: PhotoLibError?)

    /// Whether the connection returns each message's flow-control credit as it arrives
    /// (`true`, the default), or the consumer returns it later with
    /// ``ClientConnection/consumed(_:stream:)`` — a subscription does when the application
    /// takes a notification, so that a slow reader slows the server down.
    var returnsCreditOnArrival: Bool { get }
}

extension ResponseConsumer {
    /// Credit goes back as messages arrive.
    var returnsCreditOnArrival: Bool { true }
}
