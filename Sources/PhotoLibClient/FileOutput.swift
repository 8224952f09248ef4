import Foundation
import PhotoLibCore

/// Writing what a command produced to a path a person gave (`photolib get -o FILE`, a contact
/// sheet, an edit's render).
///
/// A regular file, or one that does not exist yet, is replaced atomically: the bytes go to a
/// temporary file beside it, renamed over it once complete, so no reader sees half an image.
/// Anything else that exists — `/dev/null`, `/dev/stdout`, a FIFO — is written in place: a
/// rename would replace the device with a regular file (as root, `/dev/null` itself).
public enum FileOutput {
    /// Writes `bytes` to `path` (see ``FileOutput``). Throws `failedPrecondition` naming the
    /// path and the reason when it cannot.
    public static func write(_ bytes: [UInt8], to path: String) throws(PhotoLibError) {
        do {
            if isSpecialFile(path) {
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
                defer { try? handle.close() }
                try handle.write(contentsOf: Data(bytes))
            } else {
                try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
            }
        } catch {
            throw PhotoLibError(.failedPrecondition, "cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// Whether `path` names something that exists and is not a regular file or a directory
    /// (a device, a FIFO, a socket): what must be written in place, never replaced.
    public static func isSpecialFile(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        let type = status.st_mode & S_IFMT
        return type != S_IFREG && type != S_IFDIR
    }
}
