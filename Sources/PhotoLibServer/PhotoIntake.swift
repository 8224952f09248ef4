import Foundation
import PhotoLibCore
import PhotoLibImaging
import PhotoLibStore

/// The one way a photo enters a library, for `photolibd import` and for uploads alike:
/// inspect (decode the JPEG, HEIC, PNG or WebP completely; truncated or damaged data is
/// refused, and the upright size, EXIF date and GPS location are read), then let the store
/// hash, deduplicate, copy the file in atomically and record it.
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
    public func add(_ bytes: [UInt8], filename: String, fallbackDate: Date) throws(PhotoLibError) -> ImportOutcome {
        try library.addPhoto(bytes, metadata: Self.metadata(for: bytes, filename: filename, fallbackDate: fallbackDate))
    }

    /// Stages `bytes` as an upload that a `createAsset` change request turns into an asset
    /// (`UploadResource`); dated `now` when the photo has no EXIF date.
    public func stage(_ bytes: [UInt8], filename: String, now: Date = Date()) throws(PhotoLibError) -> Upload {
        try library.stageUpload(bytes, metadata: Self.metadata(for: bytes, filename: filename, fallbackDate: now), now: now)
    }

    /// Validates `bytes` (JPEG, HEIC, PNG or WebP, decoded completely: truncated or damaged
    /// data is refused, as is any other type, by name) and returns what the store records
    /// about them: upright size, EXIF date and place, file type, and the subtypes the
    /// metadata shows (screenshot, panorama). `control` stops the decode from another thread
    /// (cancellation, time limits).
    static func metadata(for bytes: [UInt8], filename: String, fallbackDate: Date, control: RenderControl? = nil) throws(PhotoLibError) -> ImportMetadata {
        let info: StillImageInfo
        do {
            info = try StillImageRenderer.validate(bytes, control: control)
        } catch where error.code == .cancelled {
            throw PhotoLibError(.cancelled, error.message)
        } catch {
            let code: StatusCode = error.code == .tooLarge ? .resourceExhausted : .invalidArgument
            throw PhotoLibError(code, error.message, reason: .invalidImage)
        }
        let type = info.format.fileType
        return ImportMetadata(
            originalFilename: filename.isEmpty ? "photo.\(type.fileExtension)" : filename, pixelWidth: info.pixelWidth, pixelHeight: info.pixelHeight,
            creationDate: info.creationDate ?? fallbackDate, location: info.location, mediaSubtypes: Self.subtypes(of: info),
            orientation: info.orientation, fileType: type)
    }
}
