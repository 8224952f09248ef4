import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening TCP socket that hands accepted connections to a callback on its queue.
public final class Listener: @unchecked Sendable {
    /// The address actually bound (with the real port when 0 was asked for).
    public let boundEndpoint: Endpoint
    private let fd: Int32
    private let queue: DispatchQueue
    private var source: (any DispatchSourceRead)?

    /// Binds and listens on `endpoint` (port 0 picks a free port).
    public init(endpoint: Endpoint, backlog: Int32 = 256, queue: DispatchQueue) throws(SocketError) {
        let addresses = try SocketAddress.resolve(endpoint, passive: true)
        var lastError = SocketError(call: "bind", errno: EADDRNOTAVAIL, context: endpoint.description)
        for (family, address) in addresses {
            let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else {
                lastError = SocketError(call: "socket", errno: errno, context: endpoint.description)
                continue
            }
            SocketOptions.setInt(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            let bound = address.withUnsafeBytes { raw in
                bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
            }
            if bound != 0 || listen(fd, backlog) != 0 {
                lastError = SocketError(call: bound != 0 ? "bind" : "listen", errno: errno, context: endpoint.description)
                close(fd)
                continue
            }
            do {
                try SocketOptions.setNonBlocking(fd)
            } catch {
                close(fd)
                throw error
            }
            self.fd = fd
            self.queue = queue
            self.boundEndpoint = SocketAddress.endpoint(of: fd, peer: false) ?? endpoint
            return
        }
        throw lastError
    }

    /// Starts accepting; `onAccept` runs on the listener's queue with each new socket
    /// (non-blocking, `TCP_NODELAY`) and its peer's address.
    public func start(onAccept: @escaping @Sendable (Int32, Endpoint?) -> Void) {
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [fd] in
            while true {
                var storage = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let client = withUnsafeMutablePointer(to: &storage) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(fd, $0, &length) }
                }
                if client < 0 {
                    // EAGAIN: drained. EMFILE/ENFILE and others: try again on the next event.
                    return
                }
                do {
                    try SocketOptions.setNonBlocking(client)
                } catch {
                    close(client)
                    continue
                }
                SocketOptions.setNoDelay(client)
                onAccept(client, SocketAddress.endpoint(from: storage))
            }
        }
        source.setCancelHandler { [fd] in _ = Glibc.close(fd) }
        self.source = source
        source.resume()
    }

    /// Stops accepting and closes the socket. Call on the listener's queue.
    public func stop() {
        source?.cancel()
        source = nil
    }
}
