import Foundation
import PhotoLibCore
import PhotoLibImaging
import PhotoLibStore
import PhotoLibWire

extension PhotoLibraryService {
    /// Registers the image, caching and resource methods.
    func registerImageRoutes(in router: inout RPCRouter) {
        router.register(PhotoLibraryMethods.requestImage) { [self] call in try await requestImage(call) }
        router.register(PhotoLibraryMethods.cancelImageRequest) { [self] call in try await cancelImageRequest(call) }
    }

    func requestImage(_ call: ServerCall) async throws {
        let request = try await call.singleRequest(ImageRequest.self)
        try LocalIdentifier.validate(request.assetIdentifier)
        let target = request.targetSize
        let maxSide = configuration.maxImageDimension
        guard target.width >= 0, target.height >= 0, target.width <= maxSide, target.height <= maxSide,
            (target.width == 0) == (target.height == 0)
        else {
            throw PhotoLibError(.invalidArgument, "target size \(target.width)x\(target.height) is invalid: both sides 1…\(maxSide), or 0x0 for the maximum size")
        }
        if request.options.normalizedCropRect != nil {
            throw PhotoLibError(.unimplemented, "normalizedCropRect is not built in this server yet; request the whole image")
        }
        if request.bypassCache && !call.session.isOwner {
            throw PhotoLibError(.permissionDenied, "bypassCache is for the library owner only")
        }
        guard let asset = try library.asset(withIdentifier: request.assetIdentifier) else {
            throw PhotoLibError(.notFound, "no asset has the identifier \(request.assetIdentifier)")
        }
        if request.requestID != 0 {
            guard call.session.registerImageRequest(request.requestID, cancel: { call.cancelByServer("image request \(request.requestID) was cancelled") }) else {
                throw PhotoLibError(.alreadyExists, "image request id \(request.requestID) is already in use on this connection")
            }
        }
        defer { if request.requestID != 0 { call.session.unregisterImageRequest(request.requestID) } }

        if request.wantsProgress { try await call.send(ImageResponse.progress(0)) }
        let path = try library.originalFilePath(forAsset: asset.localIdentifier)
        let useFullSize = request.options.resizeMode == .none || (target.width == 0 && target.height == 0)
        let width = useFullSize ? asset.pixelWidth : target.width
        let height = useFullSize ? asset.pixelHeight : target.height
        let mode: ImageContentMode = request.contentMode == .aspectFill ? .aspectFill : .aspectFit
        let rendered = try await renderer.run { () throws -> RenderedImage in
            guard let data = FileManager.default.contents(atPath: path) else {
                throw PhotoLibError(.dataLoss, "the original of \(asset.localIdentifier) is missing from the library (\(path))")
            }
            do throws(ImagingError) {
                return try JPEGRenderer.render([UInt8](data), targetWidth: max(1, width), targetHeight: max(1, height), contentMode: mode)
            } catch {
                throw Self.photoLibError(error, asset: asset.localIdentifier)
            }
        }
        try Task.checkCancellation()
        if request.wantsProgress { try await call.send(ImageResponse.progress(1)) }
        try await call.send(ImageResponse.start(ImageStart(
            width: rendered.width, height: rendered.height, byteCount: rendered.jpeg.count, degraded: false, imageIndex: 0)))
        var offset = 0
        while offset < rendered.jpeg.count {
            try Task.checkCancellation()
            let end = min(offset + WireLimits.chunkSize, rendered.jpeg.count)
            try await call.send(ImageResponse.chunk(offset: offset, data: Array(rendered.jpeg[offset..<end])))
            offset = end
        }
        try await call.send(ImageResponse.end(imageIndex: 0, isFinal: true))
    }

    func cancelImageRequest(_ call: ServerCall) async throws {
        let request = try await call.singleRequest(CancelImageRequestRequest.self)
        guard call.session.cancelImageRequest(request.requestID) else {
            throw PhotoLibError(.notFound, "no image request with id \(request.requestID) is running on this connection")
        }
        try await call.send(EmptyMessage())
    }

    static func photoLibError(_ error: ImagingError, asset: String) -> PhotoLibError {
        switch error.code {
        case .tooLarge:
            return PhotoLibError(.resourceExhausted, "\(asset): \(error.message)", reason: .invalidImage)
        case .invalidArgument:
            return PhotoLibError(.invalidArgument, error.message)
        case .internalError:
            return PhotoLibError(.internalError, "\(asset): \(error.message)")
        default:
            return PhotoLibError(.dataLoss, "the stored image of \(asset) cannot be decoded: \(error.message)", reason: .invalidImage)
        }
    }
}
