import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens client TCP connections.
public enum Connector {
    /// Connects to `endpoint`, trying each resolved address, within `timeoutMilliseconds`
    /// per address. Returns a non-blocking socket with `TCP_NODELAY`. Blocks the caller.
    public static func connect(to endpoint: Endpoint, timeoutMilliseconds: Int32 = 10_000) throws(SocketError) -> Int32 {
        let addresses = try SocketAddress.resolve(endpoint, passive: false)
        var lastError = SocketError(call: "connect", errno: EHOSTUNREACH, context: endpoint.description)
        for (family, address) in addresses {
            let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else {
                lastError = SocketError(call: "socket", errno: errno, context: endpoint.description)
                continue
            }
            do {
                try SocketOptions.setNonBlocking(fd)
            } catch {
                close(fd)
                throw error
            }
            let status = address.withUnsafeBytes { raw in
                Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
            }
            if status == 0 {
                SocketOptions.setNoDelay(fd)
                return fd
            }
            guard errno == EINPROGRESS else {
                lastError = SocketError(call: "connect", errno: errno, context: endpoint.description)
                close(fd)
                continue
            }
            var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&poller, 1, timeoutMilliseconds)
            var socketError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &socketError, &length)
            if ready == 1 && socketError == 0 {
                SocketOptions.setNoDelay(fd)
                return fd
            }
            lastError = SocketError(call: "connect", errno: ready == 0 ? ETIMEDOUT : (socketError != 0 ? socketError : errno), context: endpoint.description)
            close(fd)
        }
        throw lastError
    }
}
