import Foundation
import PhotoLibCore

/// Reading a whole local file a person named (`photolib filter-preview PHOTO`,
/// `photolibd edit-base PHOTO`) with a bound: only a regular file, of at most `limit` bytes,
/// checked on the open file before anything is read (a FIFO or `/dev/zero` would otherwise be
/// read without end).
public enum FileInput {
    /// The bytes of the regular file at `path`; throws `invalidArgument` for anything else or
    /// a file over `limit`, `failedPrecondition` when it cannot be opened or read.
    /// `what` names the file in the too-large message ("a photo may have at most …").
    public static func readWhole(_ path: String, limit: Int, what: String = "a photo") throws(PhotoLibError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw PhotoLibError(.failedPrecondition, "cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw PhotoLibError(.invalidArgument, "\(path) is not a regular file")
        }
        let size = Int(status.st_size)
        guard size <= limit else {
            throw PhotoLibError(.invalidArgument, "\(path) is \(size) bytes; \(what) may have at most \(limit) (\(limit >> 20) MiB)")
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + done, size - done) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw PhotoLibError(.failedPrecondition, "cannot read \(path): \(count == 0 ? "it ended early" : String(cString: strerror(errno)))") }
            done += count
        }
        return bytes
    }
}
