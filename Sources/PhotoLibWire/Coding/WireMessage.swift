import PhotoLibCore

/// A value that travels as one protobuf message of `Protos/` (a frame payload). Every
/// `Wire.*` message type conforms (generated code).
///
/// Decoding rejects malformed protobuf and every text field that is not UTF-8 or holds a
/// NUL byte, with `invalidArgument` errors naming the field.
public protocol WireMessage: Sendable {
    /// Decodes the message from a frame payload.
    init(decoding bytes: [UInt8]) throws(PhotoLibError)
    /// Encodes the message as a frame payload.
    func encoded() -> [UInt8]
    /// Decodes the message from a frame payload as ``init(decoding:)`` does (the same value,
    /// or the same error), faster where the message has a reader of its own for its common
    /// shape (a page of assets, read by `ProtoReader`). Receivers on a hot path call this.
    static func decoded(_ bytes: [UInt8]) throws(PhotoLibError) -> Self
}

extension WireMessage {
    /// ``init(decoding:)``: the messages without a reader of their own.
    public static func decoded(_ bytes: [UInt8]) throws(PhotoLibError) -> Self {
        try Self(decoding: bytes)
    }
}
