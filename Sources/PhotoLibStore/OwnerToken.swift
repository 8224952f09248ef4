import Foundation
import PhotoLibCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `DIR/owner.token`: the secret that proves a client is the library's owner (the operator
/// who may approve other clients). 32 random bytes as 64 lowercase hex digits and a newline,
/// mode 0600, written once at library creation and never changed.
enum OwnerToken {
    /// The file name in the library directory.
    static let fileName = "owner.token"
    /// Random bytes in a token.
    static let byteCount = 32

    /// A new token from the system's cryptographically secure generator.
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<byteCount).map { _ in hexByte(UInt8.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// Creates the token file if it is missing. A new file is written to `tmp/`, synced, then
    /// hard-linked into place, which fails if another process created one first: both then
    /// read the same token.
    static func ensure(in files: FileStore) throws(PhotoLibError) {
        let path = files.absolutePath(fileName)
        if access(path, F_OK) == 0 { return }
        let temporary = files.temporaryDirectory + "/" + UUID().uuidString.lowercased() + ".token"
        try FileStore.writeAndSync(Array((generate() + "\n").utf8), to: temporary, mode: 0o600)
        defer { _ = unlink(temporary) }
        // Mode 0600 regardless of the umask.
        try FileStore.check(chmod(temporary, 0o600), "set the mode of \(temporary)")
        if link(temporary, path) != 0, errno != EEXIST {
            throw FileStore.error(errno, "create \(path)")
        }
        try FileStore.syncDirectory(files.root)
    }

    /// Reads and checks the token. Refuses a file that others can read (as ssh does with keys).
    static func read(in files: FileStore) throws(PhotoLibError) -> String {
        let path = files.absolutePath(fileName)
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw FileStore.error(errno, "read the owner token \(path)")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw PhotoLibError(
                .failedPrecondition,
                "\(path) is readable by other users (mode \(String(info.st_mode & 0o777, radix: 8))); run chmod 600 \(path)")
        }
        guard let data = FileManager.default.contents(atPath: path), data.count <= 256 else {
            throw PhotoLibError(.dataLoss, "\(path) cannot be read or is too large to be an owner token")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count == byteCount * 2, text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw PhotoLibError(.dataLoss, "\(path) does not hold a 64-digit lowercase hex token; restore it from a backup")
        }
        return text
    }

    /// Two lowercase hex digits.
    static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
    }
}
