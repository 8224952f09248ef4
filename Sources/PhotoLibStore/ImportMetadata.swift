import Foundation
import PhotoLibCore

/// What the importer knows about a photo or video besides its bytes (read from its EXIF or
/// movie metadata by the caller).
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
    /// A video's length in seconds (0 for photos).
    public var duration: Double
    /// Apple's content identifier (a still's MakerNote `ContentIdentifier`, a movie's
    /// `com.apple.quicktime.content.identifier`): the still and the movie of one Live Photo
    /// share it, which is how they are paired.
    public var contentIdentifier: String?

    /// The largest width or height accepted, in pixels.
    public static let maximumDimension = 65_535
    /// The longest original filename accepted, in UTF-8 bytes.
    public static let maximumFilenameLength = 255
    /// The longest video accepted, in seconds (a day).
    public static let maximumDuration: Double = 86_400
    /// The longest content identifier kept, in UTF-8 bytes (Apple's are 36-character UUIDs).
    public static let maximumContentIdentifierLength = 128

    /// Creates import metadata.
    public init(
        originalFilename: String, pixelWidth: Int, pixelHeight: Int, creationDate: Date,
        location: Location? = nil, mediaType: MediaType = .image, mediaSubtypes: MediaSubtypes = [],
        orientation: Int = 1, fileType: OriginalFileType = .jpeg, duration: Double = 0, contentIdentifier: String? = nil
    ) {
        self.fileType = fileType
        self.duration = duration
        self.contentIdentifier = contentIdentifier
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
        guard mediaType == (fileType.isVideo ? .video : .image) else {
            throw PhotoLibError(.invalidArgument, "\(name): a \(fileType.rawValue.uppercased()) file cannot be an asset of media type \(mediaType.name)")
        }
        guard duration.isFinite, duration >= 0, duration <= Self.maximumDuration, fileType.isVideo || duration == 0 else {
            throw PhotoLibError(.invalidArgument, "\(name): duration \(duration) s must be 0 for a photo and within 0…\(Int(Self.maximumDuration)) s for a video")
        }
        if let identifier = contentIdentifier {
            guard !identifier.isEmpty, identifier.utf8.count <= Self.maximumContentIdentifierLength,
                identifier.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7f })
            else {
                throw PhotoLibError(
                    .invalidArgument, "\(name): content identifier must be 1…\(Self.maximumContentIdentifierLength) UTF-8 bytes without control characters")
            }
        }
        _ = try Microseconds.validated(creationDate, "\(name): creation date")
        _ = try location?.validated()
    }
}

/// The result of ``PhotoLibrary/addPhoto(_:metadata:pairingWith:)``.
public enum ImportOutcome: Sendable, Hashable {
    /// A new asset was created, or the file joined an existing asset as the other half of its
    /// Live Photo (the asset is then `photoLive`, with a `photo` and a `pairedVideo`).
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
