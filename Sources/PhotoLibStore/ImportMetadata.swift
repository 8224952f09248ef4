import Foundation
import PhotoLibCore

/// What the importer knows about a photo besides its bytes (read from EXIF by the caller).
public struct ImportMetadata: Sendable, Hashable {
    /// The file name the photo had, shown as the resource's original filename (1…255 UTF-8 bytes, no `/` or control characters).
    public var originalFilename: String
    /// Width in pixels, upright (after EXIF orientation).
    public var pixelWidth: Int
    /// Height in pixels, upright (after EXIF orientation).
    public var pixelHeight: Int
    /// When the photo was taken.
    public var creationDate: Date
    /// Where the photo was taken, if known.
    public var location: Location?
    /// Image, video…
    public var mediaType: MediaType
    /// Panorama, screenshot, Live Photo…
    public var mediaSubtypes: MediaSubtypes
    /// The EXIF orientation of the stored bytes, 1…8.
    public var orientation: Int
    /// What kind of file the original is (its extension, type identifier and signature).
    public var fileType: OriginalFileType

    /// The largest width or height accepted, in pixels.
    public static let maximumDimension = 65_535
    /// The longest original filename accepted, in UTF-8 bytes.
    public static let maximumFilenameLength = 255

    /// Creates import metadata.
    public init(
        originalFilename: String, pixelWidth: Int, pixelHeight: Int, creationDate: Date,
        location: Location? = nil, mediaType: MediaType = .image, mediaSubtypes: MediaSubtypes = [],
        orientation: Int = 1, fileType: OriginalFileType = .jpeg
    ) {
        self.fileType = fileType
        self.originalFilename = originalFilename
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.creationDate = creationDate
        self.location = location
        self.mediaType = mediaType
        self.mediaSubtypes = mediaSubtypes
        self.orientation = orientation
    }

    /// Throws `invalidArgument` naming the first field out of its limits.
    func validate() throws(PhotoLibError) {
        let name = originalFilename
        guard !name.isEmpty, name.utf8.count <= Self.maximumFilenameLength,
            !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f || $0 == "/" }),
            name != ".", name != ".."
        else {
            throw PhotoLibError(
                .invalidArgument,
                "original filename '\(name.prefix(60))' must be 1…\(Self.maximumFilenameLength) UTF-8 bytes without '/' or control characters",
                reason: .invalidText)
        }
        guard (1...Self.maximumDimension).contains(pixelWidth), (1...Self.maximumDimension).contains(pixelHeight) else {
            throw PhotoLibError(
                .invalidArgument,
                "\(name): size \(pixelWidth)×\(pixelHeight) is outside 1…\(Self.maximumDimension) pixels per side")
        }
        guard (1...8).contains(orientation) else {
            throw PhotoLibError(.invalidArgument, "\(name): EXIF orientation \(orientation) is not within 1…8")
        }
        guard mediaType == .image else {
            throw PhotoLibError(.invalidArgument, "\(name): only photos (mediaType image) can be imported so far, not \(mediaType.name)")
        }
        _ = try Microseconds.validated(creationDate, "\(name): creation date")
        _ = try location?.validated()
    }
}

/// The result of ``PhotoLibrary/addPhoto(_:metadata:)``.
public enum ImportOutcome: Sendable, Hashable {
    /// A new asset was created.
    case added(Asset)
    /// The same bytes were imported before: this is that asset; nothing was written.
    case alreadyPresent(Asset)

    /// The new or existing asset.
    public var asset: Asset {
        switch self {
        case .added(let asset), .alreadyPresent(let asset): return asset
        }
    }
}
