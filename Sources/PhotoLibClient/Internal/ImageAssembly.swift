import PhotoLibCore
import PhotoLibWire

/// Reassembles ImageStart / ImageChunk / ImageEnd parts into images, checking offsets and
/// sizes (docs/PROTOCOL.md, 14.2).
struct ImageAssembly {
    /// The largest image the client accepts.
    static let maxByteCount = 512 << 20

    private var current: ImageStart?
    private var buffer: [UInt8] = []

    /// Adds a part; returns the image it completes, if any. Reports rendering and receiving
    /// progress to `progress`.
    mutating func add(_ part: ImageResponse, progress: (@Sendable (ImageRequestProgress) -> Void)?) throws(PhotoLibError) -> DeliveredImage? {
        switch part {
        case .progress(let fraction):
            progress?(.rendering(fraction))
        case .start(let start):
            guard current == nil else { throw PhotoLibError(.internalError, "image \(start.imageIndex) began before the previous one ended", reason: .protocolViolation) }
            guard start.byteCount >= 0, start.byteCount <= Self.maxByteCount else {
                throw PhotoLibError(.resourceExhausted, "the server announced a \(start.byteCount)-byte image, over the client's \(Self.maxByteCount >> 20) MiB limit")
            }
            current = start
            buffer = []
            progress?(.receiving(received: 0, total: start.byteCount))
        case .chunk(let offset, let data):
            guard let start = current, offset == buffer.count, buffer.count + data.count <= start.byteCount else {
                throw PhotoLibError(.internalError, "an image chunk at offset \(offset) does not continue the image (have \(buffer.count) bytes)", reason: .protocolViolation)
            }
            if buffer.isEmpty && data.count == start.byteCount {
                buffer = data  // the whole image in one chunk (a thumbnail): no copy
            } else {
                if buffer.isEmpty { buffer.reserveCapacity(start.byteCount) }
                buffer.append(contentsOf: data)
            }
            progress?(.receiving(received: buffer.count, total: start.byteCount))
        case .end(let index, let isFinal):
            guard let start = current, start.imageIndex == index, buffer.count == start.byteCount else {
                throw PhotoLibError(.internalError, "image \(index) ended with \(buffer.count) of \(current?.byteCount ?? 0) bytes", reason: .protocolViolation)
            }
            let image = DeliveredImage(data: buffer, width: start.width, height: start.height, isDegraded: start.degraded, isFinal: isFinal)
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
