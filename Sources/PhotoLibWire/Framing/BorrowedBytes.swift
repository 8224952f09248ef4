/// Received bytes handed out where they lie, uncopied: a MESSAGE frame's payload in the
/// buffer a driver gave ``ConnectionStateMachine/receive(borrowing:)`` (the event loop's read
/// buffer, say). Valid only until that driver's pull of events ends: read them, or copy them
/// with ``copied()``, before the event's handling returns; never keep them.
public struct BorrowedBytes: @unchecked Sendable, Hashable {
    /// The bytes.
    public let buffer: UnsafeRawBufferPointer

    /// Wraps `buffer` (see the type's comment for how long it may be used).
    public init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    /// How many bytes.
    public var count: Int { buffer.count }

    /// The bytes, copied into an array of their own.
    public func copied() -> [UInt8] { Array(buffer) }

    /// Equal when the bytes are: wherever they lie.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.buffer.elementsEqual(rhs.buffer)
    }

    /// Hashes the bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes: buffer)
    }
}
