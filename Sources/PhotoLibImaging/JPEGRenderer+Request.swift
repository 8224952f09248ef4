internal import CPhotoLibExif
import PhotoLibCore


/// Where a degraded image came from (cheapest first).
public enum DegradedSource: String, Sendable, Hashable {
    /// The thumbnail embedded in the EXIF segment.
    case exifThumbnail
    /// The scans of a progressive JPEG that a 1/8 decode reads (its DC scans, and the chroma AC
    /// scans of a 4:2:0 file), decoded at 1/8: the pixels of a full 1/8 decode, for a fraction
    /// of the work, the other scans skipped unread.
    case progressiveEarlyScan
    /// A 1/8 DCT decode of the whole file (entropy decoding only, no inverse DCT).
    case eighthScaleDecode
    /// The thumbnail image item of a HEIF file (iPhones store a 320-pixel one).
    case heifThumbnail
}

/// A degraded render and where it came from.
public struct DegradedImage: Sendable, Hashable {
    /// The encoded image.
    public var image: RenderedImage
    /// Its source.
    public var source: DegradedSource

    package init(image: RenderedImage, source: DegradedSource) {
        self.image = image
        self.source = source
    }
}

/// The geometry of one render, worked out from the headers before any pixel is decoded.
public struct RenderPlan: Sendable, Hashable {
    /// Upright size of the whole image.
    public var uprightWidth: Int
    /// Upright height of the whole image.
    public var uprightHeight: Int
    /// EXIF orientation, 1...8.
    public var orientation: Int
    /// Whether the stream is progressive.
    public var isProgressive: Bool
    /// The exact upright output size (before a fast-mode shortcut).
    public var outputWidth: Int
    /// See ``outputWidth``.
    public var outputHeight: Int
    /// The DCT scale N (decode at N/8) the final render uses.
    public var dctScale: Int
    /// The crop in the stored image, in unit coordinates.
    package var storedCrop: NormalizedRect
    package var storedWidth: Int
    package var storedHeight: Int
}

extension JPEGRenderer {
    /// Works out sizes and the DCT scale of `request` for `data` (headers and EXIF only).
    ///
    /// Throws ``ImagingError/Code/invalidArgument`` for a bad target, quality or crop, and
    /// the header errors of ``JPEGInspector/inspect(_:limits:)``.
    public static func plan(
        _ data: [UInt8], request: RenderRequest, limits: ImagingLimits = .default
    ) throws(ImagingError) -> RenderPlan {
        try checkRequest(request)
        let header = try LibJPEG.readHeader(data, limits: limits)
        let info = JPEGInspector.info(header: header, data: data)
        return try plan(
            request: request, storedWidth: info.storedWidth, storedHeight: info.storedHeight,
            orientation: info.orientation, isProgressive: header.isProgressive
        ) { storedCrop, width, height in
            coveringScale(storedCrop, storedWidth: info.storedWidth, storedHeight: info.storedHeight, outputWidth: width, outputHeight: height)
        }
    }

    /// The smallest N (a decode or conversion at N/8 of the stored size) whose crop still
    /// covers a stored output of `outputWidth` × `outputHeight`; 8 when none smaller does.
    package static func coveringScale(_ storedCrop: NormalizedRect, storedWidth: Int, storedHeight: Int, outputWidth: Int, outputHeight: Int) -> Int {
        for candidate in 1...8 {
            let rect = scaledCrop(storedCrop, storedWidth: storedWidth, storedHeight: storedHeight, scale: candidate)
            if rect.width >= outputWidth && rect.height >= outputHeight { return candidate }
        }
        return 8
    }

    /// Throws ``ImagingError/Code/invalidArgument`` for a bad quality, target or crop.
    package static func checkRequest(_ request: RenderRequest) throws(ImagingError) {
        guard (1...100).contains(request.quality) else {
            throw ImagingError(code: .invalidArgument, message: "JPEG quality \(request.quality) is out of range (1...100)")
        }
        if !request.isMaximumSize {
            try checkTarget(width: request.targetSize.width, height: request.targetSize.height)
        }
        do throws(PhotoLibError) { _ = try (request.crop ?? .unit).validated() } catch {
            throw ImagingError(code: .invalidArgument, message: error.message)
        }
    }

    /// The geometry of `request` (already checked) for decoded pixels of `storedWidth` ×
    /// `storedHeight` that `orientation` turns upright; `scale` picks the DCT scale from the
    /// stored crop and the stored output size (formats without DCT scaling answer 8).
    package static func plan(
        request: RenderRequest, storedWidth: Int, storedHeight: Int, orientation: Int, isProgressive: Bool,
        scale: (NormalizedRect, Int, Int) -> Int
    ) throws(ImagingError) -> RenderPlan {
        let storedCrop = (request.crop ?? .unit).stored(orientation: orientation)
        let storedPixels = storedCrop.pixels(width: storedWidth, height: storedHeight)
        let turn = Orientation(exif: orientation)
        let (cropUprightWidth, cropUprightHeight) = turn.sides(width: storedPixels.width, height: storedPixels.height)
        var output = (width: cropUprightWidth, height: cropUprightHeight)
        if !request.isMaximumSize && request.resizeMode != .none {
            output = try outputSize(
                uprightWidth: cropUprightWidth, uprightHeight: cropUprightHeight,
                targetWidth: request.targetSize.width, targetHeight: request.targetSize.height, contentMode: request.contentMode)
        }
        let (storedOutWidth, storedOutHeight) = turn.sides(width: output.width, height: output.height)
        let (uprightWidth, uprightHeight) = turn.sides(width: storedWidth, height: storedHeight)
        return RenderPlan(
            uprightWidth: uprightWidth, uprightHeight: uprightHeight,
            orientation: orientation, isProgressive: isProgressive, outputWidth: output.width, outputHeight: output.height,
            dctScale: scale(storedCrop, storedOutWidth, storedOutHeight), storedCrop: storedCrop,
            storedWidth: storedWidth, storedHeight: storedHeight)
    }

    /// The crop rectangle in the output of a decode at `scale`/8.
    package static func scaledCrop(_ crop: NormalizedRect, storedWidth: Int, storedHeight: Int, scale: Int) -> PixelRect {
        crop.pixels(
            width: LibJPEG.scaledDimension(storedWidth, scale: scale),
            height: LibJPEG.scaledDimension(storedHeight, scale: scale))
    }

    /// Renders `data` as `request` asks: crop (upright unit coordinates), fit or fill,
    /// resize mode, EXIF orientation applied, encoded at `request.quality`.
    ///
    /// Pipeline: DCT-scaled decode at the smallest N/8 whose crop still covers the output,
    /// keeping only the crop's rows and columns (a progressive file at 1/8 is decoded from the
    /// scans that scale reads, the others skipped: the same pixels, see
    /// `CPhotoLibJPEG_scan_plan`); Lanczos-3 resample to the exact size
    /// (skipped in `ResizeMode.fast` when the decode is at most 2× the exact size);
    /// orientation; encode. `control` (optional) cancels the work between scanline batches
    /// and reports decode progress.
    ///
    /// Related libjpeg documentation: libjpeg.txt, "Decompression parameter selection".
    public static func render(
        _ data: [UInt8], request: RenderRequest, limits: ImagingLimits = .default, control: RenderControl? = nil
    ) throws(ImagingError) -> RenderedImage {
        let plan = try plan(data, request: request, limits: limits)
        try control?.check()
        let crop = scaledCrop(plan.storedCrop, storedWidth: plan.storedWidth, storedHeight: plan.storedHeight, scale: plan.dctScale)
        let decoded = try LibJPEG.decode(
            data, scale: plan.dctScale, crop: crop, skipUnneededScans: plan.isProgressive && plan.dctScale == 1, limits: limits,
            control: control)
        return try finish(decoded.pixels, plan: plan, request: request, quality: request.quality, limits: limits, control: control)
    }

    /// Resamples (as the resize mode allows), orients and encodes decoded stored-space pixels.
    package static func finish(
        _ decoded: PixelBuffer, plan: RenderPlan, request: RenderRequest, quality: Int, limits: ImagingLimits,
        control: RenderControl?, neverUpscale: Bool = false
    ) throws(ImagingError) -> RenderedImage {
        var (storedOutWidth, storedOutHeight) = Orientation(exif: plan.orientation).sides(width: plan.outputWidth, height: plan.outputHeight)
        if neverUpscale && (decoded.width < storedOutWidth || decoded.height < storedOutHeight) {
            // A degraded source smaller than the output: keep its size, aspect of the output.
            let scale = min(Double(decoded.width) / Double(storedOutWidth), Double(decoded.height) / Double(storedOutHeight))
            storedOutWidth = max(1, Int((Double(storedOutWidth) * scale).rounded()))
            storedOutHeight = max(1, Int((Double(storedOutHeight) * scale).rounded()))
        }
        var pixels = decoded
        let withinFastBound = decoded.width <= 2 * storedOutWidth && decoded.height <= 2 * storedOutHeight
        let skipResample = request.resizeMode == .fast && withinFastBound && !neverUpscale
        if !skipResample && (pixels.width != storedOutWidth || pixels.height != storedOutHeight) {
            try control?.check()
            pixels = try LibJPEG.resample(pixels, width: storedOutWidth, height: storedOutHeight, limits: limits)
        }
        if plan.orientation != 1 {
            try control?.check()
            pixels = try LibJPEG.orient(pixels, orientation: plan.orientation)
        }
        let jpeg = try LibJPEG.encode(pixels, options: JPEGEncodeOptions(quality: quality), control: control)
        return RenderedImage(jpeg: jpeg, width: pixels.width, height: pixels.height)
    }

    /// A cheap, lower-quality version of ``render(_:request:limits:control:)``, or `nil` when
    /// there is none cheaper than the final image.
    ///
    /// Sources, cheapest first: the EXIF thumbnail when there is no crop, its aspect ratio
    /// matches the image's (within 2 %) and it is at least half the output size; a progressive
    /// JPEG's 1/8 decode from only the scans that scale reads (exactly a 1/8 decode's pixels);
    /// a 1/8 DCT decode when the final render needs a larger scale. The result has the output's aspect ratio and is never larger
    /// than the output (never upscaled). Encoded at quality 70.
    public static func renderDegraded(
        _ data: [UInt8], request: RenderRequest, limits: ImagingLimits = .default, control: RenderControl? = nil
    ) throws(ImagingError) -> DegradedImage? {
        let plan = try plan(data, request: request, limits: limits)
        let quality = min(request.quality, 70)
        if request.crop == nil, let thumbnail = try exifThumbnail(data, plan: plan, limits: limits, control: control) {
            return DegradedImage(
                image: try finish(thumbnail, plan: plan, request: request, quality: quality, limits: limits, control: control, neverUpscale: true),
                source: .exifThumbnail)
        }
        // At 1/8 the final render is itself this decode (a progressive file's skipping the
        // scans 1/8 never reads): a degraded image would cost as much and say less.
        guard plan.dctScale > 1 else { return nil }
        let crop = scaledCrop(plan.storedCrop, storedWidth: plan.storedWidth, storedHeight: plan.storedHeight, scale: 1)
        let decoded = try LibJPEG.decode(
            data, scale: 1, crop: crop, skipUnneededScans: plan.isProgressive, limits: limits, control: control)
        let image = try finish(decoded.pixels, plan: plan, request: request, quality: quality, limits: limits, control: control, neverUpscale: true)
        return DegradedImage(image: image, source: decoded.skippedScans > 0 ? .progressiveEarlyScan : .eighthScaleDecode)
    }

    /// The EXIF thumbnail, decoded in stored orientation, when it is usable for `plan`.
    static func exifThumbnail(
        _ data: [UInt8], plan: RenderPlan, limits: ImagingLimits, control: RenderControl?
    ) throws(ImagingError) -> PixelBuffer? {
        guard let range = exifThumbnailRange(data) else { return nil }
        let thumbnail = Array(data[range])
        guard let header = try? LibJPEG.readHeader(thumbnail, limits: limits) else { return nil }
        let storedAspect = Double(plan.storedWidth) / Double(plan.storedHeight)
        let thumbAspect = Double(header.width) / Double(header.height)
        let (storedOutWidth, storedOutHeight) = Orientation(exif: plan.orientation).sides(width: plan.outputWidth, height: plan.outputHeight)
        guard abs(thumbAspect / storedAspect - 1) <= 0.02,
            header.width * 2 >= storedOutWidth, header.height * 2 >= storedOutHeight
        else { return nil }
        // A damaged thumbnail is no reason to fail the request: fall back to other sources.
        do {
            return try LibJPEG.decode(thumbnail, scale: 8, crop: nil, limits: limits, control: control).pixels
        } catch where error.code == .cancelled {
            throw error
        } catch {
            return nil
        }
    }

    /// Where the EXIF thumbnail (a JPEG) lies inside `data`, if there is one.
    package static func exifThumbnailRange(_ data: [UInt8]) -> Range<Int>? {
        var offset = 0
        var length = 0
        let found = data.withUnsafeBufferPointer { CPhotoLibExif_thumbnail($0.baseAddress, $0.count, &offset, &length) }
        guard found != 0, length > 0, offset + length <= data.count else { return nil }
        return offset..<(offset + length)
    }

    /// Decodes `data` at full size and encodes it again with `options` (EXIF dropped,
    /// orientation not applied): a way to produce every kind of JPEG from one photo.
    public static func reencode(
        _ data: [UInt8], options: JPEGEncodeOptions, limits: ImagingLimits = .default
    ) throws(ImagingError) -> [UInt8] {
        let decoded = try LibJPEG.decode(data, scale: 8, crop: nil, limits: limits, control: nil)
        return try LibJPEG.encode(decoded.pixels, options: options, control: nil)
    }
}
