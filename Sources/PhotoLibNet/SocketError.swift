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
    /// The failure's own words when `errno`'s would be wrong (`getaddrinfo`'s: "Name or
    /// service not known"); `nil`: `errno`'s text.
    public var text: String?

    /// Creates an error.
    public init(call: String, errno: Int32, context: String = "", text: String? = nil) {
        self.call = call
        self.errno = errno
        self.context = context
        self.text = text
    }

    /// Whether the host name could not be resolved (`getaddrinfo` failed).
    public var isNameResolution: Bool { call == "getaddrinfo" }

    /// `connect 127.0.0.1:7800: Connection refused`.
    public var description: String {
        let text = self.text ?? SystemError.text(errno)
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
