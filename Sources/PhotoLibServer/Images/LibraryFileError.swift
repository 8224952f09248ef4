import Foundation
import PhotoLibCore

/// The error a client gets when the server cannot open or read one of the library's files.
///
/// One home for the choice of code: a file that is gone is `dataLoss` (restore a backup);
/// running out of file descriptors or memory is the server's momentary trouble, `unavailable`
/// (retry); anything else is `dataLoss` naming the system's reason. Messages name the file
/// by what it is for (`the original of asset …`), never by its path on the server.
enum LibraryFileError {
    /// The error for `errno` while opening or reading `what` (e.g. "the original of asset X").
    static func make(errno code: Int32, _ what: String) -> PhotoLibError {
        var error: PhotoLibError
        switch code {
        case ENOENT:
            error = PhotoLibError(.dataLoss, "\(what) is missing from the library; restore it from a backup")
        case EMFILE, ENFILE, ENOMEM, ENOBUFS:
            error = PhotoLibError(.unavailable, "the server cannot open \(what) right now (\(SystemError.text(code))); retry shortly")
        case EACCES, EPERM:
            error = PhotoLibError(.failedPrecondition, "the server may not read \(what) (\(SystemError.text(code))); the owner should check the library's permissions")
        default:
            error = PhotoLibError(.dataLoss, "cannot read \(what): \(SystemError.text(code))")
        }
        error.cause = PhotoLibError.Cause(domain: .posix, code: code, message: SystemError.text(code))
        return error
    }
}
