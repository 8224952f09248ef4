import Dispatch
import Foundation
import PhotoLibCore
import PhotoLibStore

/// What the image server needs to know about an asset's pixels: which file to render,
/// and a version that changes whenever those pixels may have changed.
struct ImageSource: Sendable, Hashable {
    /// The file images are rendered from: the `fullSizePhoto` (edited) resource when the
    /// asset has one, else its original `photo` (for a video, its `video`).
    var current: AssetResourceRecord
    /// The original `photo` resource, or a video's `video` (what `version: original/unadjusted` render from).
    var original: AssetResourceRecord
    /// Whether the asset is a video: its images are its poster frame, rendered from the
    /// `video` resource.
    var isVideo: Bool { original.type == .video }
    /// Changes whenever the rendered content may change (see
    /// ``ImageSourceResolver/imageSource(forAsset:receivedAt:)``). Used in cache keys.
    var contentVersion: String
}

/// Finds the files to render an asset's images from, and its content version, remembering
/// both so a repeated request costs no SQL and no `stat`.
///
/// The content version is `SHA256(current).G.SIZE-MTIME-INODE`, where SHA256 is the recorded
/// digest of the current resource (so an edit that adds a `fullSizePhoto` changes it), G the
/// asset's content generation (`PhotoLibrary.bumpContentVersion(forAsset:)`), and
/// SIZE-MTIME-INODE identify the file on disk (nanosecond mtime), so even a file replaced
/// behind the library's back is never served from a stale cache entry.
///
/// The rows are remembered until the database changes (any commit, in any process), and the
/// file's identity until inotify reports a change under the library (``FileIdentityCache``),
/// so a repeated request costs one `PRAGMA data_version` and one empty read of the inotify
/// queue. These caches belong to the image server, not the store: the store answers what the
/// database holds, and knows nothing of requests' arrival times or of inotify.
final class ImageSourceResolver: @unchecked Sendable {
    private let library: PhotoLibrary
    /// Guards ``sources``, ``files`` and ``lastVersionCheck``. Never held during a store call
    /// (the store takes the library's lock), so the two locks never nest; held across the
    /// `stat` and the non-blocking inotify read of ``FileIdentityCache``. An `NSLock` because
    /// the caches are classes with unsendable state.
    private let lock = NSLock()
    private let sources = ImageSourceCache()
    private let files: FileIdentityCache
    /// The last `PRAGMA data_version` read and when (uptime nanoseconds, taken just before
    /// reading it): a request that arrived before then can use it instead of reading again.
    private var lastVersionCheck: (at: UInt64, dataVersion: Int)?

    /// A resolver for `library`'s assets, watching files under its directory.
    init(library: PhotoLibrary) {
        self.library = library
        self.files = FileIdentityCache(root: library.directory)
    }

    /// The files to render `identifier`'s images from, and its content version.
    ///
    /// `receivedAt` (uptime nanoseconds, `DispatchTime.uptimeNanoseconds`) is when the request
    /// asking for it arrived: the answer reflects the database as it was at that moment or
    /// later. A database version (and inotify queue) read after it is reused, so a batch of
    /// requests read from a socket together costs one check; `nil` means now. This
    /// instance's own commits always count at once.
    ///
    /// Throws `notFound` for an unknown asset or one without a photo, and `dataLoss` when the
    /// current file is missing.
    func imageSource(forAsset identifier: String, receivedAt: UInt64? = nil) throws(PhotoLibError) -> ImageSource {
        try LocalIdentifier.validate(identifier)
        // The stamp is read before the rows: a commit in between only makes the entry look
        // older than it is, never newer.
        let stamp = try externalDataVersion(receivedAt: receivedAt) &+ library.localCommitCount
        let remembered = locked { sources.entry(identifier, stamp: stamp) }
        let records: ImageSourceRecords
        if let remembered {
            records = remembered
        } else {
            records = try library.imageSourceRecords(forAsset: identifier)
            locked { sources.store(identifier, records, stamp: stamp) }
        }
        guard let original = records.resources.first(where: { $0.type == .photo }) ?? records.resources.first(where: { $0.type == .video }) else {
            throw Self.unknownAsset(identifier)
        }
        let current = records.resources.first(where: { $0.type == .fullSizePhoto }) ?? original
        let file: FileIdentity
        do throws(SystemError) {
            lock.lock()
            defer { lock.unlock() }
            file = try files.identity(of: current.path, receivedAt: receivedAt)
        } catch {
            throw LibraryFileError.make(errno: error.errno, "the \(current.type == .photo ? "original" : "edited photo") of asset \(identifier)")
        }
        let version = "\(current.sha256).\(records.generation).\(file.size)-\(file.modificationTime)-\(file.inode)"
        return ImageSource(current: current, original: original, contentVersion: version)
    }

    /// `PRAGMA data_version`, or the last reading when it was taken after `receivedAt`.
    private func externalDataVersion(receivedAt: UInt64?) throws(PhotoLibError) -> Int {
        if let receivedAt, let last = locked({ lastVersionCheck }), last.at >= receivedAt {
            return last.dataVersion
        }
        let at = DispatchTime.now().uptimeNanoseconds
        let version = try library.externalDataVersion()
        locked {
            if (lastVersionCheck?.at ?? 0) <= at { lastVersionCheck = (at, version) }
        }
        return version
    }

    /// Runs `body` holding ``lock``.
    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// `stat` calls made so far (what the caches save is visible to tests).
    var statCount: Int { locked { files.statCount } }

    /// The error for an asset with no photo to render, or none at all (or, for a limited
    /// client, one outside its selection: the same words).
    static func unknownAsset(_ identifier: String) -> PhotoLibError {
        PhotoLibError(.notFound, "no asset with identifier \(identifier) (or it has no photo to render)")
    }
}
