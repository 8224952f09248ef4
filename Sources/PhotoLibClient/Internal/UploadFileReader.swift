import Dispatch
import Foundation
import PhotoLibCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file to upload a piece at a time for ``PhotoLibrary/upload(fileAt:filename:progress:)``:
/// the blocking `open`/`read` calls run on a serial queue of its own
/// (`photolib.client.upload`, one per upload), never on the cooperative pool, and one piece
/// (``pieceSize``) is in memory at a time however large the file (a 4K video of many GiB).
///
/// `@unchecked Sendable`: ``descriptor`` is touched only on ``queue``.
final class UploadFileReader: @unchecked Sendable {
    /// The file work of one upload: opening, reading and closing the file.
    private let queue = DispatchQueue(label: "photolib.client.upload", qos: .userInitiated)
    private var descriptor: Int32 = -1
    /// The file's size when it was opened: the size the upload announces.
    private(set) var size = 0
    /// The file's modification time when it was opened: the creation date of a photo or
    /// movie that carries none of its own.
    private(set) var modificationDate = Date(timeIntervalSince1970: 0)

    /// Bytes read per hop to ``queue`` (1 MiB): sent as several chunks of `WireLimits.chunkSize`.
    static let pieceSize = 1 << 20

    /// Opens the file at `path` (on ``queue``) and reads its size.
    init(path: String) async throws {
        let (descriptor, size, modified) = try await Self.onQueue(queue) { () throws(PhotoLibError) -> (Int32, Int, Date) in
            let name = (path as NSString).lastPathComponent
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw SystemError(errno: errno, action: "open \(name) to upload it").photoLibError }
            var info = stat()
            guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                close(descriptor)
                throw PhotoLibError(.invalidArgument, "\(name) is not a regular file")
            }
            let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
            return (descriptor, Int(info.st_size), modified)
        }
        self.descriptor = descriptor
        self.size = size
        self.modificationDate = modified
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The next piece (at most ``pieceSize`` bytes); empty at the end of the file.
    func nextPiece() async throws -> [UInt8] {
        try await Self.onQueue(queue) { () throws(PhotoLibError) -> [UInt8] in
            var piece = [UInt8](repeating: 0, count: Self.pieceSize)
            while true {
                let count = piece.withUnsafeMutableBytes { read(self.descriptor, $0.baseAddress!, Self.pieceSize) }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw SystemError(errno: errno, action: "read the file to upload").photoLibError
                }
                piece.removeSubrange(count...)
                return piece
            }
        }
    }

    /// Runs `body` on `queue` and resumes with its result.
    private static func onQueue<T: Sendable>(_ queue: DispatchQueue, _ body: @escaping @Sendable () throws(PhotoLibError) -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            queue.async {
                do {
                    continuation.resume(returning: try body())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
