#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Two connected stream sockets in this process (`socketpair(AF_UNIX, SOCK_STREAM)`): the
/// in-process transport. A server serves one end exactly as it serves an accepted TCP
/// connection and a client talks over the other, so tests drive the real server and client
/// code with no listener, no port and no other process.
public enum SocketPair {
    /// Makes two connected, non-blocking, close-on-exec stream sockets. The caller owns both
    /// descriptors (a ``SocketChannel`` closes the one it is given).
    public static func make() throws(SocketError) -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        #if canImport(Glibc)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        try syscall("socketpair", "AF_UNIX") { socketpair(AF_UNIX, type, 0, &fds) }
        do {
            try SocketOptions.setNonBlocking(fds[0])
            try SocketOptions.setNonBlocking(fds[1])
        } catch {
            _ = close(fds[0])
            _ = close(fds[1])
            throw error
        }
        return (fds[0], fds[1])
    }
}
