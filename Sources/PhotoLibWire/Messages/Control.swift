internal import CPhotoLibProto
import PhotoLibCore

/// HELLO payload: the client's handshake.
public struct Hello: WireMessage, Hashable {
    /// The protocol version the client speaks.
    public var protocolVersion: UInt32
    /// Owner or client token.
    public var token: String
    /// A name for logs, e.g. `photolib-cli/0.1`.
    public var clientName: String
    /// Largest frame payload the client accepts (0: default).
    public var maxFrameSize: UInt32
    /// Initial per-stream credit for server → client data (0: default).
    public var initialStreamWindow: UInt32
    /// Initial connection credit for server → client data (0: default).
    public var initialConnectionWindow: UInt32

    /// Creates a HELLO.
    public init(protocolVersion: UInt32 = WireLimits.protocolVersion, token: String, clientName: String, maxFrameSize: UInt32 = 0, initialStreamWindow: UInt32 = 0, initialConnectionWindow: UInt32 = 0) {
        self.protocolVersion = protocolVersion
        self.token = token
        self.clientName = clientName
        self.maxFrameSize = maxFrameSize
        self.initialStreamWindow = initialStreamWindow
        self.initialConnectionWindow = initialConnectionWindow
    }

    /// Decodes and checks a HELLO payload.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "Hello", photolib__v1__hello__unpack, photolib__v1__hello__free_unpacked) { m in
            Hello(
                protocolVersion: m.pointee.protocol_version, token: ProtoCodec.string(m.pointee.token),
                clientName: ProtoCodec.string(m.pointee.client_name), maxFrameSize: m.pointee.max_frame_size,
                initialStreamWindow: m.pointee.initial_stream_window, initialConnectionWindow: m.pointee.initial_connection_window)
        }
    }

    /// Encodes the HELLO payload.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__Hello()
        photolib__v1__hello__init(&m)
        m.protocol_version = protocolVersion
        m.token = arena.string(token)
        m.client_name = arena.string(clientName)
        m.max_frame_size = maxFrameSize
        m.initial_stream_window = initialStreamWindow
        m.initial_connection_window = initialConnectionWindow
        return ProtoCodec.pack(&m, photolib__v1__hello__get_packed_size, photolib__v1__hello__pack)
    }
}

/// WELCOME payload: the server's answer to a valid HELLO.
public struct Welcome: WireMessage, Hashable {
    /// The protocol version in use.
    public var protocolVersion: UInt32
    /// e.g. `photolibd/0.1.0`.
    public var serverName: String
    /// The library's identifier.
    public var libraryIdentifier: String
    /// Largest frame payload the server accepts.
    public var maxFrameSize: UInt32
    /// Initial per-stream credit for client → server data.
    public var initialStreamWindow: UInt32
    /// Initial connection credit for client → server data.
    public var initialConnectionWindow: UInt32
    /// Most concurrent calls.
    public var maxConcurrentStreams: UInt32
    /// Idle connections are closed after this many milliseconds.
    public var idleTimeoutMs: UInt32
    /// What this connection may do.
    public var authorizationStatus: AuthorizationStatus
    /// Read-write or add-only (`nil`: unspecified).
    public var accessLevel: AccessLevel?
    /// Whether the token is the owner's.
    public var isOwner: Bool
    /// Largest image side a request may ask for.
    public var maxImageDimension: UInt32

    /// Creates a WELCOME.
    public init(protocolVersion: UInt32 = WireLimits.protocolVersion, serverName: String, libraryIdentifier: String, maxFrameSize: UInt32, initialStreamWindow: UInt32, initialConnectionWindow: UInt32, maxConcurrentStreams: UInt32, idleTimeoutMs: UInt32, authorizationStatus: AuthorizationStatus, accessLevel: AccessLevel?, isOwner: Bool, maxImageDimension: UInt32 = 0) {
        self.protocolVersion = protocolVersion
        self.serverName = serverName
        self.libraryIdentifier = libraryIdentifier
        self.maxFrameSize = maxFrameSize
        self.initialStreamWindow = initialStreamWindow
        self.initialConnectionWindow = initialConnectionWindow
        self.maxConcurrentStreams = maxConcurrentStreams
        self.idleTimeoutMs = idleTimeoutMs
        self.authorizationStatus = authorizationStatus
        self.accessLevel = accessLevel
        self.isOwner = isOwner
        self.maxImageDimension = maxImageDimension
    }

    /// Decodes and checks a WELCOME payload.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "Welcome", photolib__v1__welcome__unpack, photolib__v1__welcome__free_unpacked) { m in
            let p = m.pointee
            return Welcome(
                protocolVersion: p.protocol_version, serverName: ProtoCodec.string(p.server_name),
                libraryIdentifier: ProtoCodec.string(p.library_identifier), maxFrameSize: p.max_frame_size,
                initialStreamWindow: p.initial_stream_window, initialConnectionWindow: p.initial_connection_window,
                maxConcurrentStreams: p.max_concurrent_streams, idleTimeoutMs: p.idle_timeout_ms,
                authorizationStatus: AuthorizationStatus(rawValue: Int(p.authorization_status.rawValue)) ?? .notDetermined,
                accessLevel: AccessLevel(rawValue: Int(p.access_level.rawValue)), isOwner: p.is_owner != 0,
                maxImageDimension: p.max_image_dimension)
        }
    }

    /// Encodes the WELCOME payload.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__Welcome()
        photolib__v1__welcome__init(&m)
        m.protocol_version = protocolVersion
        m.server_name = arena.string(serverName)
        m.library_identifier = arena.string(libraryIdentifier)
        m.max_frame_size = maxFrameSize
        m.initial_stream_window = initialStreamWindow
        m.initial_connection_window = initialConnectionWindow
        m.max_concurrent_streams = maxConcurrentStreams
        m.idle_timeout_ms = idleTimeoutMs
        m.authorization_status = .init(rawValue: numericCast(authorizationStatus.rawValue))
        m.access_level = .init(rawValue: numericCast(accessLevel?.rawValue ?? 0))
        m.is_owner = isOwner ? 1 : 0
        m.max_image_dimension = maxImageDimension
        return ProtoCodec.pack(&m, photolib__v1__welcome__get_packed_size, photolib__v1__welcome__pack)
    }
}

/// CALL payload: opens a call.
public struct CallStart: WireMessage, Hashable {
    /// `/photolib.v1.PhotoLibrary/<Method>`.
    public var method: String
    /// Relative deadline in milliseconds (0: none).
    public var timeoutMs: UInt64
    /// Call metadata (key, value) pairs.
    public var metadata: [MetadataEntry]

    /// Creates a CALL payload.
    public init(method: String, timeoutMs: UInt64 = 0, metadata: [MetadataEntry] = []) {
        self.method = method
        self.timeoutMs = timeoutMs
        self.metadata = metadata
    }

    /// Decodes and checks a CALL payload.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "CallStart", photolib__v1__call_start__unpack, photolib__v1__call_start__free_unpacked) { (m) throws(PhotoLibError) in
            let entries = try ProtoCodec.messages(m.pointee.n_metadata, m.pointee.metadata) { e in
                MetadataEntry(key: ProtoCodec.string(e.pointee.key), value: ProtoCodec.string(e.pointee.value))
            }
            return CallStart(method: ProtoCodec.string(m.pointee.method), timeoutMs: m.pointee.timeout_ms, metadata: entries)
        }
    }

    /// Encodes the CALL payload.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__CallStart()
        photolib__v1__call_start__init(&m)
        m.method = arena.string(method)
        m.timeout_ms = timeoutMs
        (m.n_metadata, m.metadata) = arena.objects(metadata.map { entry in
            var e = Photolib__V1__MetadataEntry()
            photolib__v1__metadata_entry__init(&e)
            e.key = arena.string(entry.key)
            e.value = arena.string(entry.value)
            return e
        })
        return ProtoCodec.pack(&m, photolib__v1__call_start__get_packed_size, photolib__v1__call_start__pack)
    }
}

/// One call metadata entry.
public struct MetadataEntry: Sendable, Hashable {
    /// The key.
    public var key: String
    /// The value.
    public var value: String
    /// Creates an entry.
    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// STATUS payload: how a call ended; also inside GOAWAY.
public struct CallStatus: WireMessage, Hashable {
    /// The code.
    public var code: StatusCode
    /// For people.
    public var message: String
    /// PhotoLib's finer reason.
    public var reason: ErrorReason
    /// PerformChanges: the failing request's index.
    public var failedRequestIndex: Int?

    /// Creates a status.
    public init(code: StatusCode, message: String = "", reason: ErrorReason = .unspecified, failedRequestIndex: Int? = nil) {
        self.code = code
        self.message = message
        self.reason = reason
        self.failedRequestIndex = failedRequestIndex
    }

    /// The OK status.
    public static let ok = CallStatus(code: .ok)

    /// The status carrying `error`.
    public init(_ error: PhotoLibError) {
        self.init(code: error.code, message: error.message, reason: error.reason, failedRequestIndex: error.failedRequestIndex)
    }

    /// The error this status stands for (`nil` for OK).
    public var error: PhotoLibError? {
        code == .ok ? nil : PhotoLibError(code, message, reason: reason, failedRequestIndex: failedRequestIndex)
    }

    /// Decodes and checks a STATUS payload.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "Status", photolib__v1__status__unpack, photolib__v1__status__free_unpacked) { m in
            CallStatus(m.pointee)
        }
    }

    init(_ m: Photolib__V1__Status) {
        let index = Int(m.failed_request_index_plus_one)
        self.init(
            code: StatusCode(rawValue: Int(m.code.rawValue)) ?? .unknown, message: ProtoCodec.string(m.message),
            reason: ErrorReason(rawValue: Int(m.reason.rawValue)) ?? .unspecified,
            failedRequestIndex: index > 0 ? index - 1 : nil)
    }

    func cStruct(_ arena: ProtoArena) -> Photolib__V1__Status {
        var m = Photolib__V1__Status()
        photolib__v1__status__init(&m)
        m.code = .init(rawValue: numericCast(code.rawValue))
        m.message = arena.string(message)
        m.reason = .init(rawValue: numericCast(reason.rawValue))
        m.failed_request_index_plus_one = failedRequestIndex.map { UInt32(clamping: $0 + 1) } ?? 0
        return m
    }

    /// Encodes the STATUS payload.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = cStruct(arena)
        return ProtoCodec.pack(&m, photolib__v1__status__get_packed_size, photolib__v1__status__pack)
    }
}

/// CANCEL payload.
public struct CancelMessage: WireMessage, Hashable {
    /// Why, for logs.
    public var reason: String
    /// Creates a CANCEL payload.
    public init(reason: String = "") { self.reason = reason }
    /// Decodes and checks a CANCEL payload.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "Cancel", photolib__v1__cancel__unpack, photolib__v1__cancel__free_unpacked) { m in
            CancelMessage(reason: ProtoCodec.string(m.pointee.reason))
        }
    }
    /// Encodes the CANCEL payload.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__Cancel()
        photolib__v1__cancel__init(&m)
        m.reason = arena.string(reason)
        return ProtoCodec.pack(&m, photolib__v1__cancel__get_packed_size, photolib__v1__cancel__pack)
    }
}

/// WINDOW_UPDATE payload.
public struct WindowUpdate: WireMessage, Hashable {
    /// Credit granted, in bytes.
    public var increment: UInt32
    /// Creates a WINDOW_UPDATE payload.
    public init(increment: UInt32) { self.increment = increment }
    /// Decodes a WINDOW_UPDATE payload.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "WindowUpdate", photolib__v1__window_update__unpack, photolib__v1__window_update__free_unpacked) { m in
            WindowUpdate(increment: m.pointee.increment)
        }
    }
    /// Encodes the WINDOW_UPDATE payload.
    public func encoded() -> [UInt8] {
        var m = Photolib__V1__WindowUpdate()
        photolib__v1__window_update__init(&m)
        m.increment = increment
        return ProtoCodec.pack(&m, photolib__v1__window_update__get_packed_size, photolib__v1__window_update__pack)
    }
}

/// PING payload.
public struct Ping: WireMessage, Hashable {
    /// Echoed unchanged in the ACK.
    public var opaque: UInt64
    /// Creates a PING payload.
    public init(opaque: UInt64) { self.opaque = opaque }
    /// Decodes a PING payload.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "Ping", photolib__v1__ping__unpack, photolib__v1__ping__free_unpacked) { m in
            Ping(opaque: m.pointee.opaque)
        }
    }
    /// Encodes the PING payload.
    public func encoded() -> [UInt8] {
        var m = Photolib__V1__Ping()
        photolib__v1__ping__init(&m)
        m.opaque = opaque
        return ProtoCodec.pack(&m, photolib__v1__ping__get_packed_size, photolib__v1__ping__pack)
    }
}

/// GOAWAY payload.
public struct GoAway: WireMessage, Hashable {
    /// Calls up to this stream id will still be finished.
    public var lastStreamID: UInt32
    /// Why the connection closes.
    public var status: CallStatus
    /// Creates a GOAWAY payload.
    public init(lastStreamID: UInt32, status: CallStatus) {
        self.lastStreamID = lastStreamID
        self.status = status
    }
    /// Decodes a GOAWAY payload.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "GoAway", photolib__v1__go_away__unpack, photolib__v1__go_away__free_unpacked) { m in
            GoAway(lastStreamID: m.pointee.last_stream_id, status: m.pointee.status.map { CallStatus($0.pointee) } ?? .ok)
        }
    }
    /// Encodes the GOAWAY payload.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__GoAway()
        photolib__v1__go_away__init(&m)
        m.last_stream_id = lastStreamID
        m.status = arena.object(status.cStruct(arena))
        return ProtoCodec.pack(&m, photolib__v1__go_away__get_packed_size, photolib__v1__go_away__pack)
    }
}
