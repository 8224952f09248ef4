import Foundation

/// A photo or video in the library: PhotoKit's `PHAsset`, as an immutable value.
public struct Asset: Sendable, Hashable, Identifiable {
    /// The asset's stable identifier, shaped like PhotoKit's (`UUID/L0/001`).
    public var localIdentifier: String
    /// Image, video…
    public var mediaType: MediaType
    /// Panorama, screenshot, Live Photo…
    public var mediaSubtypes: MediaSubtypes
    /// Width in pixels, upright (after EXIF orientation).
    public var pixelWidth: Int
    /// Height in pixels, upright (after EXIF orientation).
    public var pixelHeight: Int
    /// When the photo was taken (EXIF `DateTimeOriginal`, else the file's modification time).
    public var creationDate: Date
    /// When the asset was last changed in the library.
    public var modificationDate: Date
    /// Whether the user marked the asset as a favourite.
    public var isFavorite: Bool
    /// Whether the asset is hidden from ordinary fetches.
    public var isHidden: Bool
    /// Duration in seconds (0 for photos).
    public var duration: Double
    /// The burst this asset belongs to, if any.
    public var burstIdentifier: String?
    /// Where the asset was taken, if known.
    public var location: Location?
    /// Whether the asset has been edited (has an adjustment-data resource).
    public var hasAdjustments: Bool
    /// When the asset was moved to Recently Deleted; `nil` while it is not there.
    public var trashedDate: Date?
    /// Grows with every edit and revert of the asset's pixels (image caches key on it).
    public var contentVersion: Int

    /// `Identifiable` conformance: the local identifier.
    public var id: String { localIdentifier }

    /// Creates an asset value.
    public init(
        localIdentifier: String, mediaType: MediaType = .image, mediaSubtypes: MediaSubtypes = [],
        pixelWidth: Int, pixelHeight: Int, creationDate: Date, modificationDate: Date,
        isFavorite: Bool = false, isHidden: Bool = false, duration: Double = 0,
        burstIdentifier: String? = nil, location: Location? = nil, hasAdjustments: Bool = false, trashedDate: Date? = nil,
        contentVersion: Int = 0
    ) {
        self.localIdentifier = localIdentifier
        self.mediaType = mediaType
        self.mediaSubtypes = mediaSubtypes
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.creationDate = creationDate
        self.modificationDate = modificationDate
        self.isFavorite = isFavorite
        self.isHidden = isHidden
        self.duration = duration
        self.burstIdentifier = burstIdentifier
        self.location = location
        self.hasAdjustments = hasAdjustments
        self.trashedDate = trashedDate
        self.contentVersion = contentVersion
    }
}
