import Foundation
import PhotoLibWire
import Synchronization

/// One image delivered by ``ImageManager``.
public struct DeliveredImage: Sendable, Hashable {
    /// The encoded image: a JPEG, except for the original file as it is (version
    /// `.original`, maximum size, resize mode `.none`), whose bytes are the file's.
    public var data: [UInt8]
    /// The type of ``data`` (PhotoKit's `dataUTI`): `public.jpeg` for every rendered image;
    /// for the original file as it is, the file's type (`public.heic`, `public.png`,
    /// `org.webmproject.webp` or `public.jpeg`).
    public var uniformTypeIdentifier: String
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Whether this is a degraded (fast, lower quality) image that a better one follows.
    public var isDegraded: Bool
    /// Whether no other image follows (PhotoKit's result handler "final" call).
    public var isFinal: Bool
}

/// Progress of an image request.
public enum ImageRequestProgress: Sendable, Hashable {
    /// The server reports its own progress (0…1).
    case rendering(Double)
    /// Bytes of an image arriving.
    case receiving(received: Int, total: Int)
}

/// PhotoKit's `PHImageRequestID`: names a running image request for
/// ``ImageManager/cancelImageRequest(_:)``.
public typealias ImageRequestID = UInt64

/// A running image request: its id and its images (degraded first, then final).
public struct ImageRequestHandle: Sendable {
    /// The id to cancel it with.
    public let id: ImageRequestID
    /// The delivered images; ends after the final one, or throws the request's error.
    public let images: AsyncThrowingStream<DeliveredImage, any Error>
}

/// Requests images of assets at a size: PhotoKit's `PHImageManager`.
public struct ImageManager: Sendable {
    let connection: ClientConnection
    private static let requestIDs = RequestIDs()

    /// Ignore every server cache (renders from the original each time; for load testing
    /// cold requests). Only the library owner may set it; others get `permissionDenied`.
    public var bypassCache = false

    /// The image manager of `library`'s connection.
    public init(library: PhotoLibrary) {
        self.connection = library.connection
    }

    init(connection: ClientConnection) {
        self.connection = connection
    }

    /// `requestImage(for:targetSize:contentMode:options:resultHandler:)` with its request id:
    /// the handle's ``ImageRequestHandle/id`` cancels it through ``cancelImageRequest(_:)``
    /// (from anywhere), and its images arrive on ``ImageRequestHandle/images``.
    public func startImageRequest(
        forAssetIdentifier identifier: String, targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions(), progress: (@Sendable (ImageRequestProgress) -> Void)? = nil
    ) async throws -> ImageRequestHandle {
        let id = Self.requestIDs.next()
        let images = try await requestImage(
            forAssetIdentifier: identifier, targetSize: targetSize, contentMode: contentMode, options: options,
            progress: progress, requestID: id, cancellableByID: true)
        return ImageRequestHandle(id: id, images: images)
    }

    /// `cancelImageRequest(_:)`: the server stops decoding and sending the request with `id`
    /// (its image stream, or result handler, then ends with a `cancelled` error). A request
    /// this image manager's connection started is cancelled in the connection itself, at once,
    /// even right after it was started (the server reads the cancel after the request); any
    /// other id is asked of the server, which throws `notFound` when no request with that id
    /// runs on this connection (it may have just finished).
    public func cancelImageRequest(_ id: ImageRequestID) async throws {
        if let call = connection.imageRequests.take(id) {
            connection.cancel(call)
            return
        }
        _ = try await connection.unary(PhotoLibraryMethods.cancelImageRequest, Wire.CancelImageRequestRequest(requestID: id))
    }

    /// PhotoKit's `requestImage(for:targetSize:contentMode:options:resultHandler:)` itself:
    /// returns at once with the request's id (for ``cancelImageRequest(_:)``), and
    /// `resultHandler` gets each image — a degraded one first in opportunistic mode, then the
    /// final one (``DeliveredImage/isFinal``) — or, instead, the error that ended the request.
    ///
    /// As in PhotoKit, the handler (and `progress`) run on a serial queue: this connection's,
    /// so they should return quickly. They may start further requests. No task is involved,
    /// which makes this the cheapest way to request many images.
    @discardableResult
    public func requestImage(
        for asset: Asset, targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions(), progress: (@Sendable (ImageRequestProgress) -> Void)? = nil,
        resultHandler: @escaping @Sendable (Result<DeliveredImage, any Error>) -> Void
    ) -> ImageRequestID {
        requestImage(
            forAssetIdentifier: asset.localIdentifier, targetSize: targetSize, contentMode: contentMode, options: options,
            progress: progress, resultHandler: resultHandler)
    }

    /// The same, by asset identifier.
    @discardableResult
    public func requestImage(
        forAssetIdentifier identifier: String, targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions(), progress: (@Sendable (ImageRequestProgress) -> Void)? = nil,
        resultHandler: @escaping @Sendable (Result<DeliveredImage, any Error>) -> Void
    ) -> ImageRequestID {
        let id = Self.requestIDs.next()
        let request: Wire.ImageRequest
        do {
            request = try imageRequest(identifier, targetSize, contentMode, options, wantsProgress: progress != nil, requestID: id)
        } catch {
            connection.queue.async { resultHandler(.failure(error)) }
            return id
        }
        let call = ClientStream(method: PhotoLibraryMethods.requestImage.info)
        let requests = connection.imageRequests
        requests.add(id, call)
        connection.start(
            PhotoLibraryMethods.requestImage.info, request: request.encodedDirectly(), timeout: nil,
            consumer: ImageAssembler(delivery: .handler(resultHandler), progress: progress, ended: { requests.remove(id) }), stream: call)
        return id
    }

    /// `requestImage(for:targetSize:contentMode:options:resultHandler:)` as a stream: each
    /// delivered image (a degraded one first in opportunistic mode, then the final one).
    /// Images are assembled on the connection's queue, where `progress` runs too (keep it
    /// short); ending the iteration early cancels the request.
    public func requestImage(
        for asset: Asset, targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions(), progress: (@Sendable (ImageRequestProgress) -> Void)? = nil
    ) async throws -> AsyncThrowingStream<DeliveredImage, any Error> {
        try await requestImage(forAssetIdentifier: asset.localIdentifier, targetSize: targetSize, contentMode: contentMode, options: options, progress: progress)
    }

    /// The same, by asset identifier.
    public func requestImage(
        forAssetIdentifier identifier: String, targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions(), progress: (@Sendable (ImageRequestProgress) -> Void)? = nil
    ) async throws -> AsyncThrowingStream<DeliveredImage, any Error> {
        try await requestImage(
            forAssetIdentifier: identifier, targetSize: targetSize, contentMode: contentMode, options: options,
            progress: progress, requestID: Self.requestIDs.next(), cancellableByID: false)
    }

    /// The request as a stream of images; with `cancellableByID` (its id is handed to the
    /// application) it is kept in ``ClientConnection/imageRequests`` while it runs, for
    /// ``cancelImageRequest(_:)``.
    private func requestImage(
        forAssetIdentifier identifier: String, targetSize: PixelSize, contentMode: ContentMode,
        options: ImageRequestOptions, progress: (@Sendable (ImageRequestProgress) -> Void)?, requestID: ImageRequestID,
        cancellableByID: Bool
    ) async throws -> AsyncThrowingStream<DeliveredImage, any Error> {
        let request = try imageRequest(identifier, targetSize, contentMode, options, wantsProgress: progress != nil, requestID: requestID)
        let (images, continuation) = AsyncThrowingStream<DeliveredImage, any Error>.makeStream()
        let call = ClientStream(method: PhotoLibraryMethods.requestImage.info)
        let requests = connection.imageRequests
        var ended: (@Sendable () -> Void)?
        if cancellableByID {
            requests.add(requestID, call)
            ended = { requests.remove(requestID) }
        }
        // A request that fails to open ends through its consumer too, which forgets it.
        _ = try await connection.open(
            PhotoLibraryMethods.requestImage.info, request: request.encodedDirectly(), timeout: nil,
            consumer: ImageAssembler(delivery: .every(continuation), progress: progress, ended: ended), stream: call)
        continuation.onTermination = { [connection] termination in
            if case .cancelled = termination { connection.cancel(call) }
        }
        return images
    }

    /// The final image only (what a caller that does not care for degraded images wants).
    ///
    /// The image is assembled on the connection's queue as its parts arrive (`progress` runs
    /// there too) and handed over once, when the request ends: one task resume per request.
    /// Cancelling the task cancels the request.
    public func image(
        forAssetIdentifier identifier: String, targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions(), progress: (@Sendable (ImageRequestProgress) -> Void)? = nil
    ) async throws -> DeliveredImage {
        let request = try imageRequest(identifier, targetSize, contentMode, options, wantsProgress: progress != nil, requestID: Self.requestIDs.next())
        return try await connection.consume(PhotoLibraryMethods.requestImage.info, request: request.encodedDirectly(), timeout: nil) {
            ImageAssembler(delivery: .last($0), progress: progress)
        }
    }

    /// The wire request, after checking the options the server would refuse.
    private func imageRequest(
        _ identifier: String, _ targetSize: PixelSize, _ contentMode: ContentMode, _ options: ImageRequestOptions,
        wantsProgress: Bool, requestID: ImageRequestID
    ) throws -> Wire.ImageRequest {
        if let crop = options.normalizedCropRect {
            let values = [crop.x, crop.y, crop.width, crop.height]
            guard values.allSatisfy(\.isFinite), crop.x >= 0, crop.y >= 0, crop.width > 0, crop.height > 0,
                crop.x + crop.width <= 1 + 1e-9, crop.y + crop.height <= 1 + 1e-9
            else {
                throw PhotoLibError(.invalidArgument, "normalizedCropRect (\(crop.x), \(crop.y), \(crop.width), \(crop.height)) must lie inside the unit square with a positive size")
            }
        }
        return try Wire.ImageRequest(
            assetIdentifier: identifier, targetSize: targetSize, contentMode: contentMode, options: options,
            wantsProgress: wantsProgress, requestID: requestID, bypassCache: bypassCache, acceptsWholeImages: true)
    }
}

/// Client-chosen image request ids, unique per process.
final class RequestIDs: Sendable {
    /// Guards the last id handed out. A leaf lock.
    private let value = Mutex<UInt64>(0)
    func next() -> UInt64 {
        value.withLock { value in
            value += 1
            return value
        }
    }
}
