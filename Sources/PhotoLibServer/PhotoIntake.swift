import Foundation
import PhotoLibCore
import PhotoLibImaging
import PhotoLibMedia
import PhotoLibStore

/// The one way a photo or video enters a library, for `photolibd import` and for uploads
/// alike: inspect (decode the JPEG, HEIC, PNG or WebP completely, or a movie's header and
/// poster frame; truncated or damaged data is refused, and the upright size, date, place,
/// duration and Live Photo identifier are read), then let the store hash, deduplicate, pair
/// Live Photos, copy the file in atomically and record it.
///
/// Blocking (decoding, hashing, file writes, SQLite): run it on a thread that may block.
public struct PhotoIntake: Sendable {
    /// The library photos enter.
    public let library: PhotoLibrary

    /// An intake into `library`.
    public init(library: PhotoLibrary) {
        self.library = library
    }

    /// Imports `bytes` as a new asset at once (`photolibd import`); the same bytes imported
    /// before give `.alreadyPresent`. The creation date falls back to `fallbackDate` when the
    /// photo has no EXIF `DateTimeOriginal`.
    ///
    /// `pairingWith` names the asset of a file with the same base name in the same folder
    /// (`IMG_0001.HEIC` for `IMG_0001.MOV`): the two become one Live Photo (files whose
    /// Apple content identifiers match pair without it).
    public func add(_ bytes: [UInt8], filename: String, fallbackDate: Date, pairingWith partner: String? = nil) throws(PhotoLibError) -> ImportOutcome {
        try library.addPhoto(bytes, metadata: Self.metadata(for: bytes, filename: filename, fallbackDate: fallbackDate), pairingWith: partner)
    }

    /// Imports the file at `path` (`photolibd import`), like ``add(_:filename:fallbackDate:pairingWith:)``
    /// but never holding a video in memory: a movie (by its first bytes) is inspected where it
    /// lies and copied into the library through a `copyBufferSize` buffer, hashed on the way
    /// (up to the library's `ImportLimits.videoBytes`); a photo, which is decoded from memory, is
    /// read whole when it is at most `ImportLimits.photoBytes` and refused (`invalidArgument`) when larger.
    public func add(
        fileAt path: String, filename: String, fallbackDate: Date, pairingWith partner: String? = nil,
        copyBufferSize: Int = PhotoLibrary.defaultCopyBufferSize
    ) throws(PhotoLibError) -> ImportOutcome {
        let head = try Self.readHead(path)
        if let movie = OriginalFileType.movieType(of: head) {
            let metadata = try Self.videoMetadata(.path(path), type: movie, filename: filename, fallbackDate: fallbackDate, control: nil)
            return try library.addVideo(fileAt: path, metadata: metadata, pairingWith: partner, bufferSize: copyBufferSize)
        }
        let limits = library.importLimits
        let bytes = try WholeFile.read(path, what: "the file", limit: limits.photoBytes) { size in
            PhotoLibError(
                .invalidArgument,
                "\(size) bytes is over the \(limits.photoBytes >> 20) MiB limit for a photo (a video may have \(limits.videoBytes >> 20) MiB)",
                reason: .invalidImage)
        }
        return try add(bytes, filename: filename, fallbackDate: fallbackDate, pairingWith: partner)
    }

    /// Stages `bytes` as an upload that a `createAsset` change request turns into an asset
    /// (`UploadResource`); dated `now` when the photo has no EXIF date.
    public func stage(_ bytes: [UInt8], filename: String, now: Date = Date()) throws(PhotoLibError) -> Upload {
        try library.stageUpload(bytes, metadata: Self.metadata(for: bytes, filename: filename, fallbackDate: now), now: now)
    }

    /// Validates `bytes` (JPEG, HEIC, PNG or WebP decoded completely; a MOV/MP4/M4V movie
    /// inspected and its poster frame decoded: truncated or damaged data is refused, as is any
    /// other type, by name) and returns what the store records about them: upright size,
    /// date and place, file type, duration, the Live Photo content identifier, and the
    /// subtypes the metadata shows (screenshot, panorama, high frame rate, time-lapse).
    /// `control` stops the decode from another thread (cancellation, time limits).
    static func metadata(for bytes: [UInt8], filename: String, fallbackDate: Date, control: RenderControl? = nil) throws(PhotoLibError) -> ImportMetadata {
        if let movie = OriginalFileType.movieType(of: Array(bytes.prefix(OriginalFileType.signatureLength))) {
            return try videoMetadata(.bytes(bytes), type: movie, filename: filename, fallbackDate: fallbackDate, control: control)
        }
        let info: StillImageInfo
        do {
            info = try StillImageRenderer.validate(bytes, control: control)
        } catch where error.code == .unsupportedFormat && ImageFormat.detect(bytes) == nil {
            // Neither a movie nor a photo: intake takes videos too, so the hint says so.
            throw PhotoLibError(
                .invalidArgument, "unsupported file type: \(ImageFormat.describeContent(of: bytes)) (PhotoLib takes JPEG, HEIC, PNG and WebP photos and MOV, MP4 and M4V videos)",
                reason: .invalidImage)
        } catch {
            throw intakeError(error)
        }
        let type = info.format.fileType
        return ImportMetadata(
            originalFilename: filename.isEmpty ? "photo.\(type.fileExtension)" : filename, pixelWidth: info.pixelWidth, pixelHeight: info.pixelHeight,
            creationDate: info.creationDate ?? fallbackDate, location: info.location, mediaSubtypes: Self.subtypes(of: info),
            orientation: info.orientation, fileType: type, contentIdentifier: info.contentIdentifier.flatMap(Self.contentIdentifier))
    }

    /// ``metadata(for:filename:fallbackDate:control:)`` for a complete file at `path`: a movie
    /// is read piece by piece (a long video is never held in memory), a still read whole.
    static func metadata(forFileAt path: String, filename: String, fallbackDate: Date, control: RenderControl? = nil) throws(PhotoLibError) -> ImportMetadata {
        let head = try readHead(path)
        if let movie = OriginalFileType.movieType(of: head) {
            return try videoMetadata(.path(path), type: movie, filename: filename, fallbackDate: fallbackDate, control: control)
        }
        let data = try WholeFile.read(path, what: "the upload on the library's disk", limit: ImagingLimits.default.maxInputBytes)
        return try metadata(for: data, filename: filename, fallbackDate: fallbackDate, control: control)
    }

    /// Where a video comes from.
    enum VideoSource {
        case bytes([UInt8])
        case path(String)
    }

    /// Inspects a movie and decodes its poster frame (one pass over the file); the subtypes
    /// come from its frame rate and Apple's capture metadata.
    static func videoMetadata(
        _ source: VideoSource, type: OriginalFileType, filename: String, fallbackDate: Date, control: RenderControl?
    ) throws(PhotoLibError) -> ImportMetadata {
        let info: VideoInfo
        do {
            switch source {
            case .bytes(let bytes): info = try VideoPosterRenderer.validate(bytes, control: control)
            case .path(let path): info = try VideoPosterRenderer.validate(path: path, control: control)
            }
        } catch {
            throw intakeError(error)
        }
        var subtypes: MediaSubtypes = []
        if info.isHighFrameRate { subtypes.insert(.videoHighFrameRate) }
        if info.isTimelapse { subtypes.insert(.videoTimelapse) }
        return ImportMetadata(
            originalFilename: filename.isEmpty ? "video.\(type.fileExtension)" : filename,
            pixelWidth: info.pixelWidth, pixelHeight: info.pixelHeight, creationDate: info.creationDate ?? fallbackDate,
            location: info.location, mediaType: .video, mediaSubtypes: subtypes, orientation: info.orientation, fileType: type,
            duration: info.duration.isFinite ? max(0, info.duration) : 0, contentIdentifier: info.contentIdentifier.flatMap(Self.contentIdentifier))
    }

    /// A content identifier the store keeps (trimmed, 1…128 bytes without control
    /// characters), or `nil`: a malformed one pairs nothing rather than refusing the file.
    static func contentIdentifier(_ raw: String) -> String? {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.utf8.count <= ImportMetadata.maximumContentIdentifierLength,
            trimmed.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7f })
        else { return nil }
        return trimmed
    }

    /// The error a refused file gets: cancelled stays cancelled, too large is
    /// `resourceExhausted`, anything else `invalidArgument` (reason `invalidImage`).
    static func intakeError(_ error: ImagingError) -> PhotoLibError {
        if error.code == .cancelled { return PhotoLibError(.cancelled, error.message) }
        let code: StatusCode = error.code == .tooLarge ? .resourceExhausted : .invalidArgument
        return PhotoLibError(code, error.message, reason: .invalidImage)
    }

    /// The first bytes of the file at `path` (up to the signature length).
    static func readHead(_ path: String) throws(PhotoLibError) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw PhotoLibError(.internalError, "cannot open \((path as NSString).lastPathComponent) to read it")
        }
        defer { try? handle.close() }
        return [UInt8]((try? handle.read(upToCount: OriginalFileType.signatureLength)) ?? Data())
    }
}
