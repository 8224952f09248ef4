import Foundation
import PhotoLibCore

/// Reading a file whole into memory, for the decoders that need all of it.
enum WholeFile {
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
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            while count < size {
                let n = Glibc.read(fd, buffer.baseAddress! + count, size - count)
                if n > 0 {
                    count += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    failure = n < 0 ? errno : 0
                    return
                }
            }
        }
        guard bytes.count == size else {
            let reason = failure == 0 ? "it shrank from \(size) to \(bytes.count) bytes while being read" : SystemError.text(failure)
            throw PhotoLibError(.dataLoss, "cannot read \(what): \(reason)")
        }
        return bytes
    }
}
