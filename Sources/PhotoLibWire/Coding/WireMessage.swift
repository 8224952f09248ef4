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
}
