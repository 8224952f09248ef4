import Foundation
import PhotoLibCore

/// Reading a file whole into memory, for the decoders that need all of it; or only its head,
/// for what a header says.
enum WholeFile {
    /// The first `count` bytes of the file at `path` (fewer when it is shorter): a JPEG's
    /// header and markers come first, so its size and orientation read from there without
    /// reading the picture. `what` names the file in errors.
    static func head(_ path: String, what: String, count: Int) throws(PhotoLibError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw LibraryFileError.make(errno: errno, what) }
        defer { close(fd) }
        let (bytes, failure) = readUpTo(max(0, count), from: fd)
        if failure != 0 { throw PhotoLibError(.dataLoss, "cannot read \(what): \(SystemError.text(failure))") }
        return bytes
    }

    /// The bytes of the file at `path` (`what` names it in errors), refusing one over `limit`
    /// bytes before reading it (`tooLarge(size)`, by default `resourceExhausted`). The size is
    /// the open file's (`fstat`, through any symbolic link), and one `read` loop fills the
    /// array directly: no intermediate `Data`, and a file that grows meanwhile is read only
    /// as far as that size.
    static func read(
        _ path: String, what: String, limit: Int, tooLarge: ((Int) -> PhotoLibError)? = nil
    ) throws(PhotoLibError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw LibraryFileError.make(errno: errno, what) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw LibraryFileError.make(errno: errno, what) }
        let size = Int(status.st_size)
        guard size <= limit else {
            throw tooLarge?(size)
                ?? PhotoLibError(.resourceExhausted, "\(what) is \(size) bytes, over the \(limit)-byte limit", reason: .invalidImage)
        }
        let (bytes, failure) = readUpTo(size, from: fd)
        guard bytes.count == size else {
            let reason = failure == 0 ? "it shrank from \(size) to \(bytes.count) bytes while being read" : SystemError.text(failure)
            throw PhotoLibError(.dataLoss, "cannot read \(what): \(reason)")
        }
        return bytes
    }

    /// Up to `count` bytes read from `fd` by one `read` loop straight into the array (fewer at
    /// the end of the file), and the `errno` that stopped it early (0: none, or the end).
    private static func readUpTo(_ count: Int, from fd: Int32) -> (bytes: [UInt8], failure: Int32) {
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, filled in
            filled = 0
            while filled < count {
                let n = Glibc.read(fd, buffer.baseAddress! + filled, count - filled)
                if n > 0 {
                    filled += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    failure = n < 0 ? errno : 0
                    return
                }
            }
        }
        return (bytes, failure)
    }
}
