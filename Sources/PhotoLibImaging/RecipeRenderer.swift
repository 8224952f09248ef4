import PhotoLibCore

/// Renders PhotoLib's own edit format (`org.photolib.filter`, a `PhotoLibCore/FilterRecipe`)
/// on a JPEG: the one implementation the server and `PhotoLibClient` share, so a recipe
/// rendered on either side gives the same bytes.
///
/// Pipeline, one pass per stage and no full-size float buffer: decode at full size keeping
/// only the recipe's crop (mapped into the stored image), every colour step applied to each
/// row as it is decoded (plj_filter.c); EXIF orientation and the recipe's rotations and mirrors as one
/// transform; encode at ``quality`` (baseline, 4:2:0, optimised Huffman tables, no EXIF: the
/// result is upright).
public enum RecipeRenderer {
    /// JPEG quality of rendered edits, on both sides.
    public static let quality = 92

    /// Renders `recipe` on `original` (JPEG bytes) at full size.
    ///
    /// Throws ``ImagingError/Code/invalidArgument`` for a recipe value out of range, the decode
    /// errors of ``JPEGInspector/validate(_:limits:control:)``, and ``ImagingError/Code/cancelled``
    /// when `control` is cancelled.
    public static func render(
        _ original: [UInt8], recipe: FilterRecipe, limits: ImagingLimits = .default, control: RenderControl? = nil
    ) throws(ImagingError) -> RenderedImage {
        do throws(PhotoLibError) { _ = try recipe.validated() } catch {
            throw ImagingError(code: .invalidArgument, message: error.message)
        }
        let colors = try ColorOperations(recipe)
        let geometry = RecipeGeometry(recipe.operations)
        let header = try LibJPEG.readHeader(original, limits: limits)
        let info = JPEGInspector.info(header: header, data: original)
        var crop: PixelRect?
        if geometry.crop != .unit {
            crop = geometry.crop.stored(orientation: info.orientation).pixels(width: info.storedWidth, height: info.storedHeight)
        }
        // The colour operations run on each row as it is decoded, while it is in cache.
        let decoded = try LibJPEG.decode(
            original, scale: 8, crop: crop, limits: limits, control: control, colors: colors.operations)
        try control?.check()
        let orientation = geometry.transform.after(Orientation(exif: info.orientation)).exifCode
        let upright = orientation == 1 ? decoded.pixels : try LibJPEG.orient(decoded.pixels, orientation: orientation)
        try control?.check()
        let jpeg = try LibJPEG.encode(upright, quality: quality)
        return RenderedImage(jpeg: jpeg, width: upright.width, height: upright.height)
    }

    /// The pixel size a render of `recipe` on the image `info` describes has: the crop's
    /// pixels (rounded as the render rounds them), turned. The server checks a client's render
    /// against it.
    public static func outputSize(recipe: FilterRecipe, original info: JPEGInfo) -> PixelSize {
        outputSize(recipe: recipe, storedWidth: info.storedWidth, storedHeight: info.storedHeight, orientation: info.orientation)
    }

    /// The pixel size a render of `recipe` has on a JPEG of `storedWidth` × `storedHeight`
    /// pixels as stored, with EXIF `orientation` (1...8): what
    /// ``outputSize(recipe:original:)`` gives for such a JPEG, for a caller that knows the size
    /// without the JPEG's header (an upright rendition of a HEIC, PNG or WebP original, orientation 1).
    public static func outputSize(recipe: FilterRecipe, storedWidth: Int, storedHeight: Int, orientation: Int) -> PixelSize {
        let geometry = RecipeGeometry(recipe.operations)
        let stored = geometry.crop.stored(orientation: orientation).pixels(width: storedWidth, height: storedHeight)
        // The stored crop's sides swap under orientations 5...8; the recipe's odd quarter turns swap them again.
        let (width, height) = geometry.transform.after(Orientation(exif: orientation)).sides(width: stored.width, height: stored.height)
        return PixelSize(width: width, height: height)
    }
}
