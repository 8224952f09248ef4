import Dispatch
import PhotoLibCore

#if canImport(Glibc)
import Glibc
#endif

/// What identifies a file's content on disk without reading it: size, modification time
/// (nanoseconds) and inode. A file replaced or rewritten gets a different identity.
struct FileIdentity: Equatable {
    var size: Int64
    var modificationTime: Int64
    var inode: UInt64
}

/// `stat` results of files the image server renders from, remembered until the kernel says
/// something under the library changed (inotify), so a repeated request costs no `stat`.
///
/// Before a file is first `stat`ed, every directory from its own up to the library's root is
/// watched: a later change to the file, a file moved, linked or created over its name, or
/// one of those directories moved or deleted, queues an event. Events are read (without
/// blocking) before an identity is reused, and any event forgets every remembered identity.
/// Like the database version check, one read of the events made after a request arrived
/// serves every request that arrived before it (`receivedAt`).
///
/// Where inotify cannot help — no inotify instance (the per-user limit), a directory that
/// cannot be watched, a file outside the library — every call `stat`s. inotify sees changes
/// made through this machine's kernel: a network file system changed from another host, or
/// a file changed through a shared writable `mmap`, is not seen (neither replaces an
/// original in a library that only photolibd writes). Confined to ``ImageSourceResolver``'s lock.
final class FileIdentityCache {
    /// The library's directory: the highest directory watched.
    let root: String
    /// At most this many files (and as many directories) are remembered; beyond, the
    /// cache starts over.
    let capacity: Int
    private let watching: Bool
    /// The inotify instance, made on first use; -1 when there is none.
    private var notifications: Int32 = -2
    private var watches: [String: Int32] = [:]
    private var identities: [String: FileIdentity] = [:]
    /// When the event queue was last read empty (uptime nanoseconds, taken before reading).
    private var lastDrainedAt: UInt64 = 0
    private var eventBuffer = [UInt8](repeating: 0, count: 16 << 10)
    /// `stat` calls made so far (what the cache saves is visible to tests).
    private(set) var statCount = 0
    /// Moves whenever the remembered identities are forgotten (an event, or the capacity
    /// reached): an identity remembered while it had a value is still the answer for its
    /// path while it has it (``isCurrent(_:receivedAt:)``).
    private(set) var generation = 0

    /// Changes that make a remembered identity stale.
    private static let events = UInt32(IN_ATTRIB | IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

    /// `watching: false` always `stat`s.
    init(root: String, capacity: Int = 50_000, watching: Bool = true) {
        var root = root
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        self.root = root
        self.capacity = max(1, capacity)
        self.watching = watching
    }

    deinit {
        if notifications >= 0 { _ = close(notifications) }
    }

    /// Whether identities are remembered (an inotify instance exists, once one was needed).
    var isWatching: Bool { watching && notifications != -1 }

    /// The identity of the file at `path`, as of `receivedAt` or later (uptime nanoseconds;
    /// `nil`: now). Throws the `stat` error's `errno` when the file cannot be `stat`ed.
    func identity(of path: String, receivedAt: UInt64?) throws(SystemError) -> FileIdentity {
        try rememberedIdentity(of: path, receivedAt: receivedAt).identity
    }

    /// ``identity(of:receivedAt:)``, and the ``generation`` it is remembered under (`nil`:
    /// not remembered, the file is `stat`ed at every call).
    func rememberedIdentity(of path: String, receivedAt: UInt64?) throws(SystemError) -> (identity: FileIdentity, generation: Int?) {
        guard watching else { return (try statNow(path), nil) }
        if notifications == -2 { notifications = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
        guard notifications >= 0 else { return (try statNow(path), nil) }
        drainEvents(unlessReadAfter: receivedAt)
        if let known = identities[path] { return (known, generation) }
        guard watchDirectories(of: path) else { return (try statNow(path), nil) }
        let identity = try statNow(path)
        if identities.count >= capacity { forgetIdentities() }
        identities[path] = identity
        return (identity, generation)
    }

    /// Whether an identity remembered under `generation` is still the answer for its path
    /// as of `receivedAt` (the events are read first, as ``identity(of:receivedAt:)`` does):
    /// no path needs looking up to know that nothing changed.
    func isCurrent(_ generation: Int, receivedAt: UInt64?) -> Bool {
        guard watching, notifications >= 0 else { return false }
        drainEvents(unlessReadAfter: receivedAt)
        return generation == self.generation
    }

    private func forgetIdentities() {
        identities.removeAll(keepingCapacity: true)
        generation &+= 1
    }

    /// Reads the queued events, unless that was done after `receivedAt`; any event (or an
    /// overflowed queue) forgets every identity.
    private func drainEvents(unlessReadAfter receivedAt: UInt64?) {
        if let receivedAt, lastDrainedAt >= receivedAt { return }
        let at = DispatchTime.now().uptimeNanoseconds
        var changed = false
        while true {
            let count = eventBuffer.withUnsafeMutableBytes { read(notifications, $0.baseAddress, $0.count) }
            if count > 0 {
                changed = true
                dropWatchesOfMovedDirectories(count)
                continue
            }
            if count < 0 && errno == EINTR { continue }
            break
        }
        if changed { forgetIdentities() }
        lastDrainedAt = at
    }

    /// A watched directory that was deleted or moved away no longer is what its path names,
    /// and neither are the directories under it (they moved with it, and see no event of
    /// their own): all their watches are dropped, and added again to whatever is there now
    /// when needed.
    private func dropWatchesOfMovedDirectories(_ count: Int) {
        let header = MemoryLayout<inotify_event>.size
        var gone: Set<Int32> = []
        eventBuffer.withUnsafeBytes { raw in
            var offset = 0
            while offset + header <= count {
                let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                if event.mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 { gone.insert(event.wd) }
                offset += header + Int(event.len)
            }
        }
        guard !gone.isEmpty else { return }
        let movedPaths = watches.filter { gone.contains($0.value) }.map(\.key)
        for (directory, descriptor) in watches where movedPaths.contains(where: { directory == $0 || directory.hasPrefix($0 + "/") }) {
            watches[directory] = nil
            // The kernel already removed watches it reported as ignored; removing one twice
            // only fails harmlessly.
            _ = inotify_rm_watch(notifications, descriptor)
        }
    }

    /// Watches every directory from `path`'s up to ``root``; `false` when `path` is not
    /// under the root or a directory cannot be watched.
    private func watchDirectories(of path: String) -> Bool {
        guard path.hasPrefix(root + "/") else { return false }
        var directory = path
        repeat {
            guard let slash = directory.lastIndex(of: "/") else { return false }
            directory = String(directory[..<slash])
            if watches[directory] == nil {
                if watches.count >= capacity { return false }
                let descriptor = inotify_add_watch(notifications, directory, Self.events)
                guard descriptor >= 0 else { return false }
                watches[directory] = descriptor
            }
        } while directory.count > root.count
        return true
    }

    private func statNow(_ path: String) throws(SystemError) -> FileIdentity {
        statCount += 1
        var status = stat()
        guard stat(path, &status) == 0 else { throw SystemError(errno: errno, action: "stat \(path)") }
        return FileIdentity(
            size: Int64(status.st_size),
            modificationTime: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec),
            inode: UInt64(status.st_ino))
    }
}
