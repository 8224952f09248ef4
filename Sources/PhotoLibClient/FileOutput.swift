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
        try check(path)
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

    /// Throws `failedPrecondition` when `path` cannot be a file to write: a directory, or in a
    /// folder that does not exist. Commands call it before their work, so that a mistyped
    /// output does not cost a render or a download (``write(_:to:)`` checks again).
    public static func check(_ path: String) throws(PhotoLibError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw PhotoLibError(.failedPrecondition, "\(path) is a directory: give the path of the file to write, e.g. \((path as NSString).appendingPathComponent("image.jpg"))")
        }
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) || !isDirectory.boolValue {
            throw PhotoLibError(.failedPrecondition, "cannot write \(path): the folder \(folder) does not exist")
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
