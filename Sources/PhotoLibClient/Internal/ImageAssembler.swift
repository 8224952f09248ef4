import PhotoLibCore
import PhotoLibWire

/// Takes a RequestImage call's responses on the connection's queue: decodes each part,
/// reassembles the images (``ImageAssembly``) and delivers them, so that no task wakes up
/// per part. Progress is reported from the connection's queue.
///
/// `@unchecked Sendable`: its mutable state is touched only on the connection's queue
/// (see ``ResponseConsumer``).
///
/// Its stored `var`s are `@exclusivity(unchecked)`: confined to one queue, and never accessed
/// while an access to the same one is in progress (docs/ARCHITECTURE.md, "Exclusivity").
final class ImageAssembler: ResponseConsumer, @unchecked Sendable {
    /// Where the images go.
    enum Delivery {
        /// Every image, as it completes, into a stream finished with the call.
        case every(AsyncThrowingStream<DeliveredImage, any Error>.Continuation)
        /// Only the last image, to a caller waiting for the end of the call.
        case last(CheckedContinuation<DeliveredImage, any Error>)
        /// Every image as it completes, or the call's error, to a handler run on the queue.
        case handler(@Sendable (Result<DeliveredImage, any Error>) -> Void)
    }

    private let delivery: Delivery
    private let progress: (@Sendable (ImageRequestProgress) -> Void)?
    @exclusivity(unchecked) private var assembly = ImageAssembly()
    @exclusivity(unchecked) private var last: DeliveredImage?
    @exclusivity(unchecked) private var delivered = false

    /// Runs when the request ends, before the outcome is delivered (the image manager stops
    /// tracking the request's id for ``ImageManager/cancelImageRequest(_:)``).
    private let ended: (@Sendable () -> Void)?

    init(delivery: Delivery, progress: (@Sendable (ImageRequestProgress) -> Void)?, ended: (@Sendable () -> Void)? = nil) {
        self.delivery = delivery
        self.progress = progress
        self.ended = ended
    }

    func receive(_ payload: [UInt8]) throws(PhotoLibError) {
        try receive(Wire.ImageResponse.decoded(payload))
    }

    func receive(borrowing payload: BorrowedBytes) throws(PhotoLibError) {
        try receive(Wire.ImageResponse.decoded(borrowing: payload))
    }

    /// One decoded response: an image, once its last part is in, goes where `delivery` says.
    private func receive(_ response: Wire.ImageResponse) throws(PhotoLibError) {
        guard let image = try assembly.add(response, progress: progress) else { return }
        switch delivery {
        case .every(let images):
            images.yield(image)
        case .last:
            last = image
        case .handler(let handler):
            delivered = true
            handler(.success(image))
        }
    }

    func finish(_ error: PhotoLibError?) {
        ended?()
        var outcome = error
        if outcome == nil {
            do throws(PhotoLibError) {
                try assembly.checkComplete()
            } catch {
                outcome = error
            }
        }
        switch delivery {
        case .every(let images):
            if let outcome { images.finish(throwing: outcome) } else { images.finish() }
        case .last(let continuation):
            if let outcome {
                continuation.resume(throwing: outcome)
            } else if let last {
                continuation.resume(returning: last)
            } else {
                continuation.resume(throwing: Self.noImage)
            }
        case .handler(let handler):
            if let outcome {
                handler(.failure(outcome))
            } else if !delivered {
                handler(.failure(Self.noImage))
            }
        }
    }

    private static var noImage: PhotoLibError {
        PhotoLibError(.internalError, "the image request ended without an image", reason: .protocolViolation)
    }
}
