/// Renders JPEGs at a requested size, upright, as new JPEGs.
public enum JPEGRenderer {
    /// Renders `data` to fit or fill a target size, applying EXIF orientation, and encodes
    /// the result as a JPEG at `quality`.
    ///
    /// The output size follows PhotoKit. Let (W, H) be the upright size (after EXIF
    /// orientation; swapped for orientations 5...8) and (tw, th) the target:
    /// - ``ImageContentMode/aspectFit``: s = min(tw/W, th/H), the largest size inside the target;
    /// - ``ImageContentMode/aspectFill``: s = max(tw/W, th/H), the smallest size covering the
    ///   target, aspect kept, not cropped (one side may exceed the target);
    /// - never upscale: s = min(s, 1), so a target larger than the photo gives (W, H);
    /// - otherwise the constrained side (the one s was taken from) equals its target
    ///   exactly, and the other side is `max(1, Int((other * s).rounded()))`.
    ///
    /// See ``outputSize(uprightWidth:uprightHeight:targetWidth:targetHeight:contentMode:)``.
    ///
    /// Pipeline: decode with DCT scaling at the smallest N/8 (N = 1...8) whose output still
    /// covers the output size; resample with a Lanczos-3 filter widened by the scale
    /// factor (antialiased); apply EXIF orientation; encode (baseline, 4:2:0 for colour,
    /// optimised Huffman tables, no EXIF). Grayscale stays grayscale; CMYK/YCCK become RGB.
    ///
    /// Throws ``ImagingError/Code/invalidArgument`` for target sides outside 1...65535 or
    /// `quality` outside 1...100, and the decode errors of ``JPEGInspector/validate(_:limits:)``.
    ///
    /// Related libjpeg documentation: libjpeg.txt, "Decompression parameter selection"
    /// (scale_num/scale_denom), "Compression parameter selection" (jpeg_set_quality).
    public static func render(
        _ data: [UInt8],
        targetWidth: Int,
        targetHeight: Int,
        contentMode: ImageContentMode,
        quality: Int = 85,
        limits: ImagingLimits = .default
    ) throws(ImagingError) -> RenderedImage {
        guard (1...100).contains(quality) else {
            throw ImagingError(
                code: .invalidArgument, message: "JPEG quality \(quality) is out of range (1...100)")
        }
        try checkTarget(width: targetWidth, height: targetHeight)
        let header = try LibJPEG.readHeader(data, limits: limits)
        let info = JPEGInspector.info(header: header, data: data)
        let size = try outputSize(
            uprightWidth: info.pixelWidth, uprightHeight: info.pixelHeight,
            targetWidth: targetWidth, targetHeight: targetHeight, contentMode: contentMode)
        // Work in stored (unrotated) space until the final orientation step.
        let swaps = info.orientation >= 5
        let storedWidth = swaps ? size.height : size.width
        let storedHeight = swaps ? size.width : size.height
        let scale = dctScale(
            storedWidth: info.storedWidth, storedHeight: info.storedHeight,
            covering: storedWidth, storedHeight)
        guard let decoded = try LibJPEG.decode(data, scale: scale, limits: limits, keepPixels: true).pixels
        else {
            throw ImagingError(code: .internalError, message: "JPEG decoder returned no pixels")
        }
        var pixels = decoded
        if pixels.width != storedWidth || pixels.height != storedHeight {
            pixels = try LibJPEG.resample(pixels, width: storedWidth, height: storedHeight, limits: limits)
        }
        if info.orientation != 1 {
            pixels = try LibJPEG.orient(pixels, orientation: info.orientation)
        }
        let jpeg = try LibJPEG.encode(pixels, quality: quality)
        return RenderedImage(jpeg: jpeg, width: pixels.width, height: pixels.height)
    }
}
