import Crypto
import Foundation
import PhotoLibCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file copied into the library's `tmp/` by ``FileStore/copyIn(from:bufferSize:maximumSize:checkHead:)``,
/// hashed on the way and not synced yet: ``FileStore/place(_:at:)`` puts it in place,
/// ``FileStore/discard(_:)`` removes it (and recovery removes it after a crash: `tmp/` is garbage).
struct StreamedCopy {
    /// The copy, relative to the library (in `tmp/`).
    let temporaryPath: String
    /// SHA-256 of the bytes (hex), as ``PhotoLibrary/sha256Hex(_:)`` names them.
    let sha256: String
    /// Bytes copied.
    let byteSize: Int
}

extension FileStore {
    /// Copies the file at `sourcePath` (outside the library) into a new file in `tmp/`,
    /// `bufferSize` bytes at a time, hashing the bytes on the way: memory is one buffer,
    /// whatever the file's size. `checkHead` sees the first ``OriginalFileType/signatureLength``
    /// bytes (fewer for a shorter file) as soon as they are read, before anything more is
    /// copied. A file over `maximumSize` bytes, or empty, is refused (`invalidArgument`),
    /// also when it grows while being copied; the partial copy is removed on any failure.
    ///
    /// Blocking (file reads and writes, hashing).
    func copyIn(
        from sourcePath: String, bufferSize: Int, maximumSize: Int, checkHead: ([UInt8]) throws(PhotoLibError) -> Void
    ) throws(PhotoLibError) -> StreamedCopy {
        precondition(bufferSize > 0, "a copy needs a buffer of at least one byte")
        let name = (sourcePath as NSString).lastPathComponent
        let source = open(sourcePath, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw Self.error(errno, "open \(name) to import it") }
        defer { close(source) }
        let temporaryPath = Self.temporaryFolder + "/" + UUID().uuidString.lowercased() + ".part"
        let destination = open(absolutePath(temporaryPath), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, Self.fileMode)
        guard destination >= 0 else { throw Self.error(errno, "create a file in the library's tmp/") }
        var closed = false
        defer { if !closed { close(destination) } }
        do throws(PhotoLibError) {
            try Self.check(fchmod(destination, Self.fileMode), "set the mode of \(temporaryPath)")
            var buffer = [UInt8](repeating: 0, count: bufferSize)
            var hasher = SHA256()
            var head: [UInt8] = []
            var headChecked = false
            var total = 0
            while true {
                let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress!, bufferSize) }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw Self.error(errno, "read \(name)")
                }
                if count == 0 { break }
                total += count
                guard total <= maximumSize else {
                    throw PhotoLibError(
                        .invalidArgument, "\(name) grew past \(maximumSize) bytes while it was copied, the most an original of its kind may have",
                        reason: .invalidImage)
                }
                if !headChecked {
                    head.append(contentsOf: buffer.prefix(min(count, OriginalFileType.signatureLength - head.count)))
                    if head.count == OriginalFileType.signatureLength {
                        try checkHead(head)
                        headChecked = true
                    }
                }
                // 0, or the errno of a failed write.
                let failure = buffer.withUnsafeBytes { (bytes) -> Int32 in
                    let filled = UnsafeRawBufferPointer(rebasing: bytes[0..<count])
                    let failure = Self.writeAll(destination, filled)
                    if failure == 0 { hasher.update(bufferPointer: filled) }
                    return failure
                }
                if failure != 0 { throw Self.error(failure, "write \(temporaryPath) in the library") }
            }
            if !headChecked { try checkHead(head) }
            guard total > 0 else {
                throw PhotoLibError(.invalidArgument, "\(name) is an empty file", reason: .invalidImage)
            }
            closed = true
            try Self.check(close(destination), "close \(temporaryPath) in the library")
            let digest = hasher.finalize().map { OwnerToken.hexByte($0) }.joined()
            return StreamedCopy(temporaryPath: temporaryPath, sha256: digest, byteSize: total)
        } catch {
            _ = unlink(absolutePath(temporaryPath))
            throw error
        }
    }

    /// Puts a copy at `relativePath` atomically and durably, like ``writeAtomically(_:to:)``:
    /// fsync, link (which refuses to replace a file: `alreadyExists`), removal of the `tmp/`
    /// name, fsync of the directory. The copy is removed on failure.
    func place(_ copy: StreamedCopy, at relativePath: String) throws(PhotoLibError) {
        let temporary = absolutePath(copy.temporaryPath)
        do throws(PhotoLibError) {
            let descriptor = open(temporary, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw Self.error(errno, "open \(copy.temporaryPath) in the library") }
            let synced = fsync(descriptor)
            let code = errno
            close(descriptor)
            guard synced == 0 else { throw Self.error(code, "fsync \(copy.temporaryPath) in the library") }
            try link(copy.temporaryPath, to: relativePath)
            try Self.check(unlink(temporary), "remove \(copy.temporaryPath)")
        } catch {
            _ = unlink(temporary)
            throw error
        }
    }

    /// Removes a copy that is not placed (a duplicate, or a failed import); never fails:
    /// recovery removes what is left in `tmp/`.
    func discard(_ copy: StreamedCopy) {
        _ = unlink(absolutePath(copy.temporaryPath))
    }
}
