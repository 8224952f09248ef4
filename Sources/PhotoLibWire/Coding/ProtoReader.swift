import PhotoLibCore

/// Reads protobuf wire format straight into Swift values, for the few messages on a hot path
/// (a page of assets on the client) where unpacking into protobuf-c's structs and copying
/// them out costs more than the reading itself.
///
/// It reads only the shapes it knows, exactly as the generated decoder would read them; on
/// anything else — a field it does not expect, a field repeated where the decoder would
/// merge or replace, malformed bytes, text that is not UTF-8 or holds a NUL — it gives up
/// (`nil`) and the caller decodes with the generated codec, which then answers or refuses
/// the message as always. `ProtoReaderTests` compare the results with `init(decoding:)`.
struct ProtoReader {
    private let base: UnsafeRawBufferPointer
    private var at: Int
    private let end: Int

    /// A reader of `bytes[range]` (valid while `bytes` is).
    init(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) {
        base = bytes
        at = range.lowerBound
        end = range.upperBound
    }

    var isAtEnd: Bool { at >= end }

    /// The next varint (at most ten bytes), or `nil` when malformed.
    mutating func varint() -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while at < end && shift < 70 {
            let byte = base[at]
            at += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }

    /// The next varint as a `bool`, read only in its canonical one-byte form (0 or 1);
    /// `nil` for anything else, which the generated decoder then reads (protobuf-c takes
    /// any set bit of any byte as `true`, even bits a 64-bit value cannot hold).
    mutating func bool() -> Bool? {
        let start = at
        guard let value = varint(), at == start + 1, value <= 1 else { return nil }
        return value == 1
    }

    /// Reads a message's fields to its end: each tag goes to `read`, which reads the value
    /// and answers whether it knew the field (and its wire type). Answers `false` — the
    /// caller then leaves the message to the generated decoder — for a field `read` does not
    /// know, a field number over `last` or seen before (the generated decoder would merge or
    /// replace it), or malformed bytes.
    mutating func readFields(upTo last: UInt64, _ read: (inout ProtoReader, _ field: UInt64, _ type: UInt64) -> Bool) -> Bool {
        var seen: UInt64 = 0
        while !isAtEnd {
            guard let (field, type) = tag(), field <= last, seen & (1 << field) == 0 else { return false }
            seen |= 1 << field
            guard read(&self, field, type) else { return false }
        }
        return true
    }

    /// The message in `bytes`: `empty` with the fields `read` takes set (one call per field,
    /// as ``readFields(upTo:_:)`` makes them), or `nil` when it does not take them all.
    static func message<Message>(
        _ bytes: [UInt8], _ empty: consuming Message, upTo last: UInt64,
        _ read: (inout ProtoReader, inout Message, _ field: UInt64, _ type: UInt64) -> Bool
    ) -> Message? {
        // Declared out here and returned as its last use: the message is moved, not copied
        // (a copy retains every field once more, then releases the original's).
        var message = empty
        let complete = bytes.withUnsafeBytes { raw in
            var reader = ProtoReader(raw, 0..<raw.count)
            return reader.readFields(upTo: last) { reader, field, type in read(&reader, &message, field, type) }
        }
        return complete ? message : nil
    }

    /// The next tag: field number and wire type.
    mutating func tag() -> (field: UInt64, type: UInt64)? {
        guard let key = varint(), key >> 3 != 0 else { return nil }
        return (key >> 3, key & 7)
    }

    /// The next eight little-endian bytes as a double.
    mutating func double() -> Double? {
        guard end - at >= 8 else { return nil }
        var bits: UInt64 = 0
        for index in 0..<8 { bits |= UInt64(base[at + index]) << (8 * UInt64(index)) }
        at += 8
        return Double(bitPattern: bits)
    }

    /// The range of the next length-delimited value.
    mutating func delimited() -> Range<Int>? {
        guard let length = varint(), length <= UInt64(end - at) else { return nil }
        let range = at..<(at + Int(length))
        at = range.upperBound
        return range
    }

    /// The next length-delimited value as text: `nil` unless it is UTF-8 without NUL (what
    /// the generated decoder accepts).
    mutating func string() -> String? {
        guard let range = delimited() else { return nil }
        let bytes = UnsafeRawBufferPointer(rebasing: base[range])
        var ascii = true
        for byte in bytes {
            if byte == 0 { return nil }
            if byte >= 0x80 { ascii = false }
        }
        if ascii { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The bytes of `range` (from ``delimited()``), copied into an array of their own.
    func bytes(_ range: Range<Int>) -> [UInt8] {
        Array(UnsafeRawBufferPointer(rebasing: base[range]))
    }

    /// A reader of a sub-message's bytes.
    func reader(_ range: Range<Int>) -> ProtoReader { ProtoReader(base, range) }
}

extension Wire.Location {
    /// The location in `reader`'s bytes, or `nil` (see ``ProtoReader``).
    init?(reading reader: inout ProtoReader) {
        self.init()
        let complete = reader.readFields(upTo: 4) { reader, field, type in
            switch (field, type) {
            case (1, 1): guard let value = reader.double() else { return false }; latitude = value
            case (2, 1): guard let value = reader.double() else { return false }; longitude = value
            case (3, 0): guard let value = reader.bool() else { return false }; hasAltitude = value
            case (4, 1): guard let value = reader.double() else { return false }; altitude = value
            default: return false
            }
            return true
        }
        if !complete { return nil }
    }
}

extension Wire.Asset {
    /// The asset in `reader`'s bytes, or `nil` (see ``ProtoReader``).
    init?(reading reader: inout ProtoReader) {
        self.init()
        let complete = reader.readFields(upTo: 15) { reader, field, type in
            switch (field, type) {
            case (1, 2): guard let value = reader.string() else { return false }; localIdentifier = value
            case (2, 0): guard let value = reader.varint() else { return false }; mediaType = Wire.MediaType(rawValue: Int32(truncatingIfNeeded: value))
            case (3, 0): guard let value = reader.varint() else { return false }; mediaSubtypes = UInt32(truncatingIfNeeded: value)
            case (4, 0): guard let value = reader.varint() else { return false }; pixelWidth = UInt32(truncatingIfNeeded: value)
            case (5, 0): guard let value = reader.varint() else { return false }; pixelHeight = UInt32(truncatingIfNeeded: value)
            case (6, 0): guard let value = reader.varint() else { return false }; creationDateMs = Self.zigzag(value)
            case (7, 0): guard let value = reader.varint() else { return false }; modificationDateMs = Self.zigzag(value)
            case (8, 0): guard let value = reader.bool() else { return false }; isFavorite = value
            case (9, 0): guard let value = reader.bool() else { return false }; isHidden = value
            case (10, 1): guard let value = reader.double() else { return false }; duration = value
            case (11, 2): guard let value = reader.string() else { return false }; burstIdentifier = value
            case (12, 2):
                guard let range = reader.delimited() else { return false }
                var inner = reader.reader(range)
                guard let value = Wire.Location(reading: &inner) else { return false }
                location = value
            case (13, 0): guard let value = reader.bool() else { return false }; hasAdjustments = value
            case (14, 0): guard let value = reader.varint() else { return false }; contentVersion = value
            case (15, 0): guard let value = reader.varint() else { return false }; trashedDateMs = Self.zigzag(value)
            default: return false
            }
            return true
        }
        if !complete { return nil }
    }

    private static func zigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }
}

extension Wire.FetchResultObjectsResponse {
    /// The page in `bytes` read straight into values, when it holds only an offset, assets
    /// and identifiers (what a page of assets is); `nil` for anything else, which
    /// ``init(decoding:)`` then decodes or refuses.
    init?(readingPage bytes: [UInt8]) {
        self.init()
        let page: Wire.FetchResultObjectsResponse? = bytes.withUnsafeBytes { raw in
            var reader = ProtoReader(raw, 0..<raw.count)
            var message = Wire.FetchResultObjectsResponse()
            var offsetSeen = false
            while !reader.isAtEnd {
                guard let (field, type) = reader.tag() else { return nil }
                switch (field, type) {
                case (1, 0):
                    guard !offsetSeen, let value = reader.varint() else { return nil }
                    offsetSeen = true
                    message.offset = value
                case (2, 2):
                    guard let range = reader.delimited() else { return nil }
                    var inner = reader.reader(range)
                    guard let asset = Wire.Asset(reading: &inner) else { return nil }
                    message.assets.append(asset)
                case (5, 2):
                    guard let value = reader.string() else { return nil }
                    message.localIdentifiers.append(value)
                default: return nil
                }
            }
            return message
        }
        guard let page else { return nil }
        self = page
    }

    /// Decodes a frame payload: pages of assets read straight into values (by `ProtoReader`),
    /// anything else by the generated codec.
    public static func decoded(_ bytes: [UInt8]) throws(PhotoLibError) -> Self {
        if let page = Self(readingPage: bytes) { return page }
        return try Self(decoding: bytes)
    }
}
