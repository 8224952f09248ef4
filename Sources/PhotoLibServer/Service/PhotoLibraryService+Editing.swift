import Foundation
import PhotoLibCore
import PhotoLibImaging
import PhotoLibMedia
import PhotoLibStore
import PhotoLibWire

extension PhotoLibraryService {
    /// Registers `RequestContentEditingInput` (commits and reverts are change requests of
    /// `PerformChanges`; see ``preparingContentEdits(_:in:)``).
    func registerEditingRoutes(in router: inout RPCRouter) {
        router.register(PhotoLibraryMethods.requestContentEditingInput) { [self] call in try await requestContentEditingInput(call) }
    }

    /// The most formats a client may list as handled.
    static let maxAdjustmentFormats = 64
    /// The longer sides a display-size image may be asked for with.
    static let displaySizeRange = 64...4096

    /// `requestContentEditingInput(with:)`: the input first, then the full-size image's bytes
    /// in chunks of at most 64 KiB, each as flow control allows. The full-size image is always
    /// a JPEG (docs/PROTOCOL.md 15a.1b): a JPEG original or a render is streamed from its file;
    /// a HEIC, PNG or WebP original is replaced by its editing base
    /// (`StillImageRenderer.editingBase`, full size, upright, orientation 1), rendered on the
    /// render pool.
    func requestContentEditingInput(_ call: ServerCall<Wire.ContentEditingInputRequest, Wire.ContentEditingInputPart>) async throws {
        let request = try await call.singleRequest()
        guard request.canHandle.count <= Self.maxAdjustmentFormats else {
            throw PhotoLibError(.invalidArgument, "at most \(Self.maxAdjustmentFormats) adjustment formats may be listed; got \(request.canHandle.count)")
        }
        let maxSide = Int(request.displaySizeImageMaxSide)
        guard maxSide == 0 || (Self.displaySizeRange).contains(maxSide) else {
            throw PhotoLibError(.invalidArgument, "display_size_image_max_side \(maxSide) is outside \(Self.displaySizeRange.lowerBound)…\(Self.displaySizeRange.upperBound) (0: no display-size image)")
        }
        let asset = request.assetIdentifier, formats = request.canHandle.map(\.domain)
        let library = view(call.session)
        let source = try await libraryIO.run { () throws(PhotoLibError) in
            try library.contentEditingInput(forAsset: asset, canHandle: formats)
        }
        var input = source.input
        // Renders (full-size and base photos) are JPEGs the server wrote; only an original may not be.
        let needsBase = source.file.type == .photo && source.file.uniformTypeIdentifier != OriginalFileType.jpeg.uniformTypeIdentifier
        // Like a large RequestImage, a full-size editing base or a display image over
        // `largeImageSide` is held in memory by this call until its last chunk is handed to
        // the connection: it takes one of the connection's large-image turns first, so that a
        // client opening many inputs and reading none makes the server hold only that many.
        let large = needsBase || maxSide > Self.largeImageSide
        if large { try await call.session.largeImages.acquire() }
        defer { if large { call.session.largeImages.release() } }
        var display: [UInt8] = []
        let control = RenderControl()
        // A HEIC, PNG or WebP is decoded once, into its base (or the base comes from the disk
        // cache); the display image is made from that JPEG (a scaled decode), not by decoding
        // the original again.
        let base = needsBase ? try await editingBase(of: source.file, control: control) : nil
        if maxSide > 0 {
            let path = source.file.path
            // The original is read on the render pool's thread, when the render starts: a
            // call waiting for a turn of the pool holds no image (as RequestImage's renders).
            display = try await renderer.run(control: control) { () throws -> [UInt8] in
                let image = try base ?? Self.readFile(path, asset: asset)
                do throws(ImagingError) {
                    return try StillImageRenderer.render(
                        image, request: RenderRequest(targetSize: PixelSize(width: maxSide, height: maxSide), quality: Self.renderQuality),
                        control: control
                    ).jpeg
                } catch {
                    throw Self.photoLibError(error, asset: asset)
                }
            }
            input.displaySizeImageByteCount = display.count
        }
        if let base {
            input.byteCount = base.count
            input.fullSizeImageOrientation = 1
        }
        try await call.send(Wire.ContentEditingInputPart(part: .input(Wire.ContentEditingInput(input))))
        for start in stride(from: 0, to: display.count, by: WireLimits.chunkSize) {
            try await call.send(Wire.ContentEditingInputPart(part: .displaySizeImageData(Array(display[start..<min(start + WireLimits.chunkSize, display.count)]))))
        }
        if let base {
            for start in stride(from: 0, to: base.count, by: WireLimits.chunkSize) {
                try await call.send(Wire.ContentEditingInputPart(part: .data(Array(base[start..<min(start + WireLimits.chunkSize, base.count)]))))
            }
            return
        }
        try await streamFile(source.file, from: 0, to: source.file.byteSize) { _, data in
            try await call.send(Wire.ContentEditingInputPart(part: .data(data)))
        }
    }

    /// The editing base of `original`, a HEIC, PNG or WebP original (docs/PROTOCOL.md
    /// 15a.1b): from the disk cache, else rendered on the render pool (the file read there, when
    /// the render starts) and put in the disk cache, under its bytes' digest
    /// (``ImageCacheKey/editingBase(asset:originalSHA256:)``). Not in the memory cache: a base
    /// is full size, and would push out the thumbnails of hundreds of photos.
    private func editingBase(of original: AssetResourceRecord, control: RenderControl) async throws -> [UInt8] {
        let key = ImageCacheKey.editingBase(asset: original.assetIdentifier, originalSHA256: original.sha256)
        let disk = imageCache.disk
        if let cached = try await libraryIO.run({ disk.get(key) }) { return cached.jpeg }
        let path = original.path, asset = original.assetIdentifier
        let base = try await renderer.run(control: control) { () throws -> CachedImage in
            let bytes = try Self.readFile(path, asset: asset)
            do throws(ImagingError) {
                let jpeg = try StillImageRenderer.editingBase(bytes, control: control)
                let info = try JPEGInspector.inspect(jpeg)
                return CachedImage(jpeg: jpeg, width: info.pixelWidth, height: info.pixelHeight, degraded: false)
            } catch {
                throw Self.photoLibError(error, asset: asset)
            }
        }
        disk.put(key, base)
        return base.jpeg
    }

    /// `requests` with every edit in PhotoLib's own format (`FilterRecipe`) made complete:
    /// the recipe is checked, the size its render must have is set, and when the client sent
    /// no render the server renders the recipe on the original (on the render pool) and stages
    /// it as an upload. Other formats pass unchanged: their render must keep the original's size.
    func preparingContentEdits(_ requests: [ChangeRequest], in library: PhotoLibrary) async throws -> [ChangeRequest] {
        var prepared = requests
        for (index, request) in requests.enumerated() {
            guard case .commitContentEdit(var edit) = request,
                edit.adjustmentData.formatIdentifier == FilterRecipe.formatIdentifier
            else { continue }
            do {
                let recipe = try FilterRecipe(adjustmentData: edit.adjustmentData)
                let asset = edit.asset
                let photo = try await libraryIO.run { () throws(PhotoLibError) -> AssetResourceRecord in
                    let records = try library.resources(forAsset: asset)
                    guard let photo = records.first(where: { $0.type == .photo }) else {
                        throw PhotoLibError(.failedPrecondition, "asset \(asset) has no photo to edit")
                    }
                    return photo
                }
                let path = photo.path
                /// The size the recipe's render has on the original's editing base (headers only).
                @Sendable func outputSize(_ original: [UInt8]) throws(PhotoLibError) -> PixelSize {
                    do throws(ImagingError) { return try StillImageRenderer.recipeOutputSize(recipe, original: original) } catch {
                        throw Self.photoLibError(error, asset: asset)
                    }
                }
                if edit.renderedUploadID == nil {
                    // The original is read on the render pool's thread when the render starts:
                    // a change request waiting for a turn of the pool holds no image. A HEIC,
                    // PNG or WebP original is rendered from its editing base, the JPEG a client
                    // is given (so both sides give the same bytes).
                    let intake = PhotoIntake(library: library)
                    let control = RenderControl()
                    // A HEIC, PNG or WebP original's base, from the disk cache or rendered
                    // once; a JPEG is its own base.
                    let base = photo.uniformTypeIdentifier == OriginalFileType.jpeg.uniformTypeIdentifier
                        ? nil : try await editingBase(of: photo, control: control)
                    let (size, upload) = try await renderer.run(control: control) { () throws -> (PixelSize, Upload) in
                        let original = try base ?? Self.readFile(path, asset: asset)
                        let size = try outputSize(original)
                        let rendered: RenderedImage
                        do throws(ImagingError) { rendered = try StillImageRenderer.renderRecipe(original, recipe: recipe, control: control) } catch {
                            throw Self.photoLibError(error, asset: asset)
                        }
                        return (size, try intake.stage(rendered.jpeg, filename: "FullSizeRender.jpg"))
                    }
                    edit.expectedSize = size
                    edit.renderedUploadID = upload.uploadID
                } else {
                    // The client rendered: only the size its render must have is needed. A
                    // JPEG's comes from its header (not the whole original, read for each
                    // commit before); another format is inspected whole.
                    let isJPEG = photo.uniformTypeIdentifier == OriginalFileType.jpeg.uniformTypeIdentifier
                    edit.expectedSize = try await libraryIO.run { () throws(PhotoLibError) -> PixelSize in
                        if isJPEG, let head = try? WholeFile.head(path, what: "the image file of \(asset)", count: Self.headerBytes),
                            let size = try? outputSize(head)
                        {
                            return size
                        }
                        return try outputSize(try Self.readFile(path, asset: asset))
                    }
                }
                prepared[index] = .commitContentEdit(edit)
            } catch let error as PhotoLibError {
                throw PhotoLibError(
                    error.code, "request \(index) (\(request.name)): \(error.message)",
                    reason: error.reason == .unspecified ? .changeRequestFailed : error.reason, failedRequestIndex: index)
            }
        }
        return prepared
    }
}
