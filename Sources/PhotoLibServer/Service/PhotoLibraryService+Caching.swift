import Foundation
import PhotoLibCore
import PhotoLibImaging
import PhotoLibMedia
import PhotoLibWire

extension PhotoLibraryService {
    /// Registers `StartCachingImages`, `StopCachingImages`, `StopCachingImagesForAllAssets`.
    func registerCachingRoutes(in router: inout RPCRouter, cache: ImageCache) {
        router.register(PhotoLibraryMethods.startCachingImages) { [self] call in try await startCaching(call, cache: cache) }
        router.register(PhotoLibraryMethods.stopCachingImages) { [self] call in try await stopCaching(call, cache: cache) }
        router.register(PhotoLibraryMethods.stopCachingImagesForAllAssets) { call in
            _ = try await call.singleRequest()
            cache.prefetch.removeAll(session: call.session)
            try await call.send(Wire.Empty())
        }
    }

    private func cachingEntries(_ request: Wire.CachingRequest) throws(PhotoLibError) -> [ImageCachePrefetch.Entry] {
        let (contentMode, resizeMode, version) = try request.domain()
        let maxSide = configuration.maxImageDimension
        let size = request.targetSize
        guard size.width >= 0, size.height >= 0, size.width <= maxSide, size.height <= maxSide, (size.width == 0) == (size.height == 0) else {
            throw PhotoLibError(.invalidArgument, "target size \(size.width)x\(size.height) is invalid: both sides 1…\(maxSide), or 0x0 for the maximum size")
        }
        for identifier in request.assetIdentifiers { try LocalIdentifier.validate(identifier) }
        return request.assetIdentifiers.map {
            ImageCachePrefetch.Entry(
                assetIdentifier: $0, targetSize: size, contentMode: contentMode,
                resizeMode: resizeMode, version: version)
        }
    }

    /// `startCachingImages(for:targetSize:contentMode:options:)`: registers the assets for
    /// this connection and queues a pre-render of each on the background pool. A pre-render
    /// runs only if its registration still exists when the pool reaches it (so stopCaching
    /// of a window that scrolled away costs nothing) and skips images already cached.
    /// Unknown assets (and a limited client's assets outside its selection) are skipped
    /// silently, as PhotoKit does.
    func startCaching(_ call: ServerCall<Wire.CachingRequest, Wire.Empty>, cache: ImageCache) async throws {
        let request = try await call.singleRequest()
        var entries = try cachingEntries(request)
        if limitedTo(call.session) != nil {
            // A limited client's assets outside its selection are skipped like unknown ones.
            let view = view(call.session), identifiers = entries.map(\.assetIdentifier)
            let visible = try await libraryIO.run { () throws(PhotoLibError) in try view.visibleIdentifiers(among: identifiers) }
            entries = entries.filter { visible.contains($0.assetIdentifier) }
        }
        let added = try cache.prefetch.add(entries, session: call.session)
        let connectionID = call.session.connectionID
        for entry in added {
            renderer.runInBackground { [self] in
                guard cache.prefetch.isWanted(entry, connectionID: connectionID) else { return }
                prerender(entry, cache: cache)
            }
        }
        try await call.send(Wire.Empty())
    }

    /// `stopCachingImages(for:targetSize:contentMode:options:)`.
    func stopCaching(_ call: ServerCall<Wire.CachingRequest, Wire.Empty>, cache: ImageCache) async throws {
        let request = try await call.singleRequest()
        cache.prefetch.remove(try cachingEntries(request), session: call.session)
        try await call.send(Wire.Empty())
    }

    /// Renders one caching entry into the caches (on the background pool's thread).
    private func prerender(_ entry: ImageCachePrefetch.Entry, cache: ImageCache) {
        let job: ImageJob
        do {
            job = try imageJob(
                assetIdentifier: entry.assetIdentifier, targetSize: entry.targetSize,
                contentMode: entry.contentMode, resizeMode: entry.resizeMode, version: entry.version, crop: nil)
        } catch {
            logger.debug("pre-render skipped", metadata: ["asset.id": "\(entry.assetIdentifier)", "error": "\(error.message)"])
            return
        }
        guard cache.memory.get(job.key) == nil, cache.disk.get(job.key) == nil else { return }
        do {
            let image: CachedImage
            if job.source.isVideo {
                image = try Self.renderPoster(job, control: nil)
            } else {
                let rendered = try StillImageRenderer.render(try Self.readFile(job.path, asset: job.assetIdentifier), request: job.render)
                image = CachedImage(jpeg: rendered.jpeg, width: rendered.width, height: rendered.height, degraded: false)
            }
            cache.store(job.key, image)
            cache.counters.add(\.prerenders)
            logger.debug("pre-rendered", metadata: ["asset.id": "\(entry.assetIdentifier)", "render.size": "\(image.width)x\(image.height)"])
        } catch {
            logger.debug("pre-render failed", metadata: ["asset.id": "\(entry.assetIdentifier)", "error": "\(error)"])
        }
    }
}
