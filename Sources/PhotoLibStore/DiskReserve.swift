import Foundation
import PhotoLibCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `DIR/reserve`: a file holding disk space back for the operations that free space.
///
/// On a full disk SQLite cannot even delete (it needs room for the journal), so the owner
/// could not purge the trash to recover. The library keeps this file allocated; a write
/// that fails for lack of space releases it and runs again, and uploads are refused with
/// "disk full" while the disk has no room for them beside the reserve, so new photos never
/// eat into it. The reserve is allocated again once the disk has room (at open, and by
/// ``PhotoLibrary/replenishDiskReserve()``).
public final class DiskReserve: Sendable {
    /// The reserve file name in the library directory.
    public static let fileName = "reserve"
    /// The default reserve: 64 MiB, enough for SQLite to delete and purge many thousands of rows.
    public static let defaultSize = 64 * 1024 * 1024
    /// Room an upload must leave free besides its own bytes (database and journal growth).
    static let uploadMargin = 8 * 1024 * 1024

    /// The reserve's size in bytes (0: no reserve).
    public let size: Int
    private let path: String
    private let directory: String
    /// Whether the file is allocated; guards the create/release so two threads never race on it.
    private let held = Mutex(false)
    /// Bytes promised to uploads and imports in progress (see ``reserveRoom(for:what:)``);
    /// guards the check-and-promise so two uploads never both take the same free space.
    private let promised = Mutex(0)

    init(directory: String, size: Int) {
        self.directory = directory
        self.path = directory + "/" + Self.fileName
        self.size = max(0, size)
    }

    /// Whether the reserve is allocated now.
    public var isHeld: Bool { held.withLock { $0 } }

    /// Bytes free for the library's user on its disk (`statvfs`), or `nil` if unknown.
    public func freeBytes() -> Int? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        let (product, overflow) = Int(info.f_bavail).multipliedReportingOverflow(by: Int(info.f_frsize))
        return overflow ? Int.max : product
    }

    /// Allocates the reserve if it is missing and the disk has room for it; `true` when it is
    /// held afterwards.
    @discardableResult
    func replenish() -> Bool {
        held.withLock { (held) -> Bool in
            if held || size == 0 { held = true; return true }
            var info = stat()
            if stat(path, &info) == 0, Int(info.st_size) >= size, (info.st_mode & S_IFMT) == S_IFREG {
                held = true
                return true
            }
            // Room for the reserve and as much again: never fill the disk to make it.
            guard let free = freeBytes(), free - (Int(info.st_size) > 0 ? Int(info.st_size) : 0) >= 2 * size else { return false }
            let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, FileStore.fileMode)
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            _ = fchmod(descriptor, FileStore.fileMode)
            // posix_fallocate reserves real blocks (a sparse file would reserve nothing).
            guard posix_fallocate(descriptor, 0, off_t(size)) == 0, fsync(descriptor) == 0 else {
                _ = ftruncate(descriptor, 0)
                return false
            }
            held = true
            return true
        }
    }

    /// Frees the reserve's space (removes the file); `true` when there was one to free.
    @discardableResult
    func release() -> Bool {
        held.withLock { (held) -> Bool in
            guard held, size > 0 else { return false }
            held = false
            return unlink(path) == 0
        }
    }

    /// Throws `resourceExhausted` ("disk full") unless the disk can take `bytes` more beside
    /// what is promised to uploads and imports in progress (``promisedBytes``) and keep
    /// ``uploadMargin`` free without touching the reserve (and, when the reserve was released,
    /// with room to allocate it again); otherwise promises the bytes until the returned
    /// promise is released (when the file is in place, or given up).
    /// `what` names the file in the message ("this upload", "this video").
    func reserveRoom(for bytes: Int, what: String = "this upload") throws(PhotoLibError) -> DiskPromise {
        // Read before taking `promised`: the two locks never nest.
        let kept = Self.uploadMargin + (isHeld ? 0 : size)
        return try promised.withLock { (promised) throws(PhotoLibError) in
            if let free = freeBytes() {
                let needed = bytes + promised + kept
                guard free >= needed else {
                    let inFlight = promised > 0 ? ", \(promised / (1024 * 1024) + 1) MiB are promised to uploads and imports in progress" : ""
                    throw PhotoLibError(
                        .resourceExhausted,
                        "disk full: the library's disk has \(free / (1024 * 1024)) MiB free\(inFlight) and \(what) needs \(bytes / (1024 * 1024) + 1) MiB plus \(kept / (1024 * 1024)) MiB kept for the library; the owner can free space by purging the trash, or try again when other uploads end")
                }
            }
            promised += bytes
            return DiskPromise(reserve: self, bytes: bytes)
        }
    }

    /// Bytes promised to uploads and imports in progress (not yet in place, not yet given up).
    var promisedBytes: Int { promised.withLock { $0 } }

    /// Takes back `bytes` of the promised total (a promise released or written).
    fileprivate func unpromise(_ bytes: Int) {
        promised.withLock { $0 -= bytes }
    }
}

/// Room on the disk promised to one upload or import by ``DiskReserve/reserveRoom(for:what:)``:
/// later checks count it as used until ``release()`` (idempotent; also on deinit).
final class DiskPromise: Sendable {
    private let reserve: DiskReserve
    /// The bytes still promised; guards the release so the count is taken back once.
    private let remaining: Mutex<Int>

    fileprivate init(reserve: DiskReserve, bytes: Int) {
        self.reserve = reserve
        self.remaining = Mutex(bytes)
    }

    deinit { release() }

    /// Gives the promised room back (the file is in place, or given up); idempotent.
    func release() {
        let bytes = remaining.withLock { (remaining) -> Int in
            defer { remaining = 0 }
            return remaining
        }
        if bytes > 0 { reserve.unpromise(bytes) }
    }

    /// Takes back `bytes` written to the disk (the free space counts them now).
    func wrote(_ bytes: Int) {
        let taken = remaining.withLock { (remaining) -> Int in
            let taken = min(bytes, remaining)
            remaining -= taken
            return taken
        }
        if taken > 0 { reserve.unpromise(taken) }
    }
}

extension PhotoLibrary {
    /// Allocates the disk reserve again if it was released and the disk has room; `true` when
    /// it is held afterwards (periodic maintenance calls this).
    @discardableResult
    public func replenishDiskReserve() -> Bool {
        diskReserve.replenish()
    }

    /// Runs `body`, a write. When it fails because the disk is full and `usingReserve` (a
    /// write that frees space or leads to it: trashing, purging, removing, reverting), releases
    /// the reserve and runs it once more; any other write fails with "disk full", the reserve
    /// kept for those (a favourite or an import that took it would leave nothing to delete
    /// with). After a success the reserve is allocated again if the disk now has room.
    func writeUsingReserveIfFull<T>(usingReserve: Bool = true, _ body: () throws(PhotoLibError) -> T) throws(PhotoLibError) -> T {
        let result: T
        do {
            result = try body()
        } catch where Self.isDiskFull(error) && usingReserve && diskReserve.release() {
            result = try body()
        } catch where Self.isDiskFull(error) && !usingReserve && diskReserve.size > 0 {
            var full = PhotoLibError(
                .resourceExhausted,
                "disk full: the library's disk has no room for this change; the space the library keeps in reserve is for deleting: free space by deleting and purging photos (photolib delete, photolib purge) or on the server's disk")
            full.cause = error.cause
            throw full
        }
        if !diskReserve.isHeld { diskReserve.replenish() }
        return result
    }

    /// Whether `error` says the disk is full (SQLite's SQLITE_FULL or ENOSPC/EDQUOT).
    static func isDiskFull(_ error: PhotoLibError) -> Bool {
        guard let cause = error.cause else { return false }
        switch cause.domain {
        case .sqlite: return cause.code & 0xFF == 13  // SQLITE_FULL
        case .posix: return cause.code == ENOSPC || cause.code == EDQUOT
        }
    }
}
