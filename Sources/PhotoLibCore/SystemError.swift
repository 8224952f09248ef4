import Foundation

/// A failed system call as a value: what was being done and the `errno` it failed with.
///
/// The one place PhotoLib turns `errno` into words and a status code; the store, the server,
/// the socket layer and the tools all go through it.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `errno` value.
    public var errno: Int32
    /// What was being done, as a phrase after "cannot": `write /lib/originals/x.jpg`.
    public var action: String

    /// The error of `action` failing with `errno`.
    public init(errno: Int32, action: String) {
        self.errno = errno
        self.action = action
    }

    /// The C library's text for `errno` (`strerror`), e.g. `No space left on device`.
    public static func text(_ errno: Int32) -> String {
        String(cString: strerror(errno))
    }

    /// `cannot write /x: No space left on device (errno 28)`.
    public var description: String { "cannot \(action): \(Self.text(errno)) (errno \(errno))" }

    /// The store-wide error with the code that fits `errno` and what to do about it: disk
    /// full or too many open files is `resourceExhausted`, permissions `failedPrecondition`,
    /// a missing file `notFound`, an existing one `alreadyExists`, I/O errors `unavailable`;
    /// the `errno` is kept as the cause.
    public var photoLibError: PhotoLibError {
        let reason = Self.text(errno)
        let (code, message): (StatusCode, String) =
            switch errno {
            case ENOSPC, EDQUOT: (.resourceExhausted, "cannot \(action): \(reason); free disk space and retry")
            case EACCES, EPERM, EROFS: (.failedPrecondition, "cannot \(action): \(reason); check the library's permissions")
            case ENOENT: (.notFound, "cannot \(action): \(reason)")
            case EEXIST: (.alreadyExists, "cannot \(action): \(reason)")
            case EIO: (.unavailable, "cannot \(action): \(reason) (the disk reported an error)")
            case EMFILE, ENFILE, ENOMEM: (.resourceExhausted, "cannot \(action): \(reason)")
            default: (.internalError, "cannot \(action): \(reason) (errno \(errno))")
            }
        var error = PhotoLibError(code, message)
        error.cause = PhotoLibError.Cause(domain: .posix, code: errno, message: reason)
        return error
    }
}
