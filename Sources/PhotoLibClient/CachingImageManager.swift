import Foundation
import PhotoLibWire

/// PhotoKit's `PHCachingImageManager`: asks the server to pre-render images of the assets a
/// client is about to show (a scrolling grid's visible window and its neighbours), so that
/// the requests that follow are answered from the server's cache.
///
/// ```swift
/// let caching = CachingImageManager(library: library)
/// try await caching.startCachingImages(for: visible, targetSize: PixelSize(width: 256, height: 256), contentMode: .aspectFill)
/// // … scroll …
/// try await caching.stopCachingImages(for: scrolledAway, targetSize: PixelSize(width: 256, height: 256), contentMode: .aspectFill)
/// ```
///
/// Registrations belong to the connection: closing it forgets them. The server renders them
/// one at a time at background priority, skipping those stopped before their turn.
public struct CachingImageManager: Sendable {
    /// The image manager whose requests benefit from the cache.
    public let imageManager: ImageManager

    /// The caching manager of `library`'s connection.
    public init(library: PhotoLibrary) {
        self.imageManager = ImageManager(library: library)
    }

    /// `startCachingImages(for:targetSize:contentMode:options:)`. Unknown identifiers are
    /// ignored, as in PhotoKit. Sent in batches of at most 1000 identifiers.
    public func startCachingImages(
        for identifiers: [String], targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions()
    ) async throws {
        try await send(PhotoLibraryMethods.startCachingImages, identifiers, targetSize, contentMode, options)
    }

    /// `stopCachingImages(for:targetSize:contentMode:options:)`: the same arguments as the
    /// matching start call.
    public func stopCachingImages(
        for identifiers: [String], targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions()
    ) async throws {
        try await send(PhotoLibraryMethods.stopCachingImages, identifiers, targetSize, contentMode, options)
    }

    /// `stopCachingImagesForAllAssets()`.
    public func stopCachingImagesForAllAssets() async throws {
        _ = try await imageManager.connection.unary(PhotoLibraryMethods.stopCachingImagesForAllAssets, Wire.Empty())
    }

    /// `requestImage` through the cache: the same as ``ImageManager``'s.
    public func requestImage(
        forAssetIdentifier identifier: String, targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions(), progress: (@Sendable (ImageRequestProgress) -> Void)? = nil
    ) async throws -> AsyncThrowingStream<DeliveredImage, any Error> {
        try await imageManager.requestImage(
            forAssetIdentifier: identifier, targetSize: targetSize, contentMode: contentMode, options: options, progress: progress)
    }

    private func send(
        _ method: MethodDescriptor<Wire.CachingRequest, Wire.Empty, CallKinds.Unary>, _ identifiers: [String], _ targetSize: PixelSize, _ contentMode: ContentMode,
        _ options: ImageRequestOptions
    ) async throws {
        var start = 0
        repeat {
            let batch = Array(identifiers[start..<min(identifiers.count, start + Wire.CachingRequest.maxAssets)])
            let request = try Wire.CachingRequest(
                assetIdentifiers: batch, targetSize: targetSize, contentMode: contentMode, resizeMode: options.resizeMode,
                version: options.version)
            _ = try await imageManager.connection.unary(method, request)
            start += Wire.CachingRequest.maxAssets
        } while start < identifiers.count
    }
}
