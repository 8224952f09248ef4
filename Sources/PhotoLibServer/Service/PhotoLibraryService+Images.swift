import Foundation
import Logging
import PhotoLibCore
import PhotoLibImaging
import PhotoLibMedia
import PhotoLibStore
import PhotoLibWire

extension PhotoLibraryService {
    /// Registers the image, caching and resource methods. Their shared state (the image
    /// caches and the pre-render bookkeeping) is created here and captured by the handlers.
    func registerImageRoutes(in router: inout RPCRouter) {
        let cache = imageCache
        router.register(
            PhotoLibraryMethods.requestImage,
            inline: { [self] request, context throws(PhotoLibError) in try requestImageFromMemory(request, context: context, cache: cache) },
            { [self] call in try await requestImage(call, cache: cache) })
        router.register(PhotoLibraryMethods.cancelImageRequest) { [self] call in try await cancelImageRequest(call) }
        registerCachingRoutes(in: &router, cache: cache)
        registerResourceRoutes(in: &router)
    }

    /// JPEG quality of final renders.
    static let renderQuality = 85

    /// The largest target side of an image that is not large (``isLarge(_:)``).
    static let largeImageSide = 1024

    /// Whether an image rendered as `render` asks may be large: the maximum size, the stored
    /// size (`RESIZE_MODE_NONE`), or a target side over ``largeImageSide``. Such a request
    /// takes one of its connection's ``ConnectionSession/largeImages`` turns.
    static func isLarge(_ render: RenderRequest) -> Bool {
        render.isMaximumSize || render.resizeMode == .none || max(render.targetSize.width, render.targetSize.height) > largeImageSide
    }

    /// One image request after validation: what to render and how to find it in the caches.
    struct ImageJob: Sendable {
        var assetIdentifier: String
        var source: ImageSource
        var render: RenderRequest
        var key: ImageCacheKey
        var version: ImageVersion
        /// The job of rendering `source` (found for the checked `assetIdentifier`) as asked.
        init(
            assetIdentifier: String, source: ImageSource, targetSize: PixelSize, contentMode: ContentMode, resizeMode: ResizeMode,
            version: ImageVersion, crop: NormalizedRect?
        ) {
            self.assetIdentifier = assetIdentifier
            self.source = source
            self.version = version
            render = RenderRequest(
                targetSize: targetSize, contentMode: contentMode, resizeMode: resizeMode, crop: crop, quality: PhotoLibraryService.renderQuality)
            // No edits exist yet: current, unadjusted and original render the same file unless
            // the asset has a fullSizePhoto; the key keeps them apart anyway.
            let contentVersion = version == .current ? source.contentVersion : source.original.sha256 + "|" + source.contentVersion
            key = ImageCacheKey(
                assetIdentifier: assetIdentifier, contentVersion: contentVersion, targetSize: targetSize,
                contentMode: contentMode, resizeMode: resizeMode, version: version, crop: crop, variant: .final)
        }

        /// The file the pixels come from.
        var path: String {
            version == .current ? source.current.path : source.original.path
        }
        /// Whether the answer is the original file as it is (version original, maximum size,
        /// no resize, no crop): sent byte for byte, never rendered or cached. Never for a
        /// video: its image is a rendered poster frame.
        var servesOriginalFile: Bool {
            version == .original && render.isMaximumSize && render.resizeMode == .none && render.crop == nil && !source.isVideo
        }
    }

    /// Checks a request's size, crop and version and finds the asset's files; shared by
    /// `RequestImage` and the pre-renders of `StartCachingImages`.
    func imageJob(
        assetIdentifier: String, targetSize: PixelSize, contentMode: ContentMode, resizeMode: ResizeMode,
        version: ImageVersion, crop: NormalizedRect?, receivedAt: UInt64? = nil, limitedTo: String? = nil
    ) throws(PhotoLibError) -> ImageJob {
        let crop = try checkedImageRequest(assetIdentifier: assetIdentifier, targetSize: targetSize, crop: crop, limitedTo: limitedTo)
        let source = try imageSources.imageSource(forValidAsset: assetIdentifier, receivedAt: receivedAt)
        return ImageJob(
            assetIdentifier: assetIdentifier, source: source, targetSize: targetSize, contentMode: contentMode, resizeMode: resizeMode,
            version: version, crop: crop)
    }

    /// Checks an image request's asset identifier (and, for a limited client, that the asset
    /// is in its selection), target size and crop; returns the crop to render (`nil` for the
    /// whole image, whether asked for as no crop or as the unit rectangle: one cache entry for
    /// both).
    private func checkedImageRequest(
        assetIdentifier: String, targetSize: PixelSize, crop: NormalizedRect?, limitedTo: String?
    ) throws(PhotoLibError) -> NormalizedRect? {
        try LocalIdentifier.validate(assetIdentifier)
        // Outside a limited client's selection: the very answer of an unknown asset.
        if let limitedTo, try library.limited(to: limitedTo).visibleIdentifiers(among: [assetIdentifier]).isEmpty {
            throw ImageSourceResolver.unknownAsset(assetIdentifier)
        }
        let maxSide = configuration.maxImageDimension
        guard targetSize.width >= 0, targetSize.height >= 0, targetSize.width <= maxSide, targetSize.height <= maxSide,
            (targetSize.width == 0) == (targetSize.height == 0)
        else {
            throw PhotoLibError(.invalidArgument, "target size \(targetSize.width)x\(targetSize.height) is invalid: both sides 1…\(maxSide), or 0x0 for the maximum size")
        }
        return try crop.map { rect throws(PhotoLibError) in try rect.validated() }.flatMap { $0 == .unit ? nil : $0 }
    }

    /// `RequestImage`'s fast path on the connection's queue: a request whose final image is
    /// in the memory cache is answered at once with the cached image's encoded messages.
    /// Everything else (a miss, the disk cache, progress reports, `bypassCache`, the original
    /// file as it is, a request id already in use) returns `nil` and goes to
    /// ``requestImage(_:cache:)``. Errors are the ones that handler would answer with.
    func requestImageFromMemory(_ payload: [UInt8], context: InlineCallContext, cache: ImageCache) throws(PhotoLibError) -> InlineReply? {
        let session = context.session
        let request = try Wire.ImageRequest.decoded(payload)
        let (contentMode, options) = try request.domain()
        guard !request.bypassCache, !request.wantsProgress else { return nil }
        if request.requestID != 0 && session.isImageRequestRunning(request.requestID) { return nil }
        // The fields used below, taken once: using them from `request` across the calls that
        // follow made the compiler copy the whole message (every field retained) at each one.
        let assetIdentifier = request.assetIdentifier, targetSize = request.targetSize, form = ImageMessageForm(request)
        // A limited client's selection is checked in SQLite: not on the connection's queue.
        if limitedTo(session) != nil { return nil }
        let crop = try checkedImageRequest(assetIdentifier: assetIdentifier, targetSize: targetSize, crop: options.normalizedCropRect, limitedTo: nil)
        // Only a source remembered and still current: finding one reads rows or stats a
        // file, which the handler does off this queue (and remembers for the next request).
        guard let source = try imageSources.rememberedSource(forValidAsset: assetIdentifier, receivedAt: context.receivedAt) else { return nil }
        let job = ImageJob(
            assetIdentifier: assetIdentifier, source: source, targetSize: targetSize, contentMode: contentMode,
            resizeMode: options.resizeMode, version: options.version, crop: crop)
        if job.servesOriginalFile { return nil }
        guard let messages = cache.memory.messages(forCurrent: job.key, form: form, encode: { ImageSender.messages(for: $0, index: 0, isFinal: true, form: form) }) else {
            return nil
        }
        cache.counters.add(\.memoryHits)
        return InlineReply(messages: messages)
    }

    func requestImage(_ call: ServerCall<Wire.ImageRequest, Wire.ImageResponse>, cache: ImageCache) async throws {
        let request = try await call.singleRequest()
        let (contentMode, options) = try request.domain()
        if request.bypassCache && !call.session.isOwner {
            throw PhotoLibError(.permissionDenied, "bypassCache is for the library owner only", reason: .notAuthorized)
        }
        // Finding the asset's files may read SQLite and stat files: on the library's pool.
        let limitedTo = limitedTo(call.session)
        let job = try await libraryIO.run { [self] () throws(PhotoLibError) in
            try imageJob(
                assetIdentifier: request.assetIdentifier, targetSize: request.targetSize, contentMode: contentMode,
                resizeMode: options.resizeMode, version: options.version, crop: options.normalizedCropRect, limitedTo: limitedTo)
        }
        cache.memory.noteContentVersion(asset: job.assetIdentifier, version: job.key.contentVersion)
        let control = RenderControl()
        if request.requestID != 0 {
            let registered = call.session.registerImageRequest(request.requestID) {
                control.cancel()
                call.cancelByServer("image request \(request.requestID) was cancelled by CancelImageRequest")
            }
            guard registered else {
                throw PhotoLibError(.alreadyExists, "image request id \(request.requestID) is already in use on this connection")
            }
        }
        defer { if request.requestID != 0 { call.session.unregisterImageRequest(request.requestID) } }
        var logger = self.logger
        logger[metadataKey: "asset.id"] = "\(job.assetIdentifier)"
        logger[metadataKey: "request.id"] = "\(request.requestID)"
        let sender = ImageSender(call: call, wantsProgress: request.wantsProgress, form: ImageMessageForm(request))
        if request.wantsProgress { try await call.send(ImageSender.progress(0)) }

        // The original file as it is: version original, maximum size, no resize, no crop.
        if job.servesOriginalFile {
            try await sendOriginalFile(job, control: control, sender: sender)
            return
        }
        // A large image is held by this call from its render (or disk-cache read) until its
        // last part is handed to the connection: the connection's turns bound how many.
        let large = Self.isLarge(job.render)
        if large { try await call.session.largeImages.acquire() }
        defer { if large { call.session.largeImages.release() } }

        let useCache = !request.bypassCache
        // A memory miss reads the disk cache: file I/O, so on the library's pool.
        if useCache, let hit = try await cachedImage(job.key, cache: cache) {
            try await sender.deliver(hit, index: 0, isFinal: true)
            return
        }
        var index = 0
        switch options.deliveryMode {
        case .highQualityFormat:
            break
        case .fastFormat:
            // The cheapest acceptable image: a degraded one when it is at least half the final size.
            if let degraded = try await degradedImage(job, cache: cache, useCache: useCache, minimumFraction: 0.5, control: control, logger: logger, sender: sender) {
                try await sender.deliver(degraded, index: 0, isFinal: true)
                return
            }
        case .opportunistic:
            if let degraded = try await degradedImage(job, cache: cache, useCache: useCache, minimumFraction: 0, control: control, logger: logger, sender: sender) {
                try await sender.deliver(degraded, index: 0, isFinal: false)
                index = 1
            }
        }
        let final = try await render(job, degraded: false, control: control, logger: logger, cache: cache, sender: sender)
        if useCache { cache.store(job.key, final) }
        try await sender.deliver(final, index: index, isFinal: true)
    }

    /// The degraded image of `job`: a cached one, a smaller cached final render, or a
    /// degraded render (EXIF thumbnail, a progressive file's 1/8 decode of only the scans it needs, a 1/8 decode) at least
    /// `minimumFraction` of the final size on each side; `nil` when nothing qualifies or
    /// nothing is cheaper than the final image.
    private func degradedImage(
        _ job: ImageJob, cache: ImageCache, useCache: Bool, minimumFraction: Double, control: RenderControl,
        logger: Logger, sender: ImageSender
    ) async throws -> CachedImage? {
        let key = job.key.with(.degraded)
        if useCache {
            if let hit = try await cachedImage(key, cache: cache) { return hit }
            if minimumFraction == 0 {
                let bound = job.render.isMaximumSize ? Int.max : max(job.render.targetSize.width, job.render.targetSize.height)
                if let smaller = cache.memory.smallerRender(like: job.key, width: bound, height: bound) {
                    return CachedImage(jpeg: smaller.jpeg, width: smaller.width, height: smaller.height, degraded: true)
                }
            }
        }
        let result = try await renderTracked(
            job, degraded: true, minimumFraction: minimumFraction, control: control, logger: logger, cache: cache, sender: sender)
        guard let degraded = result ?? nil else { return nil }
        if useCache { cache.store(key, degraded) }
        return degraded
    }

    /// The cached image for `key`: from memory on the calling task, else from the disk cache
    /// on ``libraryIO`` (a file read must not block a cooperative thread).
    private func cachedImage(_ key: ImageCacheKey, cache: ImageCache) async throws -> CachedImage? {
        if let hit = cache.lookupInMemory(key) { return hit }
        return try await libraryIO.run { cache.lookupOnDisk(key) }
    }

    private func render(
        _ job: ImageJob, degraded: Bool, control: RenderControl, logger: Logger, cache: ImageCache, sender: ImageSender
    ) async throws -> CachedImage {
        let result = try await renderTracked(job, degraded: false, minimumFraction: 0, control: control, logger: logger, cache: cache, sender: sender)
        guard let image = result ?? nil else {
            throw PhotoLibError(.internalError, "the renderer returned no image for \(job.assetIdentifier)")
        }
        return image
    }

    /// Renders on the pool with progress reports, counting and logging the outcome.
    private func renderTracked(
        _ job: ImageJob, degraded: Bool, minimumFraction: Double, control: RenderControl, logger: Logger, cache: ImageCache,
        sender: ImageSender
    ) async throws -> CachedImage?? {
        cache.counters.add(\.rendersStarted)
        let started = DispatchTime.now()
        let progressTask = sender.wantsProgress && !degraded ? Task { await sender.reportProgress(of: control) } : nil
        defer { progressTask?.cancel() }
        do {
            let image = try await renderer.run(control: control) { () throws -> CachedImage? in
                if job.source.isVideo {
                    // A video has no cheaper degraded image than its poster frame.
                    if degraded { return nil }
                    return try Self.renderPoster(job, control: control)
                }
                let data = try Self.readFile(job.path, asset: job.assetIdentifier)
                do throws(ImagingError) {
                    if degraded {
                        guard let result = try StillImageRenderer.renderDegraded(data, request: job.render, control: control) else { return nil }
                        if minimumFraction > 0 {
                            let plan = try StillImageRenderer.plan(data, request: job.render)
                            guard Double(result.image.width) >= Double(plan.outputWidth) * minimumFraction,
                                Double(result.image.height) >= Double(plan.outputHeight) * minimumFraction
                            else { return nil }
                        }
                        return CachedImage(jpeg: result.image.jpeg, width: result.image.width, height: result.image.height, degraded: true)
                    }
                    let result = try StillImageRenderer.render(data, request: job.render, control: control)
                    return CachedImage(jpeg: result.jpeg, width: result.width, height: result.height, degraded: false)
                } catch {
                    throw Self.photoLibError(error, asset: job.assetIdentifier)
                }
            }
            cache.counters.add(\.rendersFinished)
            let counts = cache.counters.snapshot
            logger.debug("image rendered", metadata: [
                "render.degraded": "\(degraded)", "render.ms": "\(Self.milliseconds(since: started))",
                "render.size": "\(image.map { "\($0.width)x\($0.height)" } ?? "none")",
                "renders.finished": "\(counts.rendersFinished)", "renders.cancelled": "\(counts.rendersCancelled)",
            ])
            return .some(image)
        } catch let error as PhotoLibError where error.code == .cancelled {
            cache.counters.add(\.rendersCancelled)
            logger.info("image render cancelled", metadata: [
                "render.ms": "\(Self.milliseconds(since: started))", "render.progress": "\(control.progress)",
                "renders.cancelled": "\(cache.counters.snapshot.rendersCancelled)",
            ])
            throw CancellationError()
        } catch {
            cache.counters.add(\.rendersFailed)
            throw error
        }
    }

    /// The final image of a video asset: its poster frame (the first keyframe at or after
    /// min(10 %, 1 s)), upright, rendered as `job` asks; the movie is read piece by piece
    /// where it lies. Blocking: on the render pool.
    static func renderPoster(_ job: ImageJob, control: RenderControl?) throws(PhotoLibError) -> CachedImage {
        do {
            let result = try VideoPosterRenderer.render(path: job.path, request: job.render, control: control)
            return CachedImage(jpeg: result.jpeg, width: result.width, height: result.height, degraded: false)
        } catch {
            throw photoLibError(error, asset: job.assetIdentifier)
        }
    }

    static func milliseconds(since start: DispatchTime) -> Int {
        Int((DispatchTime.now().uptimeNanoseconds &- start.uptimeNanoseconds) / 1_000_000)
    }

    /// Sends `job`'s original file unchanged, as one final image: ImageStart with the file's
    /// upright size (``originalInfo(_:_:job:control:)``), its byte count and its type
    /// (`public.heic` for a HEIC original), then the file's bytes as ImageChunks, each read on
    /// the library I/O pool when the one before it has been handed to the connection, then
    /// ImageEnd. A call waiting for a client's credit so holds one chunk, never the file: a
    /// client that opens `maxConcurrentStreams` of these and reads nothing makes the server
    /// hold at most that many chunks.
    private func sendOriginalFile(_ job: ImageJob, control: RenderControl, sender: ImageSender) async throws {
        let record = job.source.original
        let file = try await openLibraryFile(record)
        let info = try await originalInfo(record, file, job: job, control: control)
        let call = sender.call
        if sender.wantsProgress { try await call.send(ImageSender.progress(1)) }
        try await call.send(ImageSender.start(
            width: info.pixelWidth, height: info.pixelHeight, byteCount: record.byteSize, degraded: false,
            uniformTypeIdentifier: record.uniformTypeIdentifier, index: 0))
        try await streamFile(file, from: 0, to: record.byteSize) { offset, bytes in
            try await call.send(Wire.ImageResponse(part: .chunk(Wire.ImageChunk(offset: UInt64(offset), data: bytes))))
        }
        try await call.send(ImageSender.end(index: 0, isFinal: true))
    }

    /// The bytes of a JPEG original read to find its size: its markers, EXIF included,
    /// come before the pixels, and in far less than this.
    static let originalHeadBytes = 1 << 20

    /// An original's upright size. A JPEG's is read from its first ``originalHeadBytes`` on
    /// the library I/O pool; any other format (whose metadata may follow the pixels: a HEIC's
    /// items, a WebP's or PNG's EXIF), or a JPEG whose head does not tell, is inspected whole
    /// on the render pool (at most `renderConcurrency` files in memory at once).
    private func originalInfo(
        _ record: AssetResourceRecord, _ file: LibraryFileReader, job: ImageJob, control: RenderControl
    ) async throws -> StillImageInfo {
        if record.uniformTypeIdentifier == "public.jpeg" {
            let count = min(record.byteSize, Self.originalHeadBytes)
            let fromHead = try await libraryIO.run { () throws(PhotoLibError) -> StillImageInfo? in
                let info = try? StillImageRenderer.inspect(try file.bytes(count, at: 0))
                return info?.format == .jpeg ? info : nil
            }
            if let fromHead { return fromHead }
        }
        return try await renderer.run(control: control) { () throws -> StillImageInfo in
            let data = try Self.readFile(record.path, asset: job.assetIdentifier)
            do throws(ImagingError) {
                return try StillImageRenderer.inspect(data)
            } catch {
                throw Self.photoLibError(error, asset: job.assetIdentifier)
            }
        }
    }

    /// How much of a JPEG is read for what its header says (its size and orientation): its
    /// markers come before the picture, within this many bytes for every camera JPEG (EXIF and
    /// ICC segments included); a header past it is read from the whole file.
    static let headerBytes = 256 << 10

    /// Reads a library file whole for decoding (``WholeFile/read(_:what:limit:tooLarge:)``),
    /// at most `ImagingLimits.maxInputBytes`.
    static func readFile(_ path: String, asset: String) throws(PhotoLibError) -> [UInt8] {
        try WholeFile.read(path, what: "the image file of \(asset)", limit: ImagingLimits.default.maxInputBytes)
    }

    func cancelImageRequest(_ call: ServerCall<Wire.CancelImageRequestRequest, Wire.Empty>) async throws {
        let request = try await call.singleRequest()
        guard call.session.cancelImageRequest(request.requestID) else {
            throw PhotoLibError(.notFound, "no image request with id \(request.requestID) is running on this connection")
        }
        try await call.send(Wire.Empty())
    }

    static func photoLibError(_ error: ImagingError, asset: String) -> PhotoLibError {
        switch error.code {
        case .cancelled:
            return PhotoLibError(.cancelled, "the image request for \(asset) was cancelled")
        case .tooLarge:
            return PhotoLibError(.resourceExhausted, "\(asset): \(error.message)", reason: .invalidImage)
        case .invalidArgument:
            return PhotoLibError(.invalidArgument, error.message)
        case .internalError:
            return PhotoLibError(.internalError, "\(asset): \(error.message)")
        case .unsupported:
            // Nothing is damaged: the file is valid, and this server's decoders lack a feature.
            return PhotoLibError(
                .failedPrecondition, "\(asset) cannot be rendered by this server: its original is intact, but it cannot decode it (\(error.message))",
                reason: .invalidImage)
        default:
            return PhotoLibError(.dataLoss, "the stored image of \(asset) cannot be decoded: \(error.message)", reason: .invalidImage)
        }
    }
}

/// How a delivered image's response messages are laid out (docs/PROTOCOL.md 14.2).
enum ImageMessageForm: Sendable {
    /// ImageStart, ImageChunks of at most 64 KiB, ImageEnd: what every client takes.
    case parts
    /// One ImageWhole for an image of at most one chunk (else ``parts``): for a request that
    /// set `accepts_whole_images`.
    case whole

    /// The form `request` takes.
    init(_ request: borrowing Wire.ImageRequest) {
        self = request.acceptsWholeImages ? .whole : .parts
    }

    /// The form an image of `byteCount` bytes is actually sent in: ``whole`` only fits one chunk.
    func applied(toByteCount byteCount: Int) -> ImageMessageForm {
        self == .whole && byteCount <= WireLimits.chunkSize ? .whole : .parts
    }
}

/// Streams images of one call: ImageStart, ImageChunks of at most 64 KiB, ImageEnd (or one
/// ImageWhole, when the request takes it and the image fits in a chunk), and ImageProgress
/// while rendering (each send waits for flow-control credit).
struct ImageSender: Sendable {
    let call: ServerCall<Wire.ImageRequest, Wire.ImageResponse>
    let wantsProgress: Bool
    let form: ImageMessageForm
    /// Images up to this size are sent in one batch.
    static let batchLimit = 256 << 10

    func deliver(_ image: CachedImage, index: Int, isFinal: Bool) async throws {
        try Task.checkCancellation()
        if wantsProgress && isFinal { try await call.send(Self.progress(1)) }
        // A small image (a thumbnail) goes out as one batch: one hop, frames coalesced.
        if image.jpeg.count <= Self.batchLimit {
            try await call.send(encoded: Self.messages(for: image, index: index, isFinal: isFinal, form: form))
            return
        }
        try await call.send(Self.start(image, index: index))
        var offset = 0
        while offset < image.jpeg.count {
            try Task.checkCancellation()
            let stop = min(offset + WireLimits.chunkSize, image.jpeg.count)
            try await call.send(Self.chunk(image, offset..<stop))
            offset = stop
        }
        try await call.send(Self.end(index: index, isFinal: isFinal))
    }

    /// `image` as encoded messages: ImageStart, ImageChunks of at most 64 KiB, ImageEnd; in
    /// the ``ImageMessageForm/whole`` form, one ImageWhole when it fits in a chunk.
    static func messages(for image: CachedImage, index: Int, isFinal: Bool, form: ImageMessageForm) -> [[UInt8]] {
        if form.applied(toByteCount: image.jpeg.count) == .whole {
            let whole = Wire.ImageWhole(start: startFields(image, index: index), data: image.jpeg, isFinal: isFinal)
            return [Wire.ImageResponse(part: .whole(whole)).encoded()]
        }
        var messages = [start(image, index: index).encoded()]
        var offset = 0
        while offset < image.jpeg.count {
            let stop = min(offset + WireLimits.chunkSize, image.jpeg.count)
            messages.append(chunk(image, offset..<stop).encoded())
            offset = stop
        }
        messages.append(end(index: index, isFinal: isFinal).encoded())
        return messages
    }

    static func start(_ image: CachedImage, index: Int) -> Wire.ImageResponse {
        Wire.ImageResponse(part: .start(startFields(image, index: index)))
    }

    /// The ImageStart fields of a rendered (JPEG) image.
    static func startFields(_ image: CachedImage, index: Int) -> Wire.ImageStart {
        startFields(width: image.width, height: image.height, byteCount: image.jpeg.count, degraded: image.degraded, uniformTypeIdentifier: "public.jpeg", index: index)
    }

    /// ImageStart of an image of `byteCount` bytes of type `uniformTypeIdentifier`.
    static func start(width: Int, height: Int, byteCount: Int, degraded: Bool, uniformTypeIdentifier: String, index: Int) -> Wire.ImageResponse {
        Wire.ImageResponse(part: .start(startFields(
            width: width, height: height, byteCount: byteCount, degraded: degraded, uniformTypeIdentifier: uniformTypeIdentifier, index: index)))
    }

    static func startFields(width: Int, height: Int, byteCount: Int, degraded: Bool, uniformTypeIdentifier: String, index: Int) -> Wire.ImageStart {
        Wire.ImageStart(
            width: UInt32(width), height: UInt32(height), byteCount: UInt64(byteCount), degraded: degraded,
            uniformTypeIdentifier: uniformTypeIdentifier, imageIndex: UInt32(index))
    }

    static func chunk(_ image: CachedImage, _ range: Range<Int>) -> Wire.ImageResponse {
        Wire.ImageResponse(part: .chunk(Wire.ImageChunk(offset: UInt64(range.lowerBound), data: Array(image.jpeg[range]))))
    }

    static func end(index: Int, isFinal: Bool) -> Wire.ImageResponse {
        Wire.ImageResponse(part: .end(Wire.ImageEnd(imageIndex: UInt32(index), isFinal: isFinal)))
    }

    static func progress(_ fraction: Double) -> Wire.ImageResponse {
        Wire.ImageResponse(part: .progress(Wire.ImageProgress(fraction: fraction)))
    }

    /// Sends the decode's progress every 50 ms while it changes, until cancelled.
    func reportProgress(of control: RenderControl) async {
        var last = 0.0
        while !Task.isCancelled {
            try? await Task.sleep(nanoseconds: 50_000_000)
            let now = control.progress
            if now > last && now < 1 {
                last = now
                try? await call.send(Self.progress(now))
            }
        }
    }
}
