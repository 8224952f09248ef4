/// A committed edit: PhotoKit's `PHContentEditingOutput` assigned to
/// `PHAssetChangeRequest.contentEditingOutput`, as the fields of
/// ``ChangeRequest/commitContentEdit(_:)``.
public struct ContentEdit: Sendable, Hashable {
    /// The asset edited.
    public var asset: String
    /// From the ``ContentEditingInput`` the edit started from: a commit whose session started
    /// from an older version of the asset fails with `aborted` and changes nothing.
    public var editingSessionID: String
    /// The recipe.
    public var adjustmentData: AdjustmentData
    /// The staged upload holding the rendered full-size JPEG; `nil` only for PhotoLib's own
    /// format (``FilterRecipe``), which the server renders itself.
    public var renderedUploadID: String?
    /// The pixel size the render must have (set by the server from the recipe; `nil`: the
    /// original's upright size).
    public var expectedSize: PixelSize?

    /// An edit.
    public init(asset: String, editingSessionID: String, adjustmentData: AdjustmentData, renderedUploadID: String?, expectedSize: PixelSize? = nil) {
        self.asset = asset
        self.editingSessionID = editingSessionID
        self.adjustmentData = adjustmentData
        self.renderedUploadID = renderedUploadID
        self.expectedSize = expectedSize
    }
}

/// What an app edits: PhotoKit's `PHContentEditingInput`, without the image bytes (they
/// stream separately).
public struct ContentEditingInput: Sendable, Hashable {
    /// Whether the image is the asset's original with ``adjustmentData`` still to apply, or
    /// the current render with nothing to apply.
    public enum Base: Sendable, Hashable {
        /// The original: apply ``ContentEditingInput/adjustmentData`` first to reproduce the
        /// current look (re-editing without generation loss).
        case original
        /// The current rendered image (or the original of an unedited asset).
        case current
    }

    /// The asset, as of the session's start.
    public var asset: Asset
    /// Which image the bytes are.
    public var base: Base
    /// The asset's adjustment data when the base is the original and the app handles its format.
    public var adjustmentData: AdjustmentData?
    /// `public.jpeg`.
    public var uniformTypeIdentifier: String
    /// Size of the full-size image.
    public var byteCount: Int
    /// Names the asset version the session started from; pass it back with the edit.
    public var editingSessionID: String
    /// EXIF orientation of the full-size image bytes (1...8).
    public var fullSizeImageOrientation: Int
    /// Size of the display-size image sent with the input (0: none was asked for).
    public var displaySizeImageByteCount: Int = 0

    /// An input.
    public init(asset: Asset, base: Base, adjustmentData: AdjustmentData?, uniformTypeIdentifier: String = "public.jpeg", byteCount: Int, editingSessionID: String, fullSizeImageOrientation: Int) {
        self.asset = asset
        self.base = base
        self.adjustmentData = adjustmentData
        self.uniformTypeIdentifier = uniformTypeIdentifier
        self.byteCount = byteCount
        self.editingSessionID = editingSessionID
        self.fullSizeImageOrientation = fullSizeImageOrientation
    }
}
