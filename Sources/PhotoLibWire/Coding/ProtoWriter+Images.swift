// An image request written by `ProtoWriter`: the client encodes one per image, where building
// protobuf-c's structs and sizing them costs more than the few bytes themselves.

extension Wire.ImageRequest {
    /// The same bytes as ``encoded()``, written straight from the values.
    /// `ImagePartReadingTests` compare the two.
    public func encodedDirectly() -> [UInt8] {
        var writer = ProtoWriter(capacity: 48 + assetIdentifier.utf8.count)
        writer.string(1, assetIdentifier)
        writer.uint(2, UInt64(targetWidth))
        writer.uint(3, UInt64(targetHeight))
        writer.int32(4, contentMode.rawValue)
        writer.int32(5, deliveryMode.rawValue)
        writer.int32(6, resizeMode.rawValue)
        writer.int32(7, version.rawValue)
        if let crop = normalizedCropRect {
            writer.message(8) { rect in
                rect.double(1, crop.x)
                rect.double(2, crop.y)
                rect.double(3, crop.width)
                rect.double(4, crop.height)
            }
        }
        writer.bool(9, wantsProgress)
        writer.uint(10, requestID)
        writer.bool(11, bypassCache)
        writer.bool(12, acceptsWholeImages)
        return writer.bytes
    }
}
