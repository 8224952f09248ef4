import PhotoLibCore

// Image messages read by `ProtoReader`, where protobuf-c's unpack, the copies out of its
// structs and its free cost more than the reading: an image's parts on the client (a cached
// thumbnail is one ImageWhole, or three messages from a server that predates it: start, one
// chunk, end) and the image request on the server.
// Each type's `decoded(_:)` is its `WireMessage.decoded` witness.

extension Wire.ImageStart {
    /// The start in `reader`'s bytes, or `nil` (see ``ProtoReader``).
    init?(reading reader: inout ProtoReader) {
        self.init()
        let complete = reader.readFields(upTo: 6) { reader, field, type in
            switch (field, type) {
            case (1, 0): guard let value = reader.varint() else { return false }; width = UInt32(truncatingIfNeeded: value)
            case (2, 0): guard let value = reader.varint() else { return false }; height = UInt32(truncatingIfNeeded: value)
            case (3, 0): guard let value = reader.varint() else { return false }; byteCount = value
            case (4, 0): guard let value = reader.bool() else { return false }; degraded = value
            case (5, 2): guard let value = reader.string() else { return false }; uniformTypeIdentifier = value
            case (6, 0): guard let value = reader.varint() else { return false }; imageIndex = UInt32(truncatingIfNeeded: value)
            default: return false
            }
            return true
        }
        if !complete { return nil }
    }
}

extension Wire.ImageChunk {
    /// The chunk in `reader`'s bytes (its data copied out once), or `nil` (see ``ProtoReader``).
    init?(reading reader: inout ProtoReader) {
        self.init()
        let complete = reader.readFields(upTo: 2) { reader, field, type in
            switch (field, type) {
            case (1, 0): guard let value = reader.varint() else { return false }; offset = value
            case (2, 2): guard let range = reader.delimited() else { return false }; data = reader.bytes(range)
            default: return false
            }
            return true
        }
        if !complete { return nil }
    }
}

extension Wire.ImageEnd {
    /// The end in `reader`'s bytes, or `nil` (see ``ProtoReader``).
    init?(reading reader: inout ProtoReader) {
        self.init()
        let complete = reader.readFields(upTo: 2) { reader, field, type in
            switch (field, type) {
            case (1, 0): guard let value = reader.varint() else { return false }; imageIndex = UInt32(truncatingIfNeeded: value)
            case (2, 0): guard let value = reader.bool() else { return false }; isFinal = value
            default: return false
            }
            return true
        }
        if !complete { return nil }
    }
}

extension Wire.ImageWhole {
    /// The whole image in `reader`'s bytes (its data copied out once), or `nil` (see ``ProtoReader``).
    init?(reading reader: inout ProtoReader) {
        self.init()
        let complete = reader.readFields(upTo: 3) { reader, field, type in
            switch (field, type) {
            case (1, 2):
                guard let range = reader.delimited() else { return false }
                var inner = reader.reader(range)
                guard let value = Wire.ImageStart(reading: &inner) else { return false }
                start = value
            case (2, 2): guard let range = reader.delimited() else { return false }; data = reader.bytes(range)
            case (3, 0): guard let value = reader.bool() else { return false }; isFinal = value
            default: return false
            }
            return true
        }
        if !complete { return nil }
    }
}

extension Wire.ImageResponse {
    /// The part in `bytes` read straight into values when it is a start, a chunk, an end or
    /// a whole image (each once, with only the fields it knows); `nil` for anything else, which
    /// ``init(decoding:)`` then decodes or refuses.
    init?(readingPart bytes: [UInt8]) {
        guard let response = bytes.withUnsafeBytes({ Self(readingPart: $0) }) else { return nil }
        self = response
    }

    /// ``init(readingPart:)-([UInt8])`` of bytes where they lie.
    init?(readingPart raw: UnsafeRawBufferPointer) {
        var reader = ProtoReader(raw, 0..<raw.count)
        guard let (field, type) = reader.tag(), type == 2, let range = reader.delimited(), reader.isAtEnd else { return nil }
        var inner = reader.reader(range)
        let part: Part?
        switch field {
        case 1: part = Wire.ImageStart(reading: &inner).map { .start($0) }
        case 2: part = Wire.ImageChunk(reading: &inner).map { .chunk($0) }
        case 3: part = Wire.ImageEnd(reading: &inner).map { .end($0) }
        case 5: part = Wire.ImageWhole(reading: &inner).map { .whole($0) }
        default: part = nil
        }
        guard let part else { return nil }
        self.init(part: part)
    }

    /// Decodes a frame payload: an image's start, chunk, end or whole read straight into values
    /// (by `ProtoReader`), anything else by the generated codec.
    public static func decoded(_ bytes: [UInt8]) throws(PhotoLibError) -> Self {
        if let response = Self(readingPart: bytes) { return response }
        return try Self(decoding: bytes)
    }

    /// ``decoded(_:)`` of a payload where it lies (a message the connection did not copy): an
    /// image's parts are read straight from it into values, so its bytes are copied once.
    public static func decoded(borrowing payload: BorrowedBytes) throws(PhotoLibError) -> Self {
        if let response = Self(readingPart: payload.buffer) { return response }
        return try Self(decoding: payload.copied())
    }
}

extension Wire.NormalizedRect {
    /// The rectangle in `reader`'s bytes, or `nil` (see ``ProtoReader``).
    init?(reading reader: inout ProtoReader) {
        self.init()
        let complete = reader.readFields(upTo: 4) { reader, field, type in
            guard type == 1, let value = reader.double() else { return false }
            switch field {
            case 1: x = value
            case 2: y = value
            case 3: width = value
            case 4: height = value
            default: return false
            }
            return true
        }
        if !complete { return nil }
    }
}

extension Wire.ImageRequest {
    /// The request in `bytes` read straight into values, or `nil` for anything the reader
    /// does not take exactly (see ``ProtoReader``), which ``init(decoding:)`` then decodes or
    /// refuses: the server reads one per image.
    init?(reading bytes: [UInt8]) {
        let read = ProtoReader.message(bytes, Wire.ImageRequest(), upTo: 12) { reader, request, field, type in
            switch (field, type) {
            case (1, 2): guard let value = reader.string() else { return false }; request.assetIdentifier = value
            case (2, 0): guard let value = reader.varint() else { return false }; request.targetWidth = UInt32(truncatingIfNeeded: value)
            case (3, 0): guard let value = reader.varint() else { return false }; request.targetHeight = UInt32(truncatingIfNeeded: value)
            case (4, 0): guard let value = reader.varint() else { return false }; request.contentMode = Wire.ContentMode(rawValue: Int32(truncatingIfNeeded: value))
            case (5, 0): guard let value = reader.varint() else { return false }; request.deliveryMode = Wire.DeliveryMode(rawValue: Int32(truncatingIfNeeded: value))
            case (6, 0): guard let value = reader.varint() else { return false }; request.resizeMode = Wire.ResizeMode(rawValue: Int32(truncatingIfNeeded: value))
            case (7, 0): guard let value = reader.varint() else { return false }; request.version = Wire.ImageVersion(rawValue: Int32(truncatingIfNeeded: value))
            case (8, 2):
                guard let range = reader.delimited() else { return false }
                var inner = reader.reader(range)
                guard let value = Wire.NormalizedRect(reading: &inner) else { return false }
                request.normalizedCropRect = value
            case (9, 0): guard let value = reader.bool() else { return false }; request.wantsProgress = value
            case (10, 0): guard let value = reader.varint() else { return false }; request.requestID = value
            case (11, 0): guard let value = reader.bool() else { return false }; request.bypassCache = value
            case (12, 0): guard let value = reader.bool() else { return false }; request.acceptsWholeImages = value
            default: return false
            }
            return true
        }
        guard let read else { return nil }
        self = read
    }

    /// Decodes a frame payload: read straight into values by `ProtoReader` when it can,
    /// otherwise by the generated codec.
    public static func decoded(_ bytes: [UInt8]) throws(PhotoLibError) -> Self {
        if let request = Self(reading: bytes) { return request }
        return try Self(decoding: bytes)
    }
}
