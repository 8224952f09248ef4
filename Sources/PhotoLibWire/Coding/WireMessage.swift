internal import CPhotoLibProto
import PhotoLibCore

/// A value that travels as one protobuf message of `Protos/` (a frame payload).
///
/// Decoding rejects malformed protobuf and every text field that is not UTF-8 or holds a
/// NUL byte, with `invalidArgument` errors naming the field.
public protocol WireMessage: Sendable {
    /// Decodes the message from a frame payload.
    init(decoding bytes: [UInt8]) throws(PhotoLibError)
    /// Encodes the message as a frame payload.
    func encoded() -> [UInt8]
}

/// The `Empty` message.
public struct EmptyMessage: WireMessage, Hashable {
    /// Creates the empty message.
    public init() {}
    /// Decodes (and checks) an `Empty` payload.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        try ProtoCodec.decode(bytes, "Empty", photolib__v1__empty__unpack, photolib__v1__empty__free_unpacked) { _ in }
    }
    /// Encodes the empty message.
    public func encoded() -> [UInt8] {
        var m = Photolib__V1__Empty()
        photolib__v1__empty__init(&m)
        return ProtoCodec.pack(&m, photolib__v1__empty__get_packed_size, photolib__v1__empty__pack)
    }
}
