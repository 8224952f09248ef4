import PhotoLibCore
import PhotoLibImaging

/// Editing a photo in any format PhotoLib reads (docs/FILTERS.md "Originals that are not
/// JPEG", docs/PROTOCOL.md 15a.1b).
///
/// Edits start from a JPEG: the recipe renderer (`RecipeRenderer`) and every client read
/// JPEG alone (a client links neither libheif, libpng nor libwebp). A JPEG original is its own
/// editing base; a HEIC, PNG or WebP original's editing base is its full-size, upright JPEG
/// rendition, made here by the decoders every other render of it uses. The server hands that
/// rendition to clients as the content-editing input and renders recipes on it itself, so a
/// recipe rendered on either side still gives the same bytes, and the recipe's output size has
/// one definition. The original's file is never changed.
extension StillImageRenderer {
    /// JPEG quality of the editing base of a HEIC, PNG or WebP original. The base is an
    /// intermediate (the edit's render is encoded again, at `RecipeRenderer.quality`), so it
    /// is encoded above that and without chroma subsampling.
    public static let editingBaseQuality = 95

    /// The JPEG every edit of the still photo `original` starts from.
    ///
    /// A JPEG: `original` itself, unchanged (its EXIF orientation is applied by the recipe's
    /// render). A HEIC, PNG or WebP: decoded at full size by the decoders thumbnails use (the
    /// same pixel and memory caps from `limits`), turned upright once — a HEIC by libheif's
    /// `irot`/`imir`/`clap` handling while decoding, a PNG or WebP by its EXIF orientation
    /// afterwards — alpha composited over white, and encoded as a baseline JPEG at
    /// ``editingBaseQuality``, 4:4:4, with no EXIF (so orientation 1), of the upright size
    /// `inspect(_:limits:)` reports. The same input gives the same bytes.
    ///
    /// Throws what ``render(_:request:limits:control:)`` throws for the same input:
    /// `ImagingError/Code/unsupportedFormat` for anything but the four formats, the decoders'
    /// `truncated`, `corrupt`, `unsupported` and `tooLarge`, `cancelled` through `control`.
    public static func editingBase(
        _ original: [UInt8], limits: ImagingLimits = .default, control: RenderControl? = nil
    ) throws(ImagingError) -> [UInt8] {
        guard let format = ImageFormat.detect(original) else { throw ImageFormat.unsupportedError(for: original) }
        guard format != .jpeg else { return original }
        let plan = try plan(original, format: format, request: RenderRequest(targetSize: .maximum, resizeMode: .none), limits: limits)
        try control?.check()
        var pixels = try decodePixels(original, format: format, shrink: 1, limits: limits, control: control)
        if pixels.width != plan.storedWidth || pixels.height != plan.storedHeight {
            // As a render at maximum size does: the header's size is the image's size.
            try control?.check()
            pixels = try LibJPEG.resample(pixels, width: plan.storedWidth, height: plan.storedHeight, limits: limits)
        }
        if plan.orientation != 1 {
            try control?.check()
            pixels = try LibJPEG.orient(pixels, orientation: plan.orientation)
        }
        try control?.check()
        return try LibJPEG.encode(
            pixels, options: JPEGEncodeOptions(quality: editingBaseQuality, chromaSubsampling: .none), control: control)
    }

    /// Renders `recipe` on `original` (any still format) at full size: `RecipeRenderer` on the
    /// ``editingBase(_:limits:control:)``, which for a JPEG is `RecipeRenderer.render` on the
    /// original itself. What the server commits for an edit it renders.
    ///
    /// Throws `ImagingError/Code/invalidArgument` for a recipe value out of range (before
    /// decoding), and the errors of ``editingBase(_:limits:control:)`` and `RecipeRenderer`.
    public static func renderRecipe(
        _ original: [UInt8], recipe: FilterRecipe, limits: ImagingLimits = .default, control: RenderControl? = nil
    ) throws(ImagingError) -> RenderedImage {
        do throws(PhotoLibError) { _ = try recipe.validated() } catch {
            throw ImagingError(code: .invalidArgument, message: error.message)
        }
        let base = try editingBase(original, limits: limits, control: control)
        return try RecipeRenderer.render(base, recipe: recipe, limits: limits, control: control)
    }

    /// The pixel size ``renderRecipe(_:recipe:limits:control:)`` gives — and so a client's
    /// render of `recipe` on the editing base must have — from the headers of `original` alone:
    /// `RecipeRenderer.outputSize` of the JPEG, or of the upright size with orientation 1 for
    /// the other formats.
    public static func recipeOutputSize(
        _ recipe: FilterRecipe, original: [UInt8], limits: ImagingLimits = .default
    ) throws(ImagingError) -> PixelSize {
        if ImageFormat.detect(original) == .jpeg {
            // The header RecipeRenderer reads.
            return RecipeRenderer.outputSize(recipe: recipe, original: try JPEGInspector.inspect(original, limits: limits))
        }
        let info = try inspect(original, limits: limits)
        return RecipeRenderer.outputSize(recipe: recipe, storedWidth: info.pixelWidth, storedHeight: info.pixelHeight, orientation: 1)
    }
}
