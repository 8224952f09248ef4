// A CALL payload carrying its call's request (docs/PROTOCOL.md 5.2) written by `ProtoWriter`:
// the client encodes a method's CallStart once and adds each call's request to it.

extension Wire.CallStart {
    /// `encodedCall` (a CallStart's `encoded()` bytes, with no metadata and no `request`)
    /// with `request` as its `request` field: the bytes `encoded()` gives with both set,
    /// since the field comes last in number order (and, empty, is left out).
    /// `ProtoWriterTests` compare the two.
    public static func encoded(_ encodedCall: [UInt8], inlining request: [UInt8]) -> [UInt8] {
        guard !request.isEmpty else { return encodedCall }
        var writer = ProtoWriter(capacity: encodedCall.count + request.count + 6)
        writer.raw(encodedCall)
        writer.lengthPrefix(4, count: request.count)
        writer.raw(request)
        return writer.bytes
    }
}
