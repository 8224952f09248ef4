import Dispatch
import PhotoLibCore
import PhotoLibWire

/// A method's implementation, as the router stores it (the request and response types are
/// checked where it is registered, see ``RPCRouter/register(_:_:)``).
typealias RPCHandler = @Sendable (UntypedServerCall) async throws -> Void

/// A method's fast path, run on the connection's queue as soon as the call's single request
/// message has arrived, before any task exists: it answers what it can from memory (a cached
/// image) and returns `nil` for everything else, which then goes to the method's
/// `RPCHandler` with the same request. It must not wait for anything.
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

/// A unary method whose whole work blocks (SQLite, files), run on a ``BlockingPool``
/// thread as soon as the call's request message has arrived, with no task: the complete
/// request in, the encoded response out (sent, then `OK`; a thrown error is the STATUS).
/// The connection hands it over without waiting and takes the reply back on its queue, so
/// a call costs one thread wake-up on the server (event loop → pool thread) instead of the
/// hops of a task awaiting the pool and its sends.
typealias PooledRPCHandler = @Sendable (_ request: [UInt8], _ context: InlineCallContext) throws(PhotoLibError) -> [UInt8]

/// Where and how a method's pooled path (``PooledRPCHandler``) runs.
struct PooledRoute: Sendable {
    /// The pool its work runs on.
    let pool: BlockingPool
    /// The work.
    let handler: PooledRPCHandler
}

/// A registered method: its descriptor, handler and optional fast or pooled path.
///
/// A class: every call's stream keeps its route, and a reference is one retain where the
/// value's closures and strings were one each.
final class RPCRoute: Sendable {
    let method: MethodInfo
    let handler: RPCHandler
    let inline: InlineRPCHandler?
    let pooled: PooledRoute?
    /// The wire name it is registered under (``MethodInfo/path``, made once).
    let path: String
    /// What a connection must be to call it (``MethodAccess/required(for:)``, looked up once).
    let access: MethodAccess

    init(method: MethodInfo, handler: @escaping RPCHandler, inline: InlineRPCHandler?, pooled: PooledRoute? = nil) {
        self.method = method
        self.handler = handler
        self.inline = inline
        self.pooled = pooled
        self.path = method.path
        self.access = MethodAccess.required(for: method.name)
    }

    /// Whether a call waits for its request message before anything runs (a fast or pooled
    /// path takes the complete request).
    var waitsForRequest: Bool { inline != nil || pooled != nil }
}

/// Maps wire method names to handlers; listed methods without one answer `UNIMPLEMENTED`.
public struct RPCRouter: Sendable {
    private var routes: [String: RPCRoute] = [:]

    /// An empty router.
    public init() {}

    /// Registers the handler of `method`; its call's request and response types are the method's.
    public mutating func register<Request, Response, Kind>(
        _ method: MethodDescriptor<Request, Response, Kind>, _ handler: @escaping @Sendable (ServerCall<Request, Response>) async throws -> Void
    ) {
        routes[method.path] = RPCRoute(method: method.info, handler: { try await handler(ServerCall($0)) }, inline: nil)
    }

    /// Registers the handler of a unary or server-streaming `method` with a fast path tried
    /// first on the connection's queue (see ``InlineRPCHandler``).
    public mutating func register<Request, Response, Kind: SingleRequestCallKind>(
        _ method: MethodDescriptor<Request, Response, Kind>, inline: @escaping InlineRPCHandler,
        _ handler: @escaping @Sendable (ServerCall<Request, Response>) async throws -> Void
    ) {
        routes[method.path] = RPCRoute(method: method.info, handler: { try await handler(ServerCall($0)) }, inline: inline)
    }

    /// Registers a unary `method` whose work blocks, run on `pool` with the decoded request
    /// and the call's context, returning the encoded response (see ``PooledRPCHandler``).
    /// A call whose request does not arrive whole in the usual way (no message, several)
    /// runs the same work through a handler task, which reports the mistake.
    mutating func register<Request, Response>(
        _ method: MethodDescriptor<Request, Response, CallKinds.Unary>, on pool: BlockingPool,
        _ work: @escaping @Sendable (Request, InlineCallContext) throws(PhotoLibError) -> [UInt8]
    ) {
        let pooled = PooledRoute(pool: pool) { payload, context throws(PhotoLibError) in
            try work(try Request(decoding: payload), context)
        }
        routes[method.path] = RPCRoute(
            method: method.info,
            handler: { call in
                let request = try await call.singleRequest(Request.self)
                let context = InlineCallContext(session: call.session, receivedAt: DispatchTime.now().uptimeNanoseconds)
                let response = try await pool.run { () throws(PhotoLibError) in try work(request, context) }
                try await call.send(encoded: [response])
            },
            inline: nil, pooled: pooled)
    }

    /// The route for a wire name, or the error to answer with.
    func resolve(_ path: String) -> Result<RPCRoute, PhotoLibError> {
        if let route = routes[path] { return .success(route) }
        if let method = PhotoLibraryMethods.method(path: path) {
            return .failure(PhotoLibError(.unimplemented, "\(method.name) is part of the protocol but not built in this server yet"))
        }
        let shown = path.count > 120 ? String(path.prefix(120)) + "…" : path
        return .failure(PhotoLibError(.unimplemented, "unknown method '\(shown)': methods are named /\(PhotoLibraryMethods.serviceName)/<Method> (see Protos/service.proto)"))
    }
}
