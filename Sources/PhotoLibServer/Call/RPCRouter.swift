import PhotoLibCore
import PhotoLibWire

/// A method's implementation.
public typealias RPCHandler = @Sendable (ServerCall) async throws -> Void

/// A method's fast path, run on the connection's queue as soon as the call's single request
/// message has arrived, before any task exists: it answers what it can from memory (a cached
/// image) and returns `nil` for everything else, which then goes to the method's
/// ``RPCHandler`` with the same request. It must not wait for anything.
public typealias InlineRPCHandler = @Sendable (_ request: [UInt8], _ context: InlineCallContext) throws(PhotoLibError) -> InlineReply?

/// What a fast path knows about its call besides the request.
public struct InlineCallContext: Sendable {
    /// The connection's session.
    public let session: ConnectionSession
    /// When the request's bytes had been read from the socket (uptime nanoseconds): what
    /// the fast path answers must reflect the library at that moment or later.
    public let receivedAt: UInt64
}

/// What an ``InlineRPCHandler`` answers: the encoded response messages, sent in order
/// (each within flow control) and followed by an `OK` status.
public struct InlineReply: Sendable {
    /// The encoded response messages.
    public var messages: [[UInt8]]

    /// A reply of `messages`.
    public init(messages: [[UInt8]]) {
        self.messages = messages
    }
}

/// A registered method: its descriptor, handler and optional fast path.
struct RPCRoute: Sendable {
    let method: MethodDescriptor
    let handler: RPCHandler
    let inline: InlineRPCHandler?
}

/// Maps wire method names to handlers; listed methods without one answer `UNIMPLEMENTED`.
public struct RPCRouter: Sendable {
    private var routes: [String: RPCRoute] = [:]

    /// An empty router.
    public init() {}

    /// Registers the handler of `method`.
    public mutating func register(_ method: MethodDescriptor, _ handler: @escaping RPCHandler) {
        routes[method.path] = RPCRoute(method: method, handler: handler, inline: nil)
    }

    /// Registers the handler of a unary or server-streaming `method` with a fast path tried
    /// first on the connection's queue (see ``InlineRPCHandler``).
    public mutating func register(_ method: MethodDescriptor, inline: @escaping InlineRPCHandler, _ handler: @escaping RPCHandler) {
        precondition(!method.shape.clientStreams, "\(method.name): only calls with one request message have a fast path")
        routes[method.path] = RPCRoute(method: method, handler: handler, inline: inline)
    }

    /// The route for a wire name, or the error to answer with.
    func resolve(_ path: String) -> Result<RPCRoute, PhotoLibError> {
        if let route = routes[path] { return .success(route) }
        if let method = PhotoLibraryMethods.method(path: path) {
            return .failure(PhotoLibError(.unimplemented, "\(method.name) is part of the protocol but not built in this server yet"))
        }
        let shown = path.count > 120 ? String(path.prefix(120)) + "…" : path
        return .failure(PhotoLibError(.unimplemented, "unknown method '\(shown)': methods are named /\(MethodDescriptor.serviceName)/<Method> (see Protos/service.proto)"))
    }
}
