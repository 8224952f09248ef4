import Foundation
import PhotoLibCore

/// A photo library on disk: `DIR/library.sqlite` (metadata), `DIR/originals/` (imported
/// files), `DIR/tmp/` (files being written), `DIR/owner.token` and `DIR/library.lock`.
///
/// Thread-safe: every database access is serialized by one lock around one connection.
/// Several instances, in one process or several (the server and `photolibd import`), may
/// open the same directory at once; SQLite's WAL and the busy timeout arbitrate.
public final class PhotoLibrary: @unchecked Sendable {
    /// The library directory.
    public let directory: String
    /// The library's UUID, chosen when it was created.
    public let libraryIdentifier: String
    /// What crash recovery did when this instance opened the library.
    public let lastRecovery: RecoveryReport
    /// How long staged uploads live and how many may wait at once.
    public let uploadLimits: UploadLimits
    /// Disk space held back so that deletes and purges run on a full disk.
    public let diskReserve: DiskReserve

    /// The database file name.
    public static let databaseFileName = "library.sqlite"

    /// The connection; use only inside ``withDatabase(_:)``.
    private let database: Database
    /// Serializes access to ``database``: held for the whole of each store call, so it may be held while
    /// SQLite waits on its busy timeout or the disk. Taken with no other PhotoLib lock held
    /// (callers read the store before locking their own state). Not a `Mutex` because the
    /// connection is not `Sendable`; hence `@unchecked Sendable` on the class.
    private let lock: NSLock
    /// The library's files.
    let files: FileStore
    /// Held (shared) for the instance's lifetime; see ``LibraryLock``.
    private let libraryLock: LibraryLock
    /// The limited client whose selection this instance shows, or `nil` for the whole
    /// library; see ``limited(to:)``.
    public let limitedTo: String?

    private init(directory: String, database: Database, files: FileStore, libraryLock: LibraryLock,
                 libraryIdentifier: String, lastRecovery: RecoveryReport, uploadLimits: UploadLimits, diskReserve: DiskReserve,
                 lock: NSLock = NSLock(), limitedTo: String? = nil) {
        self.lock = lock
        self.limitedTo = limitedTo
        self.directory = directory
        self.uploadLimits = uploadLimits
        self.diskReserve = diskReserve
        self.database = database
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
    /// staged uploads (see ``stageUpload(_:metadata:now:)-([UInt8],_,_)``); `diskReserveSize` bytes of disk
    /// are held back in `DIR/reserve` for deletes on a full disk (see ``DiskReserve``; 0: none).
    public static func open(
        at directory: String, createIfMissing: Bool = true, uploadLimits: UploadLimits = UploadLimits(),
        diskReserveSize: Int = DiskReserve.defaultSize
    ) throws(PhotoLibError) -> PhotoLibrary {
        try uploadLimits.validate()
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
        let database = try Database(path: databasePath)
        try Schema.migrate(database, newLibraryIdentifier: { UUID().uuidString })
        guard let identifier = try database.prepare("SELECT value FROM meta WHERE key = 'library_identifier'").firstRow({ $0.text(0) }) else {
            throw PhotoLibError(.dataLoss, "\(databasePath) has no library identifier in its meta table; restore it from a backup")
        }
        let report: RecoveryReport
        if exclusive {
            report = try Recovery.run(database: database, files: files)
        } else {
            report = RecoveryReport(performed: false)
        }
        try OwnerToken.ensure(in: files)
        if isNew { try FileStore.syncDirectory(directory) }
        try libraryLock.lockShared()
        let reserve = DiskReserve(directory: directory, size: diskReserveSize)
        reserve.replenish()
        return PhotoLibrary(
            directory: directory, database: database, files: files, libraryLock: libraryLock,
            libraryIdentifier: identifier, lastRecovery: report, uploadLimits: uploadLimits, diskReserve: reserve)
    }

    /// The library as the limited client `client` sees it: the same connection, lock and
    /// files, but every asset read answers as if the library held only the client's
    /// selection (fetches, counts, album contents and covers, lookups by identifier,
    /// resources, editing input, change targets and history). An asset outside the selection
    /// gets exactly the answer of an asset that does not exist. Assets the view creates join
    /// the selection. Cheap: make one per call.
    public func limited(to client: String) -> PhotoLibrary {
        PhotoLibrary(
            directory: directory, database: database, files: files, libraryLock: libraryLock, libraryIdentifier: libraryIdentifier,
            lastRecovery: lastRecovery, uploadLimits: uploadLimits, diskReserve: diskReserve, lock: lock, limitedTo: client)
    }

    /// The owner token (`DIR/owner.token`, mode 0600): 64 hex digits.
    public func ownerToken() throws(PhotoLibError) -> String {
        try OwnerToken.read(in: files)
    }

    /// A number that changes whenever any connection — this one, another instance, or
    /// another process such as `photolibd import` — commits a change. Cheap enough to poll.
    public func dataVersion() throws(PhotoLibError) -> Int {
        try withDatabase { (database) throws(PhotoLibError) in
            // data_version moves for other connections' commits, the local count for ours.
            try database.dataVersion() &+ database.localCommitCount
        }
    }

    /// The half of ``dataVersion()`` that other connections' commits move (`PRAGMA
    /// data_version`, one query). A caller that reuses it for a while adds
    /// ``localCommitCount`` fresh each time, so this instance's own commits always count.
    public func externalDataVersion() throws(PhotoLibError) -> Int {
        try withDatabase { (database) throws(PhotoLibError) in try database.dataVersion() }
    }

    /// How many transactions this instance has committed (no query): the other half of
    /// ``dataVersion()``.
    public var localCommitCount: Int {
        (try? withDatabase { (database) throws(PhotoLibError) in database.localCommitCount }) ?? 0
    }

    /// Runs `body` with exclusive use of the connection.
    func withDatabase<T>(_ body: (Database) throws(PhotoLibError) -> T) throws(PhotoLibError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(database)
    }

    /// Runs `body` in one write transaction with exclusive use of the connection.
    func write<T>(_ body: (Database) throws(PhotoLibError) -> T) throws(PhotoLibError) -> T {
        try withDatabase { (database) throws(PhotoLibError) in
            try database.inTransaction { () throws(PhotoLibError) in try body(database) }
        }
    }

    /// Runs `body` in one read transaction (one consistent snapshot).
    func read<T>(_ body: (Database) throws(PhotoLibError) -> T) throws(PhotoLibError) -> T {
        try withDatabase { (database) throws(PhotoLibError) in
            try database.inReadTransaction { () throws(PhotoLibError) in try body(database) }
        }
    }
}
