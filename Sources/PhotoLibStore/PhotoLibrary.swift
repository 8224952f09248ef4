import Foundation
import PhotoLibCore

/// A photo library on disk: `DIR/library.sqlite` (metadata), `DIR/originals/` (imported
/// files), `DIR/tmp/` (files being written), `DIR/owner.token` and `DIR/library.lock`.
///
/// Thread-safe: writes run one at a time on one connection, reads on a small pool of WAL
/// readers beside it, so reads never wait for a write (`DatabasePool`). Several
/// instances, in one process or several (the server and `photolibd import`), may open the
/// same directory at once; SQLite's WAL and the busy timeout arbitrate.
public final class PhotoLibrary: @unchecked Sendable {
    /// The library directory.
    public let directory: String
    /// The library's UUID, chosen when it was created.
    public let libraryIdentifier: String
    /// What crash recovery did when this instance opened the library.
    public let lastRecovery: RecoveryReport
    /// How long staged uploads live and how many may wait at once.
    public let uploadLimits: UploadLimits
    /// The largest photo and the largest video this instance imports or accepts as an upload.
    public let importLimits: ImportLimits
    /// Disk space held back so that deletes and purges run on a full disk.
    public let diskReserve: DiskReserve

    /// The database file name.
    public static let databaseFileName = "library.sqlite"

    /// The connections: one writer, a pool of readers (see ``DatabasePool`` for its locks).
    /// Store calls take them with no other PhotoLib lock held (callers read the store before
    /// locking their own state).
    private let pool: DatabasePool
    /// The library's files.
    let files: FileStore
    /// Held (shared) for the instance's lifetime; see ``LibraryLock``.
    private let libraryLock: LibraryLock
    /// The limited client whose selection this instance shows, or `nil` for the whole
    /// library; see ``limited(to:)``.
    public let limitedTo: String?
    /// Whether this instance only adds assets and may change or name none already there; see
    /// ``addingOnly()``.
    public let addsOnly: Bool

    private init(directory: String, pool: DatabasePool, files: FileStore, libraryLock: LibraryLock,
                 libraryIdentifier: String, lastRecovery: RecoveryReport, uploadLimits: UploadLimits, importLimits: ImportLimits,
                 diskReserve: DiskReserve, limitedTo: String? = nil, addsOnly: Bool = false) {
        self.pool = pool
        self.limitedTo = limitedTo
        self.addsOnly = addsOnly
        self.directory = directory
        self.uploadLimits = uploadLimits
        self.importLimits = importLimits
        self.diskReserve = diskReserve
        self.files = files
        self.libraryLock = libraryLock
        self.libraryIdentifier = libraryIdentifier
        self.lastRecovery = lastRecovery
    }

    /// Opens DIR, creating a new library when DIR is missing or empty (if `createIfMissing`);
    /// runs schema migrations and crash recovery (see ``lastRecovery``).
    ///
    /// Throws `notFound` when DIR does not exist and `createIfMissing` is false, and
    /// `failedPrecondition` when DIR holds other files but no library. `uploadLimits` bounds
    /// staged uploads (see ``stageUpload(_:metadata:now:)-([UInt8],_,_)``); `importLimits` bounds the size
    /// of a photo and of a video (see ``ImportLimits``); `diskReserveSize` bytes of disk
    /// are held back in `DIR/reserve` for deletes on a full disk (see ``DiskReserve``; 0: none).
    /// `readers` WAL connections serve reads beside the writer (default one per core, 2…8;
    /// 0: reads share the writer's connection and wait for its writes).
    public static func open(
        at directory: String, createIfMissing: Bool = true, uploadLimits: UploadLimits = UploadLimits(),
        importLimits: ImportLimits = ImportLimits(), diskReserveSize: Int = DiskReserve.defaultSize, readers: Int = defaultReaderCount
    ) throws(PhotoLibError) -> PhotoLibrary {
        try uploadLimits.validate()
        try importLimits.validate()
        guard !directory.isEmpty, !directory.utf8.contains(0) else {
            throw PhotoLibError(.invalidArgument, "the library directory path is empty or contains NUL")
        }
        let directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let databasePath = directory + "/" + databaseFileName
        let entries = try FileStore.directoryEntries(directory)
        let isNew: Bool
        if let entries {
            let hasDatabase = entries.contains(databaseFileName)
            if !hasDatabase {
                let known: Set<String> = [
                    LibraryLock.fileName, FileStore.temporaryFolder, FileStore.originalsFolder, FileStore.uploadsFolder,
                    DiskReserve.fileName,
                ]
                guard entries.allSatisfy(known.contains) else {
                    throw PhotoLibError(
                        .failedPrecondition,
                        "\(directory) is not empty and holds no \(databaseFileName): it is not a PhotoLib library; pass an empty or new directory")
                }
            }
            isNew = !hasDatabase
        } else {
            isNew = true
        }
        if isNew {
            guard createIfMissing else {
                throw PhotoLibError(.notFound, "no photo library at \(directory): \(databasePath) does not exist")
            }
            try FileStore.makeDirectory(directory)
        }
        let files = FileStore(root: directory)
        try files.createDirectories()
        let libraryLock = try LibraryLock(directory: directory)
        let exclusive = libraryLock.tryLockExclusive()

        try FileStore.createPrivateFile(databasePath)
        let pool = try DatabasePool(path: databasePath, readerCount: readers)
        let (identifier, report) = try pool.writing { (database) throws(PhotoLibError) -> (String, RecoveryReport) in
            try Schema.migrate(database, newLibraryIdentifier: { UUID().uuidString })
            guard let identifier = try database.prepare("SELECT value FROM meta WHERE key = 'library_identifier'").firstRow({ $0.text(0) }) else {
                throw PhotoLibError(.dataLoss, "\(databasePath) has no library identifier in its meta table; restore it from a backup")
            }
            return (identifier, exclusive ? try Recovery.run(database: database, files: files) : RecoveryReport(performed: false))
        }
        try OwnerToken.ensure(in: files)
        if isNew { try FileStore.syncDirectory(directory) }
        try libraryLock.lockShared()
        let reserve = DiskReserve(directory: directory, size: diskReserveSize)
        reserve.replenish()
        return PhotoLibrary(
            directory: directory, pool: pool, files: files, libraryLock: libraryLock,
            libraryIdentifier: identifier, lastRecovery: report, uploadLimits: uploadLimits, importLimits: importLimits,
            diskReserve: reserve)
    }

    /// The default number of reader connections: one per core, at least 2 and at most 8.
    public static var defaultReaderCount: Int { DatabasePool.defaultReaderCount }

    /// How many reader connections serve reads beside the writer (0: reads share the writer).
    public var readerCount: Int { pool.readerCount }

    /// The library as the limited client `client` sees it: the same connections and
    /// files, but every asset read answers as if the library held only the client's
    /// selection (fetches, counts, album contents and covers, lookups by identifier,
    /// resources, editing input, change targets and history). An asset outside the selection
    /// gets exactly the answer of an asset that does not exist. Assets the view creates join
    /// the selection. Cheap: make one per call.
    public func limited(to client: String) -> PhotoLibrary {
        PhotoLibrary(
            directory: directory, pool: pool, files: files, libraryLock: libraryLock, libraryIdentifier: libraryIdentifier,
            lastRecovery: lastRecovery, uploadLimits: uploadLimits, importLimits: importLimits,
            diskReserve: diskReserve, limitedTo: client)
    }

    /// The library as an add-only client changes it (PhotoKit's `.addOnly` access): a
    /// `createAsset` whose upload is already an asset creates nothing, changes nothing (a
    /// trashed asset stays in the trash) and leaves its placeholder unresolved, so the
    /// client never learns which asset holds those bytes; and a movie or still pairs into a
    /// Live Photo only with an asset created in the same batch, never with one already in
    /// the library. The caller refuses every other change request. Cheap: make one per call.
    public func addingOnly() -> PhotoLibrary {
        PhotoLibrary(
            directory: directory, pool: pool, files: files, libraryLock: libraryLock, libraryIdentifier: libraryIdentifier,
            lastRecovery: lastRecovery, uploadLimits: uploadLimits, importLimits: importLimits,
            diskReserve: diskReserve, limitedTo: limitedTo, addsOnly: true)
    }

    /// The owner token (`DIR/owner.token`, mode 0600): 64 hex digits.
    public func ownerToken() throws(PhotoLibError) -> String {
        try OwnerToken.read(in: files)
    }

    /// A number that changes whenever any connection — this instance's writer, another
    /// instance, or another process such as `photolibd import` — commits a change. Cheap
    /// enough to poll: a reading of the WAL-index header, and one `PRAGMA` on a connection of
    /// its own when that changed, never waiting for a write.
    public func dataVersion() throws(PhotoLibError) -> Int {
        try pool.dataVersion() &+ pool.localCommitCount
    }

    /// `PRAGMA data_version` on the pool's version connection (asked only when the WAL-index
    /// header changed since its last answer): it moves with
    /// every commit, by this instance or any other connection. A caller that reuses it for a
    /// while adds ``localCommitCount`` fresh each time, so this instance's own commits count
    /// at once.
    public func externalDataVersion() throws(PhotoLibError) -> Int {
        try pool.dataVersion()
    }

    /// How many times ``dataVersion()`` and ``externalDataVersion()`` asked SQLite rather
    /// than finding the WAL-index header unchanged (for tests).
    var dataVersionQueryCount: Int { pool.dataVersionQueryCount }

    /// How many transactions this instance has committed (no query).
    public var localCommitCount: Int { pool.localCommitCount }

    /// Runs `body` on a reader connection, outside a transaction (each statement sees the
    /// latest commit). For writes use ``write(_:)``.
    func withDatabase<T>(_ body: (Database) throws(PhotoLibError) -> T) throws(PhotoLibError) -> T {
        try pool.reading(body)
    }

    /// Runs `body` in one write transaction on the writer connection.
    func write<T>(_ body: (Database) throws(PhotoLibError) -> T) throws(PhotoLibError) -> T {
        try pool.write(body)
    }

    /// Runs `body` in one read transaction (one consistent snapshot) on a reader connection.
    func read<T>(_ body: (Database) throws(PhotoLibError) -> T) throws(PhotoLibError) -> T {
        try pool.read(body)
    }
}
