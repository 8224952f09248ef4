import PhotoLibCore

/// One receive window of a client (a call's, or the connection's): what the server may
/// still send, and the credit for consumed bytes that has not gone back yet
/// (docs/PROTOCOL.md, 9.3).
///
/// Consumed bytes go back in batches rather than one WINDOW_UPDATE per message. Credit is
/// held back only while the window left still takes the largest message the server may send
/// and less than a batch has gathered: a quarter of the initial window, but never more than
/// the largest message (docs/PROTOCOL.md 9.3: credit held back must go once it reaches that
/// size). The second bound matters because the server may use less of a window than the
/// client announced (its own maxima, 9.3): a client announcing 256 MiB that waited for 64 MiB
/// of consumption would wait forever on a server that stops at 16 MiB. The state machine asks
/// ``take()`` after every read and every consumption, so once the server could be waiting
/// for credit none is held back: a call never stalls on credit the client kept.
public struct ReceiveCredit: Sendable, Hashable {
    /// The window as the server will see it once every update sent has arrived.
    public private(set) var window: FlowWindow
    /// Consumed bytes whose credit has not been given back.
    public private(set) var held = 0
    private let largestMessage: Int
    private let batch: Int

    /// A window of `initial` bytes into which the server sends messages of at most
    /// `largestMessage` bytes.
    public init(initial: Int, largestMessage: Int) {
        window = FlowWindow(initial: initial)
        self.largestMessage = largestMessage
        batch = max(1, min(initial / 4, largestMessage))
    }

    /// `count` bytes arrived; throws `resourceExhausted` (protocol violation) when the server
    /// sent more than the window allowed.
    public mutating func receive(_ count: Int) throws(PhotoLibError) {
        try window.spend(count)
    }

    /// `count` bytes were consumed: their credit may go back.
    public mutating func consume(_ count: Int) {
        held += count
    }

    /// The increment to send in a WINDOW_UPDATE now, if the held credit must or may go back;
    /// the window then counts it as granted.
    public mutating func take() -> Int? {
        guard held > 0, held >= batch || window.available < largestMessage else { return nil }
        let increment = held
        held = 0
        // Never past the initial window: only spent credit comes back.
        try? window.grant(increment)
        return increment
    }
}
