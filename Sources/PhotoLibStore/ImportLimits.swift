import PhotoLibCore

/// The largest originals a library takes, by kind (given to
/// ``PhotoLibrary/open(at:createIfMissing:uploadLimits:importLimits:diskReserveSize:readers:)``).
///
/// A photo is hashed, checked and decoded from memory, so its limit bounds the memory one
/// import or upload holds; a video is copied in a bounded buffer, hashed on the way and
/// inspected where it lies, so its limit bounds disk use only (each copy is also checked
/// against the disk's free space and the library's reserve first).
public struct ImportLimits: Sendable, Hashable {
    /// The largest photo (JPEG, HEIC, PNG, WebP) in bytes; default ``PhotoLibrary/maximumImportBytes`` (256 MiB).
    public var photoBytes: Int
    /// The largest video (MOV, MP4, M4V) in bytes; default ``PhotoLibrary/maximumVideoImportBytes`` (16 GiB).
    public var videoBytes: Int

    /// Creates limits (the defaults unless given).
    public init(photoBytes: Int = PhotoLibrary.maximumImportBytes, videoBytes: Int = PhotoLibrary.maximumVideoImportBytes) {
        self.photoBytes = photoBytes
        self.videoBytes = videoBytes
    }

    /// Throws `invalidArgument` for a limit under 1 byte, and for a video limit under the photo
    /// limit (an upload announcing more than a photo may have must be a video, so the video
    /// limit is what bounds every upload).
    func validate() throws(PhotoLibError) {
        guard photoBytes > 0, videoBytes > 0 else {
            throw PhotoLibError(.invalidArgument, "import limits must be at least 1 byte (photos \(photoBytes), videos \(videoBytes))")
        }
        guard videoBytes >= photoBytes else {
            throw PhotoLibError(
                .invalidArgument,
                "the video import limit (\(videoBytes) bytes) is under the photo limit (\(photoBytes) bytes); give videos at least as much as photos")
        }
    }
}
