import Dispatch
import Foundation
import PhotoLibCore
import PhotoLibStore

/// What the image server needs to know about an asset's pixels: which file to render,
/// and a version that changes whenever those pixels may have changed.
///
/// Its fields live in one immutable object: a source is copied into every image job, and a
/// copy costs one retain instead of one per string of its two records. The resolver hands
/// out the same source again while nothing changed.
struct ImageSource: Sendable, Hashable {
    private final class Storage: Sendable {
        let current: AssetResourceRecord
        let original: AssetResourceRecord
        let contentVersion: String
        init(current: AssetResourceRecord, original: AssetResourceRecord, contentVersion: String) {
            self.current = current
            self.original = original
            self.contentVersion = contentVersion
        }
    }

    private let storage: Storage

    /// A source of `current` and `original` at `contentVersion`.
    init(current: AssetResourceRecord, original: AssetResourceRecord, contentVersion: String) {
        storage = Storage(current: current, original: original, contentVersion: contentVersion)
    }

    /// The file images are rendered from: the `fullSizePhoto` (edited) resource when the
    /// asset has one, else its original `photo` (for a video, its `video`).
    var current: AssetResourceRecord { storage.current }
    /// The original `photo` resource, or a video's `video` (what `version: original/unadjusted` render from).
    var original: AssetResourceRecord { storage.original }
    /// Whether the asset is a video: its images are its poster frame, rendered from the
    /// `video` resource.
    var isVideo: Bool { storage.original.type == .video }
    /// ``current``'s path and type, read without copying the record.
    var currentFile: (path: String, type: AssetResourceType) { (storage.current.path, storage.current.type) }
    /// Changes whenever the rendered content may change (see
    /// ``ImageSourceResolver/imageSource(forAsset:receivedAt:)``). Used in cache keys.
    var contentVersion: String { storage.contentVersion }

    static func == (lhs: ImageSource, rhs: ImageSource) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.contentVersion == rhs.contentVersion && lhs.current == rhs.current && lhs.original == rhs.original)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(current)
        hasher.combine(original)
        hasher.combine(contentVersion)
    }
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
/// so a batch of repeated requests costs one database version check (a reading of the
/// WAL-index header, and a `PRAGMA data_version` only when a commit changed it) and one empty
/// read of the inotify queue. (inotify cannot stand in for the version: a commit's WAL write
/// queues its event before the fsync and the WAL-index update through `mmap` that make it
/// visible, which raise none, so a reading taken in between would be kept, stale, until some
/// later event. The header itself is that update.) These
/// caches belong to the image server, not the store: the store answers what the database
/// holds, and knows nothing of requests' arrival times or of inotify.
final class ImageSourceResolver: @unchecked Sendable {
    private let library: PhotoLibrary
    /// Guards ``sources``, ``files``, ``lastVersionCheck`` and ``sourcesMade``. Never held during a store call
    /// (the store takes the library's lock), so the two locks never nest; held across the
    /// `stat` and the non-blocking inotify read of ``FileIdentityCache``. An `NSLock` because
    /// the caches are classes with unsendable state.
    private let lock = NSLock()
    private let sources = ImageSourceCache()
    private let files: FileIdentityCache
    /// The last database version read and when (uptime nanoseconds, taken just before
    /// reading it): a request that arrived before then can use it instead of reading again.
    private var lastVersionCheck: (at: UInt64, dataVersion: Int)?
    /// Sources made so far rather than handed out again (visible to tests: equal sources
    /// compare equal whether remembered or made anew).
    private var sourcesMade = 0

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
        return try imageSource(forValidAsset: identifier, receivedAt: receivedAt)
    }

    /// ``imageSource(forAsset:receivedAt:)`` of an identifier its caller has already checked
    /// with `LocalIdentifier.validate` (the image fast path does, before anything else).
    ///
    /// A source made before is handed out again while its rows are still valid and its
    /// file's identity is the one it was made from: a repeated request builds no version text.
    func imageSource(forValidAsset identifier: String, receivedAt: UInt64?) throws(PhotoLibError) -> ImageSource {
        let (stamp, remembered, unchanged) = try lookUp(identifier, receivedAt: receivedAt)
        if let unchanged { return unchanged }
        // The current file's identity as looked up for a remembered source, kept for the
        // source made below from the same rows (same file) when it changed on disk.
        var lookedUp: (identity: FileIdentity, generation: Int?)?
        if let made = remembered?.made {
            // The rows are the same: so are the files; is the current one unchanged on disk?
            let current = made.source.currentFile
            let file = try identity(of: current.path, type: current.type, asset: identifier, receivedAt: receivedAt)
            if file.identity == made.file {
                // Remembered under the cache's new generation, if it is: the next request takes
                // the short way again.
                locked { sources.remember(identifier, source: made.source, file: file.identity, generation: file.generation, stamp: stamp) }
                return made.source
            }
            lookedUp = file
        }
        let records: ImageSourceRecords
        if let remembered {
            records = remembered.records
        } else {
            records = try library.imageSourceRecords(forAsset: identifier)
            locked { sources.store(identifier, records, stamp: stamp) }
        }
        guard let original = records.resources.first(where: { $0.type == .photo }) ?? records.resources.first(where: { $0.type == .video }) else {
            throw Self.unknownAsset(identifier)
        }
        let current = records.resources.first(where: { $0.type == .fullSizePhoto }) ?? original
        let (file, generation): (FileIdentity, Int?)
        if let lookedUp {
            (file, generation) = lookedUp
        } else {
            (file, generation) = try identity(of: current.path, type: current.type, asset: identifier, receivedAt: receivedAt)
        }
        let version = "\(current.sha256).\(records.generation).\(file.size)-\(file.modificationTime)-\(file.inode)"
        let source = ImageSource(current: current, original: original, contentVersion: version)
        locked {
            sourcesMade += 1
            sources.remember(identifier, source: source, file: file, generation: generation, stamp: stamp)
        }
        return source
    }

    /// The source made before for `identifier` (checked with `LocalIdentifier.validate`) when
    /// it is the answer still: its rows unchanged (no commit since, in any process) and its
    /// file's remembered identity untouched by any event since. Reads no rows and no file
    /// (only the database version, ``PhotoLibrary/externalDataVersion()``), so the
    /// connection's queue may ask it (the cached-image fast path); `nil` otherwise, and
    /// ``imageSource(forValidAsset:receivedAt:)`` finds the answer, off that queue.
    func rememberedSource(forValidAsset identifier: String, receivedAt: UInt64?) throws(PhotoLibError) -> ImageSource? {
        try lookUp(identifier, receivedAt: receivedAt).unchanged
    }

    /// What is remembered of an asset, copied out of ``ImageSourceCache/Entry`` under the lock.
    private typealias Remembered = (records: ImageSourceRecords, made: (source: ImageSource, file: FileIdentity, generation: Int?)?)

    /// The database stamp, and either the source remembered for `identifier` when that is
    /// the answer still (its file untouched since) or what else is remembered of it (if
    /// anything): one hold of the lock, no path looked up.
    private func lookUp(_ identifier: String, receivedAt: UInt64?) throws(PhotoLibError) -> (stamp: Int, remembered: Remembered?, unchanged: ImageSource?) {
        // The stamp is read before the rows: a commit in between only makes the entry look
        // older than it is, never newer.
        let stamp = try externalDataVersion(receivedAt: receivedAt) &+ library.localCommitCount
        return locked {
            guard let entry = sources.entry(identifier, stamp: stamp) else { return (stamp, nil, nil) }
            guard let made = entry.made, let generation = made.generation, files.isCurrent(generation, receivedAt: receivedAt) else {
                return (stamp, (entry.records, entry.made), nil)
            }
            return (stamp, nil, made.source)
        }
    }

    /// The identity of the file at `path`, asset `identifier`'s current resource of `type`,
    /// and the generation it is remembered under
    /// (``FileIdentityCache/rememberedIdentity(of:receivedAt:)``, under ``lock``).
    private func identity(of path: String, type: AssetResourceType, asset identifier: String, receivedAt: UInt64?) throws(PhotoLibError) -> (identity: FileIdentity, generation: Int?) {
        do throws(SystemError) {
            lock.lock()
            defer { lock.unlock() }
            return try files.rememberedIdentity(of: path, receivedAt: receivedAt)
        } catch {
            throw LibraryFileError.make(errno: error.errno, "the \(type == .photo ? "original" : "edited photo") of asset \(identifier)")
        }
    }

    /// The database version (``PhotoLibrary/externalDataVersion()``), or the last reading
    /// when it was taken after `receivedAt`.
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

    /// ``sourcesMade``, read under the lock.
    var madeSourceCount: Int { locked { sourcesMade } }

    /// The error for an asset with no photo to render, or none at all (or, for a limited
    /// client, one outside its selection: the same words).
    static func unknownAsset(_ identifier: String) -> PhotoLibError {
        PhotoLibError(.notFound, "no asset with identifier \(identifier) (or it has no photo to render)")
    }
}
