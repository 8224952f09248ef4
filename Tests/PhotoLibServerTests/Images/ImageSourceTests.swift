import Dispatch
import Foundation
import PhotoLibCore
import Testing
import PhotoLibStore
import PhotoLibTestSupport
@testable import PhotoLibServer

@Suite("Image sources: remembered rows never outlive a commit")
struct ImageSourceTests {
    /// Metadata for a test photo, passed explicitly (the store does not parse images).
    static let metadata = ImportMetadata(
        originalFilename: "IMG_0001.JPG", pixelWidth: 5312, pixelHeight: 2988, creationDate: Date(timeIntervalSince1970: 1_600_000_000))

    /// A library opened twice on one directory: `server` with the resolver under test, and
    /// `other`, whose commits reach `server` as another process's would.
    struct TwoInstances {
        let temp: TestDirectory
        let server: PhotoLibrary
        let sources: ImageSourceResolver
        let other: PhotoLibrary

        init() throws {
            temp = try TestDirectory()
            server = try PhotoLibrary.open(at: temp.library)
            sources = ImageSourceResolver(library: server)
            other = try PhotoLibrary.open(at: temp.library)
        }

        /// A photo imported by `other`, by its identifier.
        func photoFromOther(_ seed: Int) throws -> String {
            try other.addPhoto(try Fixtures.uniqueJPEG(seed), metadata: ImageSourceTests.metadata).asset.localIdentifier
        }
    }

    /// Appends two bytes to the file at `path`: another file under the same rows, as far as
    /// its identity goes (what a disk repair or a stray write would leave).
    static func appendBytes(to path: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0xFF, 0xD9]))
        try handle.close()
    }

    @Test("another instance's commit (another process, as far as SQLite knows) moves the content version at once")
    func otherConnectionsCommit() throws {
        let instances = try TwoInstances()
        defer { instances.temp.cleanUp() }
        let (serverSources, other) = (instances.sources, instances.other)
        let asset = try instances.photoFromOther(0)
        let first = try serverSources.imageSource(forAsset: asset)
        #expect(try serverSources.imageSource(forAsset: asset) == first, "nothing changed: the same source")
        try other.bumpContentVersion(forAsset: asset)
        let bumped = try serverSources.imageSource(forAsset: asset)
        #expect(bumped.contentVersion != first.contentVersion)
        #expect(bumped.current == first.current)
    }

    @Test("a request that arrived after another instance's commit sees it, even when a version check was reused before")
    func receivedAfterCommit() throws {
        let instances = try TwoInstances()
        defer { instances.temp.cleanUp() }
        let (server, serverSources, other) = (instances.server, instances.sources, instances.other)
        let asset = try instances.photoFromOther(4)
        let batch = DispatchTime.now().uptimeNanoseconds
        let first = try serverSources.imageSource(forAsset: asset, receivedAt: batch)
        #expect(try serverSources.imageSource(forAsset: asset, receivedAt: batch) == first, "the same batch: the same answer")
        try other.bumpContentVersion(forAsset: asset)
        let arrived = DispatchTime.now().uptimeNanoseconds
        #expect(try serverSources.imageSource(forAsset: asset, receivedAt: arrived).contentVersion != first.contentVersion)
        // This instance's own commits count at once, whatever the arrival time.
        try server.bumpContentVersion(forAsset: asset)
        let afterOwn = try serverSources.imageSource(forAsset: asset, receivedAt: batch)
        #expect(afterOwn.contentVersion != first.contentVersion)
        try server.bumpContentVersion(forAsset: asset)
        #expect(try serverSources.imageSource(forAsset: asset, receivedAt: batch).contentVersion != afterOwn.contentVersion)
    }

    @Test("a file changed on disk under the same rows moves the version once, and the new source is remembered")
    func fileChangedUnderTheSameRows() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let sources = ImageSourceResolver(library: library)
        let asset = try library.addPhoto(try Fixtures.uniqueJPEG(2), metadata: ImageSourceTests.metadata).asset.localIdentifier
        let first = try sources.imageSource(forAsset: asset)
        #expect(try sources.imageSource(forAsset: asset) == first, "nothing changed: the remembered source")
        #expect(sources.madeSourceCount == 1, "handed out again, not made anew")
        // The same rows, another file under the path (what a disk repair or a stray write
        // would leave): its identity is not the one the source was made from.
        try Self.appendBytes(to: first.current.path)
        let changed = try sources.imageSource(forAsset: asset, receivedAt: DispatchTime.now().uptimeNanoseconds)
        #expect(changed.contentVersion != first.contentVersion)
        #expect(changed.current == first.current, "the same rows")
        #expect(sources.madeSourceCount == 2, "made once for the changed file")
        #expect(try sources.imageSource(forAsset: asset) == changed, "the new source is the one remembered")
        #expect(sources.madeSourceCount == 2, "the new source is handed out again, not made anew")
    }

    @Test("the connection queue's look-up hands out a remembered source only while it is current, and never reads rows or files")
    func rememberedSourceOnly() throws {
        let instances = try TwoInstances()
        defer { instances.temp.cleanUp() }
        let (sources, other) = (instances.sources, instances.other)
        let asset = try instances.photoFromOther(3)
        #expect(try sources.rememberedSource(forValidAsset: asset, receivedAt: nil) == nil, "nothing remembered yet")
        #expect(sources.madeSourceCount == 0 && sources.statCount == 0, "no source made, no file looked at")

        let first = try sources.imageSource(forAsset: asset)
        let stats = sources.statCount
        #expect(try sources.rememberedSource(forValidAsset: asset, receivedAt: nil) == first)
        #expect(sources.madeSourceCount == 1 && sources.statCount == stats)

        // Another instance's commit: the rows may have changed, so it is not the answer.
        try other.bumpContentVersion(forAsset: asset)
        #expect(try sources.rememberedSource(forValidAsset: asset, receivedAt: DispatchTime.now().uptimeNanoseconds) == nil)
        #expect(sources.madeSourceCount == 1 && sources.statCount == stats, "the look-up made nothing")
        let bumped = try sources.imageSource(forAsset: asset)
        #expect(bumped.contentVersion != first.contentVersion)
        #expect(try sources.rememberedSource(forValidAsset: asset, receivedAt: nil) == bumped, "remembered again by the full look-up")

        // A change to the file: its identity must be taken again, which is not the queue's to do.
        try Self.appendBytes(to: bumped.current.path)
        let statsBefore = sources.statCount
        #expect(try sources.rememberedSource(forValidAsset: asset, receivedAt: DispatchTime.now().uptimeNanoseconds) == nil)
        #expect(sources.statCount == statsBefore, "no stat on the queue")
        let changed = try sources.imageSource(forAsset: asset, receivedAt: DispatchTime.now().uptimeNanoseconds)
        #expect(changed.contentVersion != bumped.contentVersion)
        #expect(try sources.rememberedSource(forValidAsset: asset, receivedAt: nil) == changed)
    }

    @Test("this instance's own commit moves it too, and a purged asset is not found")
    func ownCommit() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let librarySources = ImageSourceResolver(library: library)
        let asset = try library.addPhoto(try Fixtures.uniqueJPEG(1), metadata: ImageSourceTests.metadata).asset.localIdentifier
        let first = try librarySources.imageSource(forAsset: asset)
        try library.bumpContentVersion(forAsset: asset)
        #expect(try librarySources.imageSource(forAsset: asset).contentVersion != first.contentVersion)
        _ = try library.performChanges([.deleteAssets([asset])])
        _ = try library.performChanges([.purgeAssets([asset])])
        let error = thrownError { () throws(PhotoLibError) in _ = try librarySources.imageSource(forAsset: asset) }
        #expect(error?.code == .notFound)
    }

    @Test("an unknown asset is not found, before and after it is imported elsewhere")
    func unknownThenImported() throws {
        let instances = try TwoInstances()
        defer { instances.temp.cleanUp() }
        let (serverSources, other) = (instances.sources, instances.other)
        #expect(thrownError { () throws(PhotoLibError) in _ = try serverSources.imageSource(forAsset: LocalIdentifier.newAsset()) }?.code == .notFound)
        let asset = try other.addPhoto(try Fixtures.uniqueJPEG(2), metadata: ImageSourceTests.metadata).asset.localIdentifier
        #expect(try serverSources.imageSource(forAsset: asset).current.assetIdentifier == asset)
    }
}
