#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PhotoLibCore

/// A failed system call: which call, on what, and `errno`'s text.
public struct SocketError: Error, Sendable, CustomStringConvertible {
    /// The system call that failed, e.g. `connect`.
    public var call: String
    /// The `errno` value.
    public var errno: Int32
    /// What was being done, e.g. `127.0.0.1:7800`.
    public var context: String

    /// Creates an error.
    public init(call: String, errno: Int32, context: String = "") {
        self.call = call
        self.errno = errno
        self.context = context
    }

    /// `connect 127.0.0.1:7800: Connection refused`.
    public var description: String {
        let text = SystemError.text(errno)
        return context.isEmpty ? "\(call): \(text)" : "\(call) \(context): \(text)"
    }
}

/// Runs a system call that answers -1 with `errno`, retrying on `EINTR` and throwing otherwise.
@discardableResult
func syscall<T: FixedWidthInteger>(_ name: String, _ context: @autoclosure () -> String = "", _ body: () -> T) throws(SocketError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        throw SocketError(call: name, errno: code, context: context())
    }
}
