#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves endpoints with `getaddrinfo` and formats socket addresses.
enum SocketAddress {
    /// The addresses `endpoint` resolves to, for TCP.
    static func resolve(_ endpoint: Endpoint, passive: Bool) throws(SocketError) -> [(family: Int32, address: [UInt8])] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        hints.ai_flags = passive ? AI_PASSIVE : 0
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard status == 0, let first = list else {
            let text = status == 0 ? "no address" : String(cString: gai_strerror(status))
            throw SocketError(call: "getaddrinfo", errno: EINVAL, context: "\(endpoint)", text: text)
        }
        defer { freeaddrinfo(list) }
        var result: [(Int32, [UInt8])] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            if let address = info.pointee.ai_addr {
                let bytes = UnsafeRawBufferPointer(start: address, count: Int(info.pointee.ai_addrlen))
                result.append((info.pointee.ai_family, Array(bytes)))
            }
            cursor = info.pointee.ai_next
        }
        return result
    }

    /// `HOST:PORT` of a socket's local (`peer == false`) or remote address.
    static func endpoint(of fd: Int32, peer: Bool) -> Endpoint? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                peer ? getpeername(fd, $0, &length) : getsockname(fd, $0, &length)
            }
        }
        guard status == 0 else { return nil }
        return endpoint(from: storage)
    }

    /// The text of a NUL-terminated buffer `inet_ntop` filled.
    private static func string(_ buffer: [CChar]) -> String {
        let end = buffer.firstIndex(of: 0) ?? buffer.endIndex
        return String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func endpoint(from storage: sockaddr_storage) -> Endpoint? {
        var copy = storage
        return withUnsafePointer(to: &copy) { pointer -> Endpoint? in
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            switch Int32(storage.ss_family) {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var address = sin.pointee.sin_addr
                    inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
                    return Endpoint(host: Self.string(text), port: Int(UInt16(bigEndian: sin.pointee.sin_port)))
                }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                    var address = sin6.pointee.sin6_addr
                    inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
                    return Endpoint(host: Self.string(text), port: Int(UInt16(bigEndian: sin6.pointee.sin6_port)))
                }
            default:
                return nil
            }
        }
    }
}

/// Socket options shared by listener and connector.
enum SocketOptions {
    static func setNonBlocking(_ fd: Int32) throws(SocketError) {
        let flags = try syscall("fcntl") { fcntl(fd, F_GETFL) }
        try syscall("fcntl") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    static func setInt(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var v = value
        _ = setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Low latency for small request/response frames.
    static func setNoDelay(_ fd: Int32) {
        setInt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
    }
}
