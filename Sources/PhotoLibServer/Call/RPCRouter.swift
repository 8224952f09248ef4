import PhotoLibCore
import PhotoLibWire

/// A method's implementation.
public typealias RPCHandler = @Sendable (ServerCall) async throws -> Void

/// Maps wire method names to handlers; listed methods without one answer `UNIMPLEMENTED`.
public struct RPCRouter: Sendable {
    private var handlers: [String: (MethodDescriptor, RPCHandler)] = [:]

    /// An empty router.
    public init() {}

    /// Registers the handler of `method`.
    public mutating func register(_ method: MethodDescriptor, _ handler: @escaping RPCHandler) {
        handlers[method.path] = (method, handler)
    }

    /// The method and handler for a wire name, or the error to answer with.
    func resolve(_ path: String) -> Result<(MethodDescriptor, RPCHandler), PhotoLibError> {
        if let entry = handlers[path] { return .success(entry) }
        if let method = PhotoLibraryMethods.method(path: path) {
            return .failure(PhotoLibError(.unimplemented, "\(method.name) is part of the protocol but not built in this server yet"))
        }
        let shown = path.count > 120 ? String(path.prefix(120)) + "…" : path
        return .failure(PhotoLibError(.unimplemented, "unknown method '\(shown)': methods are named /\(MethodDescriptor.serviceName)/<Method> (see Protos/service.proto)"))
    }
}
