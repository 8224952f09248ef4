import PhotoLibCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What crash recovery found and did when a library was opened.
public struct RecoveryReport: Sendable, Hashable {
    /// Whether recovery ran. It is skipped while another process has the library open,
    /// because that process may be between writing a file and committing its row.
    public var performed: Bool
    /// Files removed from `tmp/` (paths relative to the library directory).
    public var removedTemporaryFiles: [String]
    /// Files removed from `originals/` because no committed row references them: left by a
    /// crash between the rename and the commit of an import.
    public var removedOrphanFiles: [String]
    /// Assets whose original file is missing: data lost outside PhotoLib's control (the rows
    /// are kept so that a restored file brings them back).
    public var assetsWithMissingOriginals: [String]
    /// Files removed from `uploads/` because no staged-upload row references them (a crash
    /// between writing an upload and recording it, or after consuming it).
    public var removedOrphanUploads: [String] = []
    /// Staged uploads whose file was gone, and whose rows were therefore removed (upload ids).
    public var droppedStagedUploads: [String] = []

    /// Creates a report.
    public init(
        performed: Bool, removedTemporaryFiles: [String] = [], removedOrphanFiles: [String] = [],
        assetsWithMissingOriginals: [String] = []
    ) {
        self.performed = performed
        self.removedTemporaryFiles = removedTemporaryFiles
        self.removedOrphanFiles = removedOrphanFiles
        self.assetsWithMissingOriginals = assetsWithMissingOriginals
    }

    /// Whether recovery found nothing to report.
    public var isClean: Bool {
        removedTemporaryFiles.isEmpty && removedOrphanFiles.isEmpty && assetsWithMissingOriginals.isEmpty
            && removedOrphanUploads.isEmpty && droppedStagedUploads.isEmpty
    }
}

/// Crash recovery: brings the files back in line with the committed database.
///
/// The write order of an import (temp file → fsync → rename → fsync directory → commit) means
/// a crash leaves at worst a file in `tmp/`, or a complete file under `originals/` that no
/// committed row references. Both are removed. The database itself needs no repair: SQLite's
/// WAL recovers committed transactions on its own.
enum Recovery {
    /// Runs recovery. The caller holds the library's exclusive lock.
    static func run(database: Database, files: FileStore) throws(PhotoLibError) -> RecoveryReport {
        var report = RecoveryReport(performed: true)
        for name in try FileStore.directoryEntries(files.temporaryDirectory) ?? [] {
            let relative = FileStore.temporaryFolder + "/" + name
            guard !FileStore.isDirectory(files.absolutePath(relative)) else { continue }
            try files.remove(relative)
            report.removedTemporaryFiles.append(relative)
        }
        try recoverUploads(database: database, files: files, report: &report)

        // Shard by shard, so that memory stays bounded on a library of millions of assets.
        let entries = try FileStore.directoryEntries(files.originalsDirectory) ?? []
        var shards = Set((0..<256).map { OwnerToken.hexByte(UInt8($0)) })
        for name in entries {
            let relative = FileStore.originalsFolder + "/" + name
            if FileStore.isDirectory(files.absolutePath(relative)) {
                shards.insert(name)
            } else {
                // Originals only live in shard directories.
                try files.remove(relative)
                report.removedOrphanFiles.append(relative)
            }
        }
        let referenced = try database.prepare(
            """
            SELECT r.file_path, a.local_identifier FROM asset_resource r JOIN asset a ON a.id = r.asset_id
            WHERE r.file_path >= ? AND r.file_path < ? ORDER BY r.file_path
            """)
        for shard in shards.sorted() {
            let prefix = FileStore.originalsFolder + "/" + shard + "/"
            // '0' follows '/' in ASCII: the range holds exactly the paths starting with `prefix`.
            let end = FileStore.originalsFolder + "/" + shard + "0"
            var owners: [String: String] = [:]
            try referenced.forEachRow([.text(prefix), .text(end)]) { row in owners[row.text(0)] = row.text(1) }
            let present = try FileStore.directoryEntries(files.absolutePath(prefix)) ?? []
            var seen = Set<String>()
            for name in present.sorted() {
                let relative = prefix + name
                if owners[relative] != nil {
                    seen.insert(relative)
                } else if !FileStore.isDirectory(files.absolutePath(relative)) {
                    try files.remove(relative)
                    report.removedOrphanFiles.append(relative)
                }
            }
            for (path, asset) in owners.sorted(by: { $0.key < $1.key }) where !seen.contains(path) {
                report.assetsWithMissingOriginals.append(asset)
            }
        }
        return report
    }
}

extension Recovery {
    /// Staged uploads: a file without a row is removed, a row without its file is dropped.
    static func recoverUploads(database: Database, files: FileStore, report: inout RecoveryReport) throws(PhotoLibError) {
        let rows = try database.prepare("SELECT upload_id, file_path FROM staged_upload")
            .rows { (row) throws(PhotoLibError) in (row.text(0), row.text(1)) }
        let recorded = Set(rows.map(\.1))
        for name in (try FileStore.directoryEntries(files.uploadsDirectory) ?? []).sorted() {
            let relative = FileStore.uploadsFolder + "/" + name
            guard !recorded.contains(relative), !FileStore.isDirectory(files.absolutePath(relative)) else { continue }
            try files.remove(relative)
            report.removedOrphanUploads.append(relative)
        }
        let missing = rows.filter { files.fileSize($0.1) == nil }
        guard !missing.isEmpty else { return }
        try database.inTransaction { () throws(PhotoLibError) in
            let delete = try database.prepare("DELETE FROM staged_upload WHERE upload_id = ?")
            for (uploadID, _) in missing { try delete.execute([.text(uploadID)]) }
        }
        report.droppedStagedUploads = missing.map(\.0)
    }
}

/// `DIR/library.lock`: every open ``PhotoLibrary`` holds a shared `flock` on it. Recovery
/// needs the exclusive lock, which it gets only when no other instance (in any process) has
/// the library open — a running importer's half-written file is never taken for an orphan.
final class LibraryLock {
    /// The lock file's descriptor; closing it releases the lock.
    private let descriptor: Int32

    /// The lock file name.
    static let fileName = "library.lock"

    /// Opens (creating) the lock file without locking it.
    init(directory: String) throws(PhotoLibError) {
        let path = directory + "/" + Self.fileName
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileStore.error(errno, "open the lock file \(path)") }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Takes the exclusive lock if nobody holds the library open; `false` otherwise.
    func tryLockExclusive() -> Bool {
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            if errno != EINTR { return false }
        }
    }

    /// Takes (or downgrades to) the shared lock, waiting while another opener recovers.
    func lockShared() throws(PhotoLibError) {
        while flock(descriptor, LOCK_SH) != 0 {
            if errno != EINTR { throw FileStore.error(errno, "lock \(Self.fileName)") }
        }
    }
}
