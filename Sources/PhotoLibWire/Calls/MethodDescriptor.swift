/// How many messages each side of a call sends.
public enum CallShape: String, Sendable, Hashable {
    /// One request, one response.
    case unary
    /// One request, a stream of responses.
    case serverStreaming
    /// A stream of requests, one response.
    case clientStreaming
    /// Streams both ways.
    case bidirectional

    /// Whether the client may send more than one request message.
    public var clientStreams: Bool { self == .clientStreaming || self == .bidirectional }
    /// Whether the server may send more than one response message.
    public var serverStreams: Bool { self == .serverStreaming || self == .bidirectional }
}

/// A call shape as a type, so that APIs can accept only methods of one shape.
public protocol CallKind: Sendable {
    /// The shape this type stands for.
    static var shape: CallShape { get }
}

/// A call shape whose client sends exactly one request message (unary, server-streaming).
public protocol SingleRequestCallKind: CallKind {}

/// The four ``CallKind``s.
public enum CallKinds {
    /// One request, one response.
    public enum Unary: SingleRequestCallKind { public static let shape = CallShape.unary }
    /// One request, a stream of responses.
    public enum ServerStreaming: SingleRequestCallKind { public static let shape = CallShape.serverStreaming }
    /// A stream of requests, one response.
    public enum ClientStreaming: CallKind { public static let shape = CallShape.clientStreaming }
    /// Streams both ways.
    public enum Bidirectional: CallKind { public static let shape = CallShape.bidirectional }
}

/// What the CALL frame names: a method's name and call shape, without its message types.
public struct MethodInfo: Sendable, Hashable, CustomStringConvertible {
    /// The method's name, e.g. `FetchAssets`.
    public let name: String
    /// Its call shape.
    public let shape: CallShape
    /// The encoded CALL message of a call of this method without a deadline, made once (a
    /// client opening thousands of image calls sends the same bytes each time).
    public let encodedCall: [UInt8]

    init(name: String, shape: CallShape) {
        self.name = name
        self.shape = shape
        encodedCall = Wire.CallStart(method: "/\(PhotoLibraryMethods.serviceName)/\(name)").encoded()
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.shape == rhs.shape
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(shape)
    }

    /// The wire name, `/photolib.v1.PhotoLibrary/<name>`.
    public var path: String { "/\(PhotoLibraryMethods.serviceName)/\(name)" }

    /// The wire name.
    public var description: String { path }
}

/// A method of `service PhotoLibrary` with its request and response message types and its
/// call shape, so that a handler or a client call with the wrong types does not compile.
///
/// `PhotoLibraryMethods` (generated from Protos/service.proto) holds one per method.
public struct MethodDescriptor<Request: WireMessage, Response: WireMessage, Kind: CallKind>: Sendable, CustomStringConvertible {
    /// Name and shape.
    public let info: MethodInfo

    /// The descriptor of the method called `name`.
    public init(_ name: String) {
        info = MethodInfo(name: name, shape: Kind.shape)
    }

    /// The method's name, e.g. `FetchAssets`.
    public var name: String { info.name }
    /// The wire name, `/photolib.v1.PhotoLibrary/<name>`.
    public var path: String { info.path }
    /// The wire name.
    public var description: String { info.path }
}
