import Synchronization

/// A server-wide allowance of bytes that optional buffers draw from: a caller reserves what
/// it wants, or learns at once that it must make do without (it never waits), and releases
/// what it reserved when done.
///
/// Used for `RequestResourceData`'s read-ahead batches (``PhotoLibraryService/streamChunks(_:from:to:send:)``):
/// however many exports run at once, their batches together stay within the budget.
final class ByteBudget: Sendable {
    /// The most bytes reserved at once.
    let limit: Int
    /// Bytes reserved now. A leaf lock: nothing is called while it is held.
    private let reserved = Mutex(0)

    /// A budget of `limit` bytes.
    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// Reserves `count` bytes if they fit within the limit; `false` (and nothing reserved)
    /// when they do not.
    func reserve(_ count: Int) -> Bool {
        reserved.withLock { reserved in
            guard count <= limit - reserved else { return false }
            reserved += count
            return true
        }
    }

    /// Gives back `count` bytes from an earlier successful ``reserve(_:)``.
    func release(_ count: Int) {
        reserved.withLock { reserved in reserved = max(0, reserved - count) }
    }

    /// Bytes reserved now (for tests and statistics).
    var inUse: Int { reserved.withLock { $0 } }
}
