import Crypto
import Foundation
internal import CPhotoLibSystem

/// The `.partial` file of ``AssetResourceManager/writeData(for:type:toFile:verify:progress:)``:
/// opened (created if missing, discarded first when it is longer than the resource), read
/// once to hash what it already holds when the transfer is checked, then appended to with
/// `write(2)`, its pages handed to the disk as it grows (``startWriteback()``), and synced.
/// Used on one queue at a time (the transfer's ``ResourceFileWriter`` queue).
final class PartialFile {
    let path: String
    private var descriptor: Int32
    /// Bytes appended since the last ``startWriteback()``, and where they begin.
    private var unflushed = 0
    private var unflushedFrom = 0

    /// Bytes written to a file before their writeback is started: enough that the writeback
    /// calls are few (one per 8 MiB), small enough that the final `fsync` has almost nothing
    /// left to wait for (230 MB: 0.07–0.09 s of `fsync` without it, 0.004 s with it).
    static let writebackStep = 8 << 20

    /// Opens `path` for a resource of `limit` bytes.
    init(path: String, limit: Int) throws(PhotoLibError) {
        self.path = path
        var status = stat()
        if stat(path, &status) == 0, Int(status.st_size) > limit { unlink(path) }
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw PhotoLibError(.failedPrecondition, "cannot open \(path) for writing (\(String(cString: strerror(errno)))): check that the folder exists and is writable")
        }
    }

    deinit { close() }

    /// Feeds the bytes already in the file to `digest`; returns how many there are, with the
    /// file positioned after them.
    func hashExisting(into digest: inout SHA256) throws(PhotoLibError) -> Int {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var total = 0
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw failure("read") }
            if count == 0 {
                unflushedFrom = total
                return total
            }
            digest.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            total += count
        }
    }

    /// Appends `bytes`; every ``writebackStep`` bytes, starts their writeback.
    func append(_ bytes: UnsafeRawBufferPointer) throws(PhotoLibError) {
        var done = 0
        while done < bytes.count {
            let count = write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw failure("write") }
            done += count
        }
        unflushed += bytes.count
        if unflushed >= Self.writebackStep { startWriteback() }
    }

    /// Starts writing the bytes appended since the last call to disk, without waiting
    /// (`sync_file_range`); a failure is left for ``synchronize()`` to report.
    func startWriteback() {
        guard unflushed > 0 else { return }
        _ = CPhotoLibSystem_start_writeback(descriptor, Int64(unflushedFrom), Int64(unflushed))
        unflushedFrom += unflushed
        unflushed = 0
    }

    /// Flushes the file to disk (`fsync`).
    func synchronize() throws(PhotoLibError) {
        guard fsync(descriptor) == 0 else { throw failure("sync") }
    }

    /// Closes the file (again: nothing).
    func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    private func failure(_ operation: String) -> PhotoLibError {
        PhotoLibError(.failedPrecondition, "cannot \(operation) \(path): \(String(cString: strerror(errno)))")
    }
}
