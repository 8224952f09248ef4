import PhotoLibCore
import PhotoLibWire

/// Reassembles ImageStart / ImageChunk / ImageEnd parts into images, checking offsets and
/// sizes, and takes ImageWhole images as they are (docs/PROTOCOL.md, 14.2).
struct ImageAssembly {
    /// The largest image the client accepts.
    static let maxByteCount = 512 << 20

    private var current: Wire.ImageStart?
    private var buffer: [UInt8] = []

    /// Adds a part; returns the image it completes, if any. Reports rendering and receiving
    /// progress to `progress`.
    mutating func add(_ response: Wire.ImageResponse, progress: (@Sendable (ImageRequestProgress) -> Void)?) throws(PhotoLibError) -> DeliveredImage? {
        switch response.part {
        case nil:
            throw PhotoLibError(.internalError, "an ImageResponse carries no part", reason: .protocolViolation)
        case .progress(let update):
            progress?(.rendering(update.fraction))
        case .start(let start):
            guard current == nil else { throw PhotoLibError(.internalError, "image \(start.imageIndex) began before the previous one ended", reason: .protocolViolation) }
            guard start.byteCount <= UInt64(Self.maxByteCount) else {
                throw PhotoLibError(.resourceExhausted, "the server announced a \(start.byteCount)-byte image, over the client's \(Self.maxByteCount >> 20) MiB limit")
            }
            current = start
            buffer = []
            progress?(.receiving(received: 0, total: Int(start.byteCount)))
        case .chunk(let chunk):
            let data = chunk.data
            guard let start = current, chunk.offset == UInt64(buffer.count), UInt64(buffer.count + data.count) <= start.byteCount else {
                throw PhotoLibError(.internalError, "an image chunk at offset \(chunk.offset) does not continue the image (have \(buffer.count) bytes)", reason: .protocolViolation)
            }
            if buffer.isEmpty && UInt64(data.count) == start.byteCount {
                buffer = data  // the whole image in one chunk (a thumbnail): no copy
            } else {
                if buffer.isEmpty { buffer.reserveCapacity(Int(start.byteCount)) }
                buffer.append(contentsOf: data)
            }
            progress?(.receiving(received: buffer.count, total: Int(start.byteCount)))
        case .whole(let whole):
            guard current == nil else { throw PhotoLibError(.internalError, "a whole image came before the previous one ended", reason: .protocolViolation) }
            guard let start = whole.start else {
                throw PhotoLibError(.internalError, "a whole image came without its start", reason: .protocolViolation)
            }
            guard start.byteCount == UInt64(whole.data.count) else {
                throw PhotoLibError(.internalError, "a whole image announces \(start.byteCount) bytes and carries \(whole.data.count)", reason: .protocolViolation)
            }
            progress?(.receiving(received: whole.data.count, total: whole.data.count))
            return DeliveredImage(start, data: whole.data, isFinal: whole.isFinal)
        case .end(let end):
            guard let start = current, start.imageIndex == end.imageIndex, UInt64(buffer.count) == start.byteCount else {
                throw PhotoLibError(.internalError, "image \(end.imageIndex) ended with \(buffer.count) of \(current?.byteCount ?? 0) bytes", reason: .protocolViolation)
            }
            let image = DeliveredImage(start, data: buffer, isFinal: end.isFinal)
            current = nil
            buffer = []
            return image
        }
        return nil
    }

    /// Checks that the stream did not end in the middle of an image.
    func checkComplete() throws(PhotoLibError) {
        if current != nil { throw PhotoLibError(.dataLoss, "the image stream ended in the middle of an image") }
    }
}

extension DeliveredImage {
    /// The image `start` announced, with its bytes.
    init(_ start: Wire.ImageStart, data: [UInt8], isFinal: Bool) {
        self.init(
            data: data, uniformTypeIdentifier: start.uniformTypeIdentifier, width: Int(start.width), height: Int(start.height),
            isDegraded: start.degraded, isFinal: isFinal)
    }
}
