import PhotoLibCore

// `ResourceDataChunk` is the one message that carries bulk bytes at the rate of a disk or a
// network (`RequestResourceData`: a 230 MB original is 3,500 of them). Through the generated
// codec each chunk's bytes are copied twice more on each side (Swift array ⇄ protobuf-c
// struct ⇄ payload). These functions read and write the same protobuf encoding with the
// data in place: the server reads the file straight into the payload (or sends it after a
// `prefix`), the client writes the file straight from the payload. Same message: `encoded`
// writes the bytes protobuf-c would (fields in number order, zero fields omitted), `prefix`
// the same fields in the order 1, 3, 2 (the data last, so a file can follow it);
// `ResourceDataChunkInPlaceTests` checks them against the generated codec.

extension Wire.ResourceDataChunk {
    /// Largest encoded size of the fields around the data: offset and total size (tag + up to
    /// 10 varint bytes each) and the data's tag and length (1 + up to 5).
    static let maxOverhead = 2 * 11 + 6

    /// The encoded `photolib.v1.ResourceDataChunk` payload of `dataCount` bytes at `offset`
    /// of a `totalSize`-byte resource, whose data `fill` writes in place (it is given exactly
    /// `dataCount` bytes to fill). What `Wire.ResourceDataChunk(offset:data:totalSize:).encoded()`
    /// would give, without the copies. `fill`'s error is rethrown.
    public static func encoded(
        offset: UInt64, totalSize: UInt64, dataCount: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void
    ) rethrows -> [UInt8] {
        precondition(dataCount >= 0, "a negative data count")
        return try [UInt8](unsafeUninitializedCapacity: dataCount + maxOverhead) { buffer, count in
            var at = 0
            func put(_ byte: UInt8) {
                buffer[at] = byte
                at += 1
            }
            func putVarint(_ value: UInt64) {
                var value = value
                while value >= 0x80 {
                    put(UInt8(truncatingIfNeeded: value) | 0x80)
                    value >>= 7
                }
                put(UInt8(value))
            }
            if offset != 0 {
                put(1 << 3 | 0)  // field 1, varint
                putVarint(offset)
            }
            if dataCount > 0 {
                put(2 << 3 | 2)  // field 2, length-delimited
                putVarint(UInt64(dataCount))
                try fill(UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[at..<at + dataCount]))
                at += dataCount
            }
            if totalSize != 0 {
                put(3 << 3 | 0)  // field 3, varint
                putVarint(totalSize)
            }
            count = at
        }
    }

    /// The first bytes of an encoded `photolib.v1.ResourceDataChunk` of `dataCount` bytes at
    /// `offset` of a `totalSize`-byte resource, up to its data: the offset, the total size, then
    /// the data's tag and length. Followed by the `dataCount` data bytes (a file's, sent with
    /// `sendfile` by the server), it is a whole message: the fields in the order 1, 3, 2,
    /// which every protobuf decoder accepts (a message's fields may come in any order).
    public static func prefix(offset: UInt64, totalSize: UInt64, dataCount: Int) -> [UInt8] {
        precondition(dataCount >= 0, "a negative data count")
        var writer = ProtoWriter(capacity: maxOverhead)
        writer.uint(1, offset)
        writer.uint(3, totalSize)
        if dataCount > 0 { writer.lengthPrefix(2, count: dataCount) }
        return writer.bytes
    }

    /// The fields of an encoded `photolib.v1.ResourceDataChunk` with its data left in place:
    /// `data` is the range of `payload` that holds it. Accepts any valid encoding (fields in
    /// any order or repeated, the last one winning; unknown fields skipped), like the generated
    /// decoder; malformed protobuf is `invalidArgument`.
    public static func fields(of payload: [UInt8]) throws(PhotoLibError) -> (offset: UInt64, data: Range<Int>, totalSize: UInt64) {
        var offset: UInt64 = 0, totalSize: UInt64 = 0, data = 0..<0
        var at = 0
        func malformed(_ why: String) -> PhotoLibError {
            PhotoLibError(.invalidArgument, "malformed ResourceDataChunk: \(why) at byte \(at) of \(payload.count)")
        }
        func varint() throws(PhotoLibError) -> UInt64 {
            var value: UInt64 = 0, shift: UInt64 = 0
            while true {
                guard at < payload.count else { throw malformed("a varint runs past the end") }
                guard shift < 64 else { throw malformed("a varint is longer than 10 bytes") }
                let byte = payload[at]
                at += 1
                value |= UInt64(byte & 0x7f) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }
        func skip(_ count: UInt64) throws(PhotoLibError) -> Range<Int> {
            guard count <= UInt64(payload.count - at) else { throw malformed("a field of \(count) bytes runs past the end") }
            let range = at..<at + Int(count)
            at += Int(count)
            return range
        }
        while at < payload.count {
            let key = try varint()
            let field = key >> 3
            switch (field, key & 7) {
            case (0, _): throw malformed("field number 0")
            case (1, 0): offset = try varint()
            case (3, 0): totalSize = try varint()
            case (2, 2): data = try skip(try varint())
            case (1...3, let type): throw malformed("field \(field) has wire type \(type), not its declared one")
            case (_, 0): _ = try varint()
            case (_, 1): _ = try skip(8)
            case (_, 2): _ = try skip(try varint())
            case (_, 5): _ = try skip(4)
            case (_, let type): throw malformed("field \(field) has wire type \(type), which this message cannot hold")
            }
        }
        return (offset, data, totalSize)
    }
}
