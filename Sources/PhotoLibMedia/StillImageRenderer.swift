import PhotoLibCore
import PhotoLibImaging

/// Inspects, validates and renders still photos in every format PhotoLib reads — JPEG,
/// HEIC/HEIF, PNG, WebP — through one set of calls; the format is detected from the bytes.
///
/// JPEG goes to `JPEGInspector` and `JPEGRenderer` unchanged. The other formats are
/// decoded by their C shims (libheif, libpng, libwebp) to 8-bit gray or RGB, alpha composited
/// over white, and box-shrunk by an integer factor row by row while decoding (their stand-in
/// for JPEG's DCT scaling: the result still covers twice the output), then take the JPEG
/// pipeline's last steps: crop, Lanczos-3 resample, orientation, JPEG encode. `RenderRequest` means the same for every format: the output size is
/// `JPEGRenderer/outputSize(uprightWidth:uprightHeight:targetWidth:targetHeight:contentMode:)`
/// of the upright image (or of the crop), never upscaled; `ResizeMode.fast` shrinks to cover
/// the output once and returns that decode as it is when it is at most twice the exact size.
///
/// Every decoder applies `ImagingLimits` before allocating (input bytes, then the header's
/// width × height against `maxPixels`, then the decode's memory against `maxMemoryBytes`);
/// truncated and damaged files fail with `ImagingError/Code/truncated` or
/// `ImagingError/Code/corrupt`, anything else with `ImagingError/Code/unsupportedFormat`
/// naming what it is. A `RenderControl` cancels between rows (PNG), between 64 KiB input
/// slices (WebP), or before and after the decode (HEIC: libheif 1.15 cannot be interrupted);
/// its `RenderControl/progress` is reported for JPEG only.
public enum StillImageRenderer {
    /// Reads headers and metadata only: size, orientation, alpha, EXIF date, GPS, camera,
    /// UserComment, Apple content identifier, embedded thumbnail.
    ///
    /// Throws `ImagingError/Code/unsupportedFormat` for anything but JPEG, HEIC, PNG and
    /// WebP, `ImagingError/Code/tooLarge` when the header exceeds `limits`, and the header
    /// errors of each format. Damaged metadata never fails: its fields are reported as absent.
    public static func inspect(_ data: [UInt8], limits: ImagingLimits = .default) throws(ImagingError) -> StillImageInfo {
        guard let format = ImageFormat.detect(data) else { throw ImageFormat.unsupportedError(for: data) }
        switch format {
        case .jpeg:
            return jpegInfo(data, header: try LibJPEG.readHeader(data, limits: limits), limits: limits)
        case .png:
            let header = try LibPNG.readHeader(data, limits: limits)
            return sidecarInfo(
                format: .png, width: header.width, height: header.height, hasAlpha: header.hasAlpha, data: data,
                exif: header.exif, xmp: header.xmp)
        case .webp:
            let header = try LibWebP.readHeader(data, limits: limits)
            return sidecarInfo(
                format: .webp, width: header.width, height: header.height, hasAlpha: header.hasAlpha, data: data,
                exif: header.exif, xmp: header.xmp)
        case .heic:
            return heicInfo(try LibHEIF.readHeader(data, limits: limits))
        }
    }

    /// Decodes the whole image (pixels discarded) to prove it is complete and undamaged, and
    /// returns the same info as ``inspect(_:limits:)``.
    ///
    /// JPEG: `JPEGInspector/validate(_:limits:control:)`. PNG: every row and every chunk to
    /// IEND, CRCs checked. WebP: the whole bitstream. HEIC: a strict decode of the primary
    /// image (damage in the HEVC data is an error, not a warning).
    public static func validate(
        _ data: [UInt8], limits: ImagingLimits = .default, control: RenderControl? = nil
    ) throws(ImagingError) -> StillImageInfo {
        let info = try inspect(data, limits: limits)
        switch info.format {
        case .jpeg: _ = try JPEGInspector.validate(data, limits: limits, control: control)
        case .png: _ = try LibPNG.decode(data, limits: limits, control: control, keepPixels: false)
        case .webp: _ = try LibWebP.decode(data, limits: limits, control: control, keepPixels: false)
        case .heic: _ = try LibHEIF.decode(data, thumbnail: false, limits: limits, control: control, keepPixels: false)
        }
        return info
    }

    /// Renders `data` as `request` asks — crop (upright unit coordinates), fit or fill, resize
    /// mode, orientation applied, alpha over white — as a JPEG at `request.quality`.
    ///
    /// JPEG input: `JPEGRenderer/render(_:request:limits:control:)`. Other formats: decode
    /// box-shrunk (see the type's summary), crop, resample, orient, encode. Throws
    /// `ImagingError/Code/invalidArgument` for a bad target, quality or crop, before decoding.
    public static func render(
        _ data: [UInt8], request: RenderRequest, limits: ImagingLimits = .default, control: RenderControl? = nil
    ) throws(ImagingError) -> RenderedImage {
        guard let format = ImageFormat.detect(data) else { throw ImageFormat.unsupportedError(for: data) }
        guard format != .jpeg else {
            return try JPEGRenderer.render(data, request: request, limits: limits, control: control)
        }
        let plan = try plan(data, format: format, request: request, limits: limits)
        try control?.check()
        let decoded = try decodePixels(data, format: format, shrink: shrinkFactor(plan, request: request), limits: limits, control: control)
        return try finish(decoded, plan: plan, request: request, quality: request.quality, limits: limits, control: control)
    }

    /// Decodes a HEIC (upright: libheif applies its transforms), PNG or WebP (as stored) with
    /// the box shrinker at `shrink`: the one decode of the other formats' renders and of their
    /// editing base. JPEG is not decoded here (`JPEGRenderer` does it, with DCT scaling).
    static func decodePixels(
        _ data: [UInt8], format: ImageFormat, shrink: Int, limits: ImagingLimits, control: RenderControl?
    ) throws(ImagingError) -> PixelBuffer {
        let decoded: PixelBuffer?
        switch format {
        case .png: decoded = try LibPNG.decode(data, limits: limits, control: control, keepPixels: true, shrink: shrink).pixels
        case .webp: decoded = try LibWebP.decode(data, limits: limits, control: control, keepPixels: true, shrink: shrink)
        case .heic:
            decoded = try LibHEIF.decode(data, thumbnail: false, limits: limits, control: control, keepPixels: true, shrink: shrink)
        case .jpeg:
            throw ImagingError(code: .internalError, message: "a JPEG reached the HEIC, PNG and WebP decoders")
        }
        guard let decoded else {
            throw ImagingError(code: .internalError, message: "the \(format.name) decoder returned no pixels")
        }
        return decoded
    }

    /// A cheap, lower-quality version of ``render(_:request:limits:control:)``, or `nil` when
    /// there is none cheaper than the final image.
    ///
    /// JPEG input: `JPEGRenderer/renderDegraded(_:request:limits:control:)`. HEIC: the
    /// file's largest thumbnail item, when there is no crop, its aspect ratio matches the
    /// image's (within 2 %) and it is at least half the output size on each side; the result
    /// has the output's aspect ratio, is never larger than the output, and is encoded at
    /// quality ≤ 70. PNG and WebP have no cheaper source: `nil`.
    public static func renderDegraded(
        _ data: [UInt8], request: RenderRequest, limits: ImagingLimits = .default, control: RenderControl? = nil
    ) throws(ImagingError) -> DegradedImage? {
        guard let format = ImageFormat.detect(data) else { throw ImageFormat.unsupportedError(for: data) }
        switch format {
        case .jpeg:
            return try JPEGRenderer.renderDegraded(data, request: request, limits: limits, control: control)
        case .png, .webp:
            _ = try plan(data, format: format, request: request, limits: limits)
            return nil
        case .heic:
            let plan = try plan(data, format: .heic, request: request, limits: limits)
            let header = try LibHEIF.readHeader(data, limits: limits)
            guard request.crop == nil, let thumbnail = header.thumbnail else { return nil }
            let imageAspect = Double(header.width) / Double(header.height)
            let thumbnailAspect = Double(thumbnail.width) / Double(thumbnail.height)
            guard abs(thumbnailAspect / imageAspect - 1) <= 0.02,
                thumbnail.width * 2 >= plan.outputWidth, thumbnail.height * 2 >= plan.outputHeight
            else { return nil }
            let pixels: PixelBuffer?
            do {
                pixels = try LibHEIF.decode(data, thumbnail: true, limits: limits, control: control, keepPixels: true)
            } catch where error.code == .cancelled {
                throw error
            } catch {
                // A damaged thumbnail is no reason to fail the request: the final render decides.
                return nil
            }
            guard let pixels else { return nil }
            let image = try finish(
                pixels, plan: plan, request: request, quality: min(request.quality, 70), limits: limits, control: control,
                neverUpscale: true)
            return DegradedImage(image: image, source: .heifThumbnail)
        }
    }

    /// The geometry of `request` for `data` in any still format (the output size a render
    /// will have): `JPEGRenderer/plan(_:request:limits:)` for a JPEG. Unsupported types are
    /// `ImagingError/Code/unsupportedFormat`.
    public static func plan(_ data: [UInt8], request: RenderRequest, limits: ImagingLimits = .default) throws(ImagingError) -> RenderPlan {
        guard let format = ImageFormat.detect(data) else { throw ImageFormat.unsupportedError(for: data) }
        if format == .jpeg { return try JPEGRenderer.plan(data, request: request, limits: limits) }
        return try plan(data, format: format, request: request, limits: limits)
    }

    /// The geometry of `request` for a non-JPEG `format`, in the coordinates of its decoded
    /// pixels: PNG and WebP decode as stored (EXIF orientation applied afterwards); HEIC
    /// decodes upright (orientation 1 for the pipeline).
    static func plan(
        _ data: [UInt8], format: ImageFormat, request: RenderRequest, limits: ImagingLimits
    ) throws(ImagingError) -> RenderPlan {
        try JPEGRenderer.checkRequest(request)
        let width: Int
        let height: Int
        let orientation: Int
        switch format {
        case .heic:
            let header = try LibHEIF.readHeader(data, limits: limits)
            (width, height, orientation) = (header.width, header.height, 1)
        case .png, .webp, .jpeg:
            let info = try inspect(data, limits: limits)
            (width, height, orientation) = (info.storedWidth, info.storedHeight, info.orientation)
        }
        return try JPEGRenderer.plan(
            request: request, storedWidth: width, storedHeight: height, orientation: orientation, isProgressive: false
        ) { _, _, _ in 8 }
    }

    /// The integer box-shrink factor the decoders apply while decoding (their stand-in for
    /// JPEG's DCT scaling): the largest k whose shrunk crop still covers twice the output on
    /// each side (`exact`; the Lanczos resampler finishes from there), or the output itself
    /// (`fast`, whose result may then skip the resampler). 1 for maximum size and `none`.
    static func shrinkFactor(_ plan: RenderPlan, request: RenderRequest) -> Int {
        let (outWidth, outHeight) = Orientation(exif: plan.orientation).sides(width: plan.outputWidth, height: plan.outputHeight)
        let crop = plan.storedCrop.pixels(width: plan.storedWidth, height: plan.storedHeight)
        let cover = request.resizeMode == .fast ? 1 : 2
        var factor = max(1, min(crop.width / (outWidth * cover), crop.height / (outHeight * cover)))
        while factor > 1 {
            let shrunk = plan.storedCrop.pixels(
                width: (plan.storedWidth + factor - 1) / factor, height: (plan.storedHeight + factor - 1) / factor)
            if shrunk.width >= outWidth * cover && shrunk.height >= outHeight * cover { break }
            factor -= 1
        }
        return factor
    }

    /// Crops the decoded pixels to the plan's stored crop, then resamples, orients and encodes.
    static func finish(
        _ decoded: PixelBuffer, plan: RenderPlan, request: RenderRequest, quality: Int, limits: ImagingLimits,
        control: RenderControl?, neverUpscale: Bool = false
    ) throws(ImagingError) -> RenderedImage {
        var pixels = decoded
        let crop = plan.storedCrop.pixels(width: decoded.width, height: decoded.height)
        if crop.width != decoded.width || crop.height != decoded.height {
            try control?.check()
            pixels = try LibJPEG.crop(decoded, crop)
        }
        return try JPEGRenderer.finish(
            pixels, plan: plan, request: request, quality: quality, limits: limits, control: control, neverUpscale: neverUpscale)
    }

    static func jpegInfo(_ data: [UInt8], header: LibJPEG.Header, limits: ImagingLimits) -> StillImageInfo {
        let exif = ExifMetadata(jpeg: data)
        var thumbnail: PixelSize?
        if let range = JPEGRenderer.exifThumbnailRange(data),
            let thumbnailHeader = try? LibJPEG.readHeader(Array(data[range]), limits: limits)
        {
            let (width, height) = Orientation(exif: exif.orientation).sides(width: thumbnailHeader.width, height: thumbnailHeader.height)
            thumbnail = PixelSize(width: width, height: height)
        }
        var info = StillImageInfo(
            format: .jpeg, storedWidth: header.width, storedHeight: header.height, orientation: exif.orientation,
            hasAlpha: false, creationDate: exif.creationDate, location: exif.location, hasCameraMetadata: exif.hasCamera,
            userComment: exif.userComment, contentIdentifier: exif.contentIdentifier, embeddedThumbnailSize: thumbnail)
        info.customRendered = exif.customRendered
        return info
    }

    /// PNG and WebP: EXIF from the eXIf/EXIF chunk, UserComment also from XMP.
    static func sidecarInfo(
        format: ImageFormat, width: Int, height: Int, hasAlpha: Bool, data: [UInt8], exif: Range<Int>?, xmp: Range<Int>?
    ) -> StillImageInfo {
        let metadata = exif.map { ExifMetadata(tiff: data[$0]) } ?? ExifMetadata()
        let comment = metadata.userComment ?? xmp.flatMap { XMPUserComment.find(in: data[$0]) }
        var info = StillImageInfo(
            format: format, storedWidth: width, storedHeight: height, orientation: metadata.orientation, hasAlpha: hasAlpha,
            creationDate: metadata.creationDate, location: metadata.location, hasCameraMetadata: metadata.hasCamera,
            userComment: comment, contentIdentifier: metadata.contentIdentifier, embeddedThumbnailSize: nil)
        info.customRendered = metadata.customRendered
        return info
    }

    /// HEIC: the size and orientation from the boxes; EXIF for everything else (its
    /// Orientation tag ignored).
    static func heicInfo(_ header: LibHEIF.Header) -> StillImageInfo {
        let metadata = header.exif.isEmpty ? ExifMetadata() : ExifMetadata(tiff: header.exif)
        var info = StillImageInfo(
            format: .heic, storedWidth: header.storedWidth, storedHeight: header.storedHeight,
            orientation: header.orientation, hasAlpha: header.hasAlpha, creationDate: metadata.creationDate,
            location: metadata.location, hasCameraMetadata: metadata.hasCamera, userComment: metadata.userComment,
            contentIdentifier: metadata.contentIdentifier, embeddedThumbnailSize: header.thumbnail)
        info.customRendered = metadata.customRendered
        // libheif's upright size also accounts for a clean-aperture crop ('clap').
        info.pixelWidth = header.width
        info.pixelHeight = header.height
        return info
    }
}
