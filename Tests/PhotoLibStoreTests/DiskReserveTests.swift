import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

#if canImport(Glibc)
import Glibc
#endif

/// A library on a small filesystem of its own (tmpfs, mounted for the test: needs root) that
/// is then filled to the last byte.
private struct FullDisk {
    let temp: TestDirectory
    var mountPoint: String { temp.path + "/disk" }
    var library: String { mountPoint + "/Library" }

    init(megabytes: Int) throws {
        temp = try TestDirectory()
        try FileManager.default.createDirectory(atPath: temp.path + "/disk", withIntermediateDirectories: true)
        guard mount("tmpfs", temp.path + "/disk", "tmpfs", 0, "size=\(megabytes)m,mode=0700") == 0 else {
            let code = errno
            temp.cleanUp()
            throw SystemError(errno: code, action: "mount a \(megabytes) MiB tmpfs").photoLibError
        }
    }

    /// Writes a filler file until the disk refuses more; returns its size.
    @discardableResult
    func fill() -> Int {
        let descriptor = open(mountPoint + "/filler", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        defer { close(descriptor) }
        let block = [UInt8](repeating: 1, count: 4096)
        var total = 0
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 { total += 4096 }
        // The last partial block, byte by byte, so nothing at all is left.
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, 1) }) > 0 { total += 1 }
        return total
    }

    func cleanUp() {
        _ = umount2(mountPoint, Int32(MNT_DETACH))
        temp.cleanUp()
    }
}

@Suite("Disk reserve: deletes and purges work on a full disk; uploads stop before it")
struct DiskReserveTests {
    @Test("a full disk refuses uploads with 'disk full', and the owner can still trash and purge",
          .enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func fullDisk() throws {
        let disk = try FullDisk(megabytes: 24)
        defer { disk.cleanUp() }
        let library = try PhotoLibrary.open(at: disk.library, diskReserveSize: 4 << 20)
        #expect(library.diskReserve.isHeld)
        let assets = try library.createAssetsForTesting(0..<4)
        // Many small transactions grow the WAL; then a checkpoint leaves it to be rewritten.
        disk.fill()
        #expect((library.diskReserve.freeBytes() ?? 1) == 0)

        let refused = expectError { () throws(PhotoLibError) in _ = try library.beginUpload(size: 100_000) }
        #expect(refused.code == .resourceExhausted && refused.message.hasPrefix("disk full"), "\(refused.message)")
        #expect(library.diskReserve.isHeld, "a refused upload does not touch the reserve")

        _ = try library.performChanges([.deleteAssets(assets)])
        let purged = try #require(try library.purgeExpiredTrash(olderThan: 0, now: Date().addingTimeInterval(1)))
        #expect(purged.changes.filter { $0.objectType == .asset }.count == assets.count)
        #expect(try library.countAssets(AssetQuery(identifiers: assets)) == 0)
    }

    @Test("on a full disk a change that frees nothing (a favourite) is refused 'disk full' and leaves the reserve to deletes and purges",
          .enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func reserveIsForFreeingChanges() throws {
        let disk = try FullDisk(megabytes: 24)
        defer { disk.cleanUp() }
        let library = try PhotoLibrary.open(at: disk.library, diskReserveSize: 4 << 20)
        let assets = try library.createAssetsForTesting(0..<4)
        disk.fill()
        // Favourites until one finds no room (the WAL may hold room for the first few).
        var refused: PhotoLibError?
        for round in 0..<4000 where refused == nil {
            do throws(PhotoLibError) {
                _ = try library.performChanges([.setAssetProperties(.init(asset: assets[round % assets.count], isFavorite: round % 2 == 0))])
            } catch {
                refused = error
            }
        }
        let error = try #require(refused, "4000 favourites on a full disk all found room")
        #expect(error.code == .resourceExhausted && error.message.hasPrefix("disk full") && error.message.contains("photolib purge"), "\(error.message)")
        #expect(library.diskReserve.isHeld, "a favourite took the reserve")

        _ = try library.performChanges([.deleteAssets(assets)])
        _ = try library.performChanges([.purgeAssets(assets)])
        #expect(try library.countAssets(AssetQuery(identifiers: assets)) == 0)
    }

    @Test("without a reserve a purge on a completely full disk fails: the reserve is what makes it work",
          .enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func withoutReserve() throws {
        let disk = try FullDisk(megabytes: 24)
        defer { disk.cleanUp() }
        let library = try PhotoLibrary.open(at: disk.library, diskReserveSize: 0)
        let assets = try library.createAssetsForTesting(0..<4)
        disk.fill()
        let error = thrownError { () throws(PhotoLibError) in
            _ = try library.performChanges([.deleteAssets(assets)])
            _ = try library.purgeExpiredTrash(olderThan: 0, now: Date().addingTimeInterval(1))
        }
        #expect(error.map(PhotoLibrary.isDiskFull) == true, "\(error?.message ?? "no error")")
    }

    @Test("the reserve is a real allocation of its size, private, and comes back when space is freed",
          .enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func replenish() throws {
        let disk = try FullDisk(megabytes: 24)
        defer { disk.cleanUp() }
        let library = try PhotoLibrary.open(at: disk.library, diskReserveSize: 4 << 20)
        let path = disk.library + "/" + DiskReserve.fileName
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_size == 4 << 20 && info.st_blocks * 512 >= 4 << 20 && info.st_mode & 0o777 == 0o600)
        #expect(library.diskReserve.release() && !library.diskReserve.isHeld)
        #expect(stat(path, &info) != 0)
        #expect(library.replenishDiskReserve() && stat(path, &info) == 0)
    }

    @Test("a video larger than the disk's room beside the reserve is refused before a byte is copied; one that fits is imported",
          .enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func videoNeedsRoom() throws {
        let disk = try FullDisk(megabytes: 24)
        defer { disk.cleanUp() }
        let library = try PhotoLibrary.open(at: disk.library, diskReserveSize: 4 << 20)
        let movie = try Fixtures.bytes(at: Fixtures.path("Tests/Fixtures/media/video-rotated-gps.mov"))
        // A movie's head and 20 MiB more (the store checks the signature, not the contents),
        // outside the small disk: it fits the disk, but not beside the reserve.
        let large = disk.temp.path + "/large.mov"
        try Data(movie + [UInt8](repeating: 0, count: 20 << 20)).write(to: URL(fileURLWithPath: large))
        let metadata = ImportMetadata(
            originalFilename: "large.mov", pixelWidth: 64, pixelHeight: 48, creationDate: Date(timeIntervalSince1970: 1_600_000_000),
            mediaType: .video, fileType: .quickTimeMovie, duration: 1)
        let refused = expectError { () throws(PhotoLibError) in _ = try library.addVideo(fileAt: large, metadata: metadata) }
        #expect(refused.code == .resourceExhausted && refused.message.hasPrefix("disk full") && refused.message.contains("this video"), "\(refused.message)")
        #expect(library.diskReserve.isHeld, "a refused video does not touch the reserve")
        #expect(regularFiles(under: disk.library + "/tmp").isEmpty && regularFiles(under: disk.library + "/originals").isEmpty)

        let small = disk.temp.path + "/small.mov"
        try Data(movie).write(to: URL(fileURLWithPath: small))
        guard case .added = try library.addVideo(fileAt: small, metadata: metadata) else {
            Issue.record("a small video was not imported")
            return
        }
    }

    @Test("uploads in progress count against the disk: two that each fit alone but not together, the second is refused until the first is discarded",
          .enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func uploadsInFlightShareTheRoom() throws {
        let disk = try FullDisk(megabytes: 24)
        defer { disk.cleanUp() }
        let library = try PhotoLibrary.open(at: disk.library, diskReserveSize: 4 << 20)
        let free = try #require(library.diskReserve.freeBytes())
        let room = free - DiskReserve.uploadMargin
        // Each fits the room alone; two do not.
        let size = room * 2 / 3
        #expect(size > 0 && 2 * size > room, "free \(free)")

        let first = try library.beginUpload(size: size)
        #expect(library.diskReserve.promisedBytes == size)
        let refused = expectError { () throws(PhotoLibError) in _ = try library.beginUpload(size: size) }
        #expect(refused.code == .resourceExhausted && refused.message.hasPrefix("disk full"), "\(refused.message)")
        #expect(library.diskReserve.promisedBytes == size, "a refused upload promises nothing")

        first.discard()
        #expect(library.diskReserve.promisedBytes == 0)
        let second = try library.beginUpload(size: size)
        #expect(library.diskReserve.promisedBytes == size)
        second.discard()
        second.discard()
        #expect(library.diskReserve.promisedBytes == 0, "a discard releases the room once")
    }
}
