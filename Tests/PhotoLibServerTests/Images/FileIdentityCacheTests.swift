import Dispatch
import Foundation
import PhotoLibCore
import Testing
import PhotoLibStore
import PhotoLibTestSupport
@testable import PhotoLibServer

#if canImport(Glibc)
import Glibc
#endif

@Suite("File identities: remembered until inotify reports a change under the library")
struct FileIdentityCacheTests {
    /// A library-like tree: ROOT/originals/ab/photo.jpg.
    private struct Tree {
        let temp: TestDirectory
        var root: String { temp.path + "/root" }
        var shard: String { root + "/originals/ab" }
        var file: String { shard + "/photo.jpg" }

        init() throws {
            temp = try TestDirectory()
            try FileManager.default.createDirectory(atPath: shard, withIntermediateDirectories: true)
            try write([1, 2, 3], to: file)
        }

        func write(_ bytes: [UInt8], to path: String) throws {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }

        func append(_ bytes: [UInt8]) throws {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(bytes))
            try handle.close()
        }
    }

    @Test("a repeated identity costs no stat, and every kind of change is seen at once")
    func changesAreSeen() throws {
        let tree = try Tree()
        defer { tree.temp.cleanUp() }
        let cache = FileIdentityCache(root: tree.root)
        var last = try cache.identity(of: tree.file, receivedAt: nil)
        for _ in 0..<100 { #expect(try cache.identity(of: tree.file, receivedAt: nil) == last) }
        #expect(cache.isWatching)
        #expect(cache.statCount == 1, "remembered identities are not stat'ed again")

        func expectChange(_ what: String, _ change: () throws -> Void) throws {
            try change()
            let now = try cache.identity(of: tree.file, receivedAt: nil)
            #expect(now != last, "\(what) was not seen")
            last = now
        }
        try expectChange("an append") { try tree.append([4]) }
        try expectChange("a new modification time") {
            var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, tree.file, &times, 0) == 0)
        }
        try expectChange("a file renamed over it") {
            try tree.write([1, 2, 3, 4], to: tree.shard + "/new")
            #expect(rename(tree.shard + "/new", tree.file) == 0)
        }
        try expectChange("its directory replaced") {
            #expect(rename(tree.shard, tree.shard + ".old") == 0)
            try FileManager.default.createDirectory(atPath: tree.shard, withIntermediateDirectories: true)
            try tree.write([9, 9, 9, 9], to: tree.file)
        }
        try expectChange("a change in the new directory") { try tree.append([5]) }
        try expectChange("a parent directory replaced") {
            #expect(rename(tree.root + "/originals", tree.root + "/originals.old") == 0)
            try FileManager.default.createDirectory(atPath: tree.shard, withIntermediateDirectories: true)
            try tree.write([7, 7, 7, 7, 7], to: tree.file)
        }
        try expectChange("a change after that") { try tree.append([6]) }
        let missing = #expect(throws: SystemError.self) {
            #expect(unlink(tree.file) == 0)
            _ = try cache.identity(of: tree.file, receivedAt: nil)
        }
        #expect(missing?.errno == ENOENT)
    }

    @Test("one read of the events after a request arrived serves the requests that arrived before it")
    func receivedAt() throws {
        let tree = try Tree()
        defer { tree.temp.cleanUp() }
        let cache = FileIdentityCache(root: tree.root)
        let batch = DispatchTime.now().uptimeNanoseconds
        let first = try cache.identity(of: tree.file, receivedAt: batch)
        #expect(try cache.identity(of: tree.file, receivedAt: batch) == first)
        try tree.append([4])
        let arrived = DispatchTime.now().uptimeNanoseconds
        #expect(try cache.identity(of: tree.file, receivedAt: arrived) != first, "a request that arrived after the change sees it")
    }

    @Test("without inotify, or outside the library, every call stats and is still right")
    func withoutWatching() throws {
        let tree = try Tree()
        defer { tree.temp.cleanUp() }
        let unwatched = FileIdentityCache(root: tree.root, watching: false)
        let first = try unwatched.identity(of: tree.file, receivedAt: nil)
        try tree.append([4])
        #expect(try unwatched.identity(of: tree.file, receivedAt: nil) != first)
        #expect(unwatched.statCount == 2)
        let elsewhere = FileIdentityCache(root: tree.root + "/originals/zz")
        _ = try elsewhere.identity(of: tree.file, receivedAt: nil)
        _ = try elsewhere.identity(of: tree.file, receivedAt: nil)
        #expect(elsewhere.statCount == 2, "a file outside the root is never remembered")
    }

    @Test("an original replaced behind the library's back moves the asset's content version")
    func originalReplacedBehindTheLibrarysBack() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let librarySources = ImageSourceResolver(library: library)
        let asset = try library.addPhoto(try Fixtures.uniqueJPEG(3), metadata: ImageSourceTests.metadata).asset.localIdentifier
        let first = try librarySources.imageSource(forAsset: asset)
        #expect(try librarySources.imageSource(forAsset: asset) == first)
        let path = first.current.path
        let replacement = path + ".replacement"
        try Data(try Fixtures.uniqueJPEG(5)).write(to: URL(fileURLWithPath: replacement))
        #expect(rename(replacement, path) == 0)
        let second = try librarySources.imageSource(forAsset: asset)
        #expect(second.contentVersion != first.contentVersion)
        #expect(unlink(path) == 0)
        let error = thrownError { () throws(PhotoLibError) in _ = try librarySources.imageSource(forAsset: asset) }
        #expect(error?.code == .dataLoss)
    }
}
