import PhotoLibCore

// Transport messages read once per call without protobuf-c where it can be: the CALL payload
// by `ProtoReader` (the server reads one per call, where protobuf-c's unpack, the copies out
// of its struct and its free cost more than a method name and a deadline), and the empty
// STATUS that ends most calls. Each type's `decoded(_:)` is its `WireMessage.decoded` witness.

extension Wire.CallStart {
    /// The call start in `bytes` read straight into values, or `nil` for anything the reader
    /// does not take exactly (metadata, which version 1 gives no meaning, included; see
    /// ``ProtoReader``), which ``init(decoding:)`` then decodes or refuses.
    init?(reading bytes: [UInt8]) {
        let read = ProtoReader.message(bytes, Wire.CallStart(), upTo: 2) { reader, call, field, type in
            switch (field, type) {
            case (1, 2): guard let value = reader.string() else { return false }; call.method = value
            case (2, 0): guard let value = reader.varint() else { return false }; call.timeoutMs = value
            default: return false
            }
            return true
        }
        guard let read else { return nil }
        self = read
    }

    /// Decodes a CALL payload: read straight into values by `ProtoReader` when it can,
    /// otherwise by the generated codec.
    public static func decoded(_ bytes: [UInt8]) throws(PhotoLibError) -> Self {
        if let call = Self(reading: bytes) { return call }
        return try Self(decoding: bytes)
    }
}

extension Wire.Status {
    /// Decodes a STATUS payload: the empty one (OK, every field at its default: most calls
    /// end so) without the generated codec.
    public static func decoded(_ bytes: [UInt8]) throws(PhotoLibError) -> Self {
        if bytes.isEmpty { return Self() }
        return try Self(decoding: bytes)
    }
}
