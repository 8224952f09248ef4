#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP endpoint, `HOST:PORT`: an IPv4 or IPv6 literal or a host name, and a port.
public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    /// Host name or address literal (IPv6 without brackets).
    public var host: String
    /// Port 0…65535 (0: any free port, for listening).
    public var port: Int

    /// Creates an endpoint.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` or `[IPV6]:PORT`; throws a message a person can act on.
    public init(parsing text: String) throws(EndpointError) {
        var host: Substring
        var portText: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw EndpointError(text: text) }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw EndpointError(text: text) }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), (0...65_535).contains(port) else {
            throw EndpointError(text: text)
        }
        self.init(host: String(host), port: port)
    }

    /// Whether ``host`` is a loopback name or address (`localhost` and `*.localhost`,
    /// `127.0.0.0/8`, `::1`): traffic to it stays on this machine, so plain TCP is fine there
    /// and nowhere else.
    public var isLoopback: Bool { Self.isLoopback(host) }

    /// Whether `host` is a loopback name or address (see ``isLoopback``).
    public static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered.hasSuffix(".localhost") || lowered == "::1" || lowered == "0:0:0:0:0:0:0:1" { return true }
        let parts = lowered.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// `HOST:PORT`, with brackets around IPv6 literals.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

/// An endpoint that does not parse.
public struct EndpointError: Error, Sendable, CustomStringConvertible {
    /// The text given.
    public var text: String
    /// What is wrong and the expected shape.
    public var description: String {
        "'\(text)' is not HOST:PORT (e.g. 127.0.0.1:7800, localhost:7800 or [::1]:7800; port 0…65535)"
    }
}
