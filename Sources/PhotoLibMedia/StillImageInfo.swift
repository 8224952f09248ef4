import Foundation
import PhotoLibCore
import PhotoLibImaging

/// What a still photo's headers and metadata say about it, in any format PhotoLib reads,
/// without decoding pixels. Made by ``StillImageRenderer/inspect(_:limits:)``.
///
/// Orientation is applied by every render, so ``pixelWidth`` × ``pixelHeight`` is the size a
/// person sees. Where it comes from:
/// - JPEG, PNG (eXIf chunk), WebP (EXIF chunk): the EXIF Orientation tag.
/// - HEIC: the primary image's `irot`/`imir` properties, expressed as the equivalent EXIF
///   orientation; libheif applies them while decoding, so renders decode upright. The EXIF
///   Orientation tag inside a HEIC is ignored (HEIF's properties govern).
public struct StillImageInfo: Sendable, Hashable {
    /// The detected format.
    public var format: ImageFormat
    /// Width as stored (JPEG frame header, PNG IHDR, WebP header, HEIF `ispe`), before
    /// orientation.
    public var storedWidth: Int
    /// Height as stored, before orientation.
    public var storedHeight: Int
    /// The transform from the stored image to the upright one, as an EXIF orientation 1...8
    /// (1 when there is none).
    public var orientation: Int
    /// Upright width (what renders at maximum size produce).
    public var pixelWidth: Int
    /// Upright height.
    public var pixelHeight: Int
    /// Whether the image has an alpha channel (PNG alpha or tRNS, WebP alpha, a HEIF alpha
    /// plane); renders composite it over white.
    public var hasAlpha: Bool
    /// EXIF DateTimeOriginal, with OffsetTimeOriginal when present (else the wall-clock time
    /// taken as UTC); `nil` when absent or invalid.
    public var creationDate: Date?
    /// EXIF GPS position, when latitude and longitude (and their refs) are all valid.
    public var location: Location?
    /// Whether the EXIF names a camera (IFD0 Make or Model): false for screenshots, most
    /// edited exports and images without EXIF.
    public var hasCameraMetadata: Bool
    /// The EXIF UserComment (or, in a PNG or WebP, XMP's `exif:UserComment`), e.g.
    /// "Screenshot" in an iPhone screenshot; `nil` when absent or blank.
    public var userComment: String?
    /// Apple's content identifier (MakerNote tag 0x0011 of a HEIC or JPEG from an iPhone),
    /// equal to `com.apple.quicktime.content.identifier` in the paired video of a Live Photo.
    public var contentIdentifier: String?
    /// Upright size of the embedded thumbnail (the largest HEIF thumbnail item; a JPEG's EXIF
    /// thumbnail), `nil` when there is none.
    public var embeddedThumbnailSize: PixelSize?
    /// EXIF CustomRendered, `nil` when absent: 0 normal, 1 custom; iPhones write 2 or 3 for an
    /// HDR photo, 4 for the original kept beside one, 6 for a panorama, 7 for a portrait HDR
    /// and 8 for a portrait.
    public var customRendered: Int?

    /// Creates an info value; ``pixelWidth`` and ``pixelHeight`` are derived from the
    /// stored size and the orientation.
    public init(
        format: ImageFormat, storedWidth: Int, storedHeight: Int, orientation: Int, hasAlpha: Bool,
        creationDate: Date?, location: Location?, hasCameraMetadata: Bool, userComment: String?,
        contentIdentifier: String?, embeddedThumbnailSize: PixelSize?
    ) {
        self.format = format
        self.storedWidth = storedWidth
        self.storedHeight = storedHeight
        self.orientation = (1...8).contains(orientation) ? orientation : 1
        (self.pixelWidth, self.pixelHeight) = Orientation(exif: self.orientation).sides(width: storedWidth, height: storedHeight)
        self.hasAlpha = hasAlpha
        self.creationDate = creationDate
        self.location = location
        self.hasCameraMetadata = hasCameraMetadata
        self.userComment = userComment
        self.contentIdentifier = contentIdentifier
        self.embeddedThumbnailSize = embeddedThumbnailSize
    }
}
