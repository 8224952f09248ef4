import Foundation
import PhotoLibCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The library's files: originals under `originals/xx/`, work files in `tmp/`.
///
/// Every write is crash-safe: the bytes go to `tmp/` first, are fsynced, renamed into place,
/// and the destination directory is fsynced, so a file under `originals/` is either absent
/// or complete. Whether it belongs to the library is decided by the database alone (see
/// ``Recovery``).
struct FileStore: Sendable {
    /// The library directory.
    let root: String

    /// `originals`: the imported files, never modified.
    static let originalsFolder = "originals"
    /// `tmp`: files being written; everything in it is garbage after a crash.
    static let temporaryFolder = "tmp"
    /// `uploads`: staged uploads waiting for a `createAsset` request, one file per upload,
    /// named by its upload id; a file without a `staged_upload` row is garbage after a crash.
    static let uploadsFolder = "uploads"

    /// `DIR/originals`.
    var originalsDirectory: String { root + "/" + Self.originalsFolder }
    /// `DIR/tmp`.
    var temporaryDirectory: String { root + "/" + Self.temporaryFolder }
    /// `DIR/uploads`.
    var uploadsDirectory: String { root + "/" + Self.uploadsFolder }

    /// Where a staged upload's bytes live, relative to the library.
    static func uploadPath(uploadID: String) -> String { "\(uploadsFolder)/\(uploadID)" }

    /// The absolute path of a path relative to the library directory.
    func absolutePath(_ relativePath: String) -> String { root + "/" + relativePath }

    /// Where the original of the asset with UUID `uuid` lives, relative to the library:
    /// `originals/<first two hex digits>/<uuid>.<ext>`, 256 shards so that no directory grows huge.
    static func originalPath(uuid: String, fileExtension: String) -> String {
        let lowered = uuid.lowercased()
        return "\(originalsFolder)/\(lowered.prefix(2))/\(lowered).\(fileExtension)"
    }

    /// Creates `originals/`, `tmp/` and `uploads/` if missing.
    func createDirectories() throws(PhotoLibError) {
        try Self.makeDirectory(originalsDirectory)
        try Self.makeDirectory(temporaryDirectory)
        try Self.makeDirectory(uploadsDirectory)
    }

    /// Writes `bytes` to `relativePath` atomically and durably: temp file, fsync, rename,
    /// fsync of the directory. Fails with `alreadyExists` rather than replace a file.
    func writeAtomically(_ bytes: [UInt8], to relativePath: String) throws(PhotoLibError) {
        let destination = absolutePath(relativePath)
        let directory = try makeParentDirectory(of: destination)
        let temporary = temporaryDirectory + "/" + UUID().uuidString.lowercased() + ".part"
        do {
            try Self.writeAndSync(bytes, to: temporary)
            // link() rather than rename(): it refuses to replace an existing original.
            try Self.check(hardLink(temporary, destination), "link \(temporary) to \(destination)")
            try Self.check(unlink(temporary), "remove \(temporary)")
            try Self.syncDirectory(directory)
        } catch {
            _ = unlink(temporary)
            throw error
        }
    }

    /// Adds a second name, `relativeDestination`, to the existing file `relativeSource`
    /// (a hard link: no bytes are copied, the file is already synced) and syncs the new
    /// name's directory. Fails with `alreadyExists` rather than replace a file.
    func link(_ relativeSource: String, to relativeDestination: String) throws(PhotoLibError) {
        let source = absolutePath(relativeSource)
        let destination = absolutePath(relativeDestination)
        let directory = try makeParentDirectory(of: destination)
        try Self.check(hardLink(source, destination), "link \(source) to \(destination)")
        try Self.syncDirectory(directory)
    }

    /// Creates the directory holding `path` if missing (syncing its own parent so that the
    /// new entry is durable) and returns it.
    private func makeParentDirectory(of path: String) throws(PhotoLibError) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        if try Self.makeDirectory(directory) {
            try Self.syncDirectory((directory as NSString).deletingLastPathComponent)
        }
        return directory
    }

    /// Removes the file at `relativePath` (missing is fine) and syncs its directory.
    func remove(_ relativePath: String) throws(PhotoLibError) {
        let path = absolutePath(relativePath)
        if unlink(path) != 0, errno != ENOENT {
            throw Self.error(errno, "remove \(path)")
        }
        try Self.syncDirectory((path as NSString).deletingLastPathComponent)
    }

    /// The size of the file at `relativePath`, or `nil` when it does not exist.
    func fileSize(_ relativePath: String) -> Int? {
        var info = stat()
        guard stat(absolutePath(relativePath), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// The whole file at `relativePath`, which must be `expectedSize` bytes (`dataLoss`
    /// otherwise). Messages name the file relative to the library, never its server path.
    func readWholeFile(_ relativePath: String, expectedSize: Int) throws(PhotoLibError) -> [UInt8] {
        let descriptor = open(absolutePath(relativePath), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.error(errno, "open \(relativePath) in the library") }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: expectedSize)
        var filled = 0
        while filled < expectedSize {
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress! + filled, expectedSize - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.error(errno, "read \(relativePath) in the library")
            }
            if count == 0 {
                throw PhotoLibError(.dataLoss, "\(relativePath) in the library ends after \(filled) of its \(expectedSize) bytes")
            }
            filled += count
        }
        return bytes
    }

    // MARK: POSIX helpers

    /// The mode of every file the library creates: the owner's alone, whatever the umask
    /// (photos are private).
    static let fileMode: mode_t = 0o600
    /// The mode of every directory the library creates.
    static let directoryMode: mode_t = 0o700

    /// Writes all of `bytes` to a new file at `path` (mode ``fileMode`` exactly) and fsyncs it.
    static func writeAndSync(_ bytes: [UInt8], to path: String, mode: mode_t = fileMode) throws(PhotoLibError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw error(errno, "create \(path)") }
        defer { close(descriptor) }
        // The umask may have taken bits away (or a permissive one left them): set it exactly.
        try check(fchmod(descriptor, mode), "set the mode of \(path)")
        let failure = bytes.withUnsafeBytes { writeAll(descriptor, $0) }
        guard failure == 0 else { throw error(failure, "write \(path)") }
        try check(fsync(descriptor), "fsync \(path)")
    }

    /// Writes all of `bytes` to `descriptor`, again after a short write or `EINTR`; returns 0,
    /// or the errno of the write that failed (callers throw with their own action).
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        var written = 0
        while written < bytes.count {
            let count = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            written += count
        }
        return 0
    }

    /// Creates the file at `path` empty with mode ``fileMode`` when it does not exist (so that
    /// SQLite, which gives its WAL and shared-memory files the database's mode, starts private).
    static func createPrivateFile(_ path: String) throws(PhotoLibError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        if descriptor < 0 {
            if errno == EEXIST { return }
            throw error(errno, "create \(path)")
        }
        defer { close(descriptor) }
        try check(fchmod(descriptor, fileMode), "set the mode of \(path)")
    }

    /// fsyncs a directory, making a rename or unlink in it durable.
    static func syncDirectory(_ path: String) throws(PhotoLibError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw error(errno, "open directory \(path)") }
        defer { close(descriptor) }
        try check(fsync(descriptor), "fsync directory \(path)")
    }

    /// Creates a directory (mode ``directoryMode`` exactly); `true` when it was created, `false`
    /// when it existed (its mode is then left as it is).
    @discardableResult
    static func makeDirectory(_ path: String) throws(PhotoLibError) -> Bool {
        if mkdir(path, directoryMode) == 0 {
            try check(chmod(path, directoryMode), "set the mode of \(path)")
            return true
        }
        let code = errno
        var info = stat()
        if code == EEXIST, stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return false }
        throw error(code, "create directory \(path)")
    }

    /// The names in a directory, `.` and `..` excluded; `nil` when it does not exist.
    static func directoryEntries(_ path: String) throws(PhotoLibError) -> [String]? {
        guard let stream = opendir(path) else {
            if errno == ENOENT { return nil }
            throw error(errno, "list \(path)")
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Whether `path` is a directory (not following a final symlink).
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Throws the error for `errno` unless `result` is 0.
    static func check(_ result: Int32, _ action: String) throws(PhotoLibError) {
        if result != 0 { throw error(errno, action) }
    }

    /// The store error for a failed system call (see `SystemError.photoLibError`).
    static func error(_ code: Int32, _ action: String) -> PhotoLibError {
        SystemError(errno: code, action: action).photoLibError
    }
}

/// POSIX `link(2)`, under a name that `FileStore.link(_:to:)` does not shadow.
private func hardLink(_ source: String, _ destination: String) -> Int32 {
    link(source, destination)
}
