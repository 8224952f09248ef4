import Dispatch
import Foundation
import PhotoLibCore
import Testing
@testable import PhotoLibStore

@Suite("Image sources: remembered rows never outlive a commit")
struct ImageSourceTests {
    @Test("another instance's commit (another process, as far as SQLite knows) moves the content version at once")
    func otherConnectionsCommit() throws {
        let temp = try TemporaryDirectory()
        defer { temp.cleanUp() }
        let server = try PhotoLibrary.open(at: temp.library)
        let other = try PhotoLibrary.open(at: temp.library)
        let asset = try other.addPhoto(try SamplePhotos.uniqueBytes(0), metadata: SamplePhotos.metadata()).asset.localIdentifier
        let first = try server.imageSource(forAsset: asset)
        #expect(try server.imageSource(forAsset: asset) == first, "nothing changed: the same source")
        try other.bumpContentVersion(forAsset: asset)
        let bumped = try server.imageSource(forAsset: asset)
        #expect(bumped.contentVersion != first.contentVersion)
        #expect(bumped.current == first.current)
    }

    @Test("a request that arrived after another instance's commit sees it, even when a version check was reused before")
    func receivedAfterCommit() throws {
        let temp = try TemporaryDirectory()
        defer { temp.cleanUp() }
        let server = try PhotoLibrary.open(at: temp.library)
        let other = try PhotoLibrary.open(at: temp.library)
        let asset = try other.addPhoto(try SamplePhotos.uniqueBytes(4), metadata: SamplePhotos.metadata()).asset.localIdentifier
        let batch = DispatchTime.now().uptimeNanoseconds
        let first = try server.imageSource(forAsset: asset, receivedAt: batch)
        #expect(try server.imageSource(forAsset: asset, receivedAt: batch) == first, "the same batch: the same answer")
        try other.bumpContentVersion(forAsset: asset)
        let arrived = DispatchTime.now().uptimeNanoseconds
        #expect(try server.imageSource(forAsset: asset, receivedAt: arrived).contentVersion != first.contentVersion)
        // This instance's own commits count at once, whatever the arrival time.
        try server.bumpContentVersion(forAsset: asset)
        let afterOwn = try server.imageSource(forAsset: asset, receivedAt: batch)
        #expect(afterOwn.contentVersion != first.contentVersion)
        try server.bumpContentVersion(forAsset: asset)
        #expect(try server.imageSource(forAsset: asset, receivedAt: batch).contentVersion != afterOwn.contentVersion)
    }

    @Test("this instance's own commit moves it too, and a purged asset is not found")
    func ownCommit() throws {
        let temp = try TemporaryDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let asset = try library.addPhoto(try SamplePhotos.uniqueBytes(1), metadata: SamplePhotos.metadata()).asset.localIdentifier
        let first = try library.imageSource(forAsset: asset)
        try library.bumpContentVersion(forAsset: asset)
        #expect(try library.imageSource(forAsset: asset).contentVersion != first.contentVersion)
        _ = try library.performChanges([.deleteAssets([asset])])
        _ = try library.performChanges([.purgeAssets([asset])])
        let error = thrownError { () throws(PhotoLibError) in _ = try library.imageSource(forAsset: asset) }
        #expect(error?.code == .notFound)
    }

    @Test("an unknown asset is not found, before and after it is imported elsewhere")
    func unknownThenImported() throws {
        let temp = try TemporaryDirectory()
        defer { temp.cleanUp() }
        let server = try PhotoLibrary.open(at: temp.library)
        let other = try PhotoLibrary.open(at: temp.library)
        #expect(thrownError { () throws(PhotoLibError) in _ = try server.imageSource(forAsset: LocalIdentifier.newAsset()) }?.code == .notFound)
        let asset = try other.addPhoto(try SamplePhotos.uniqueBytes(2), metadata: SamplePhotos.metadata()).asset.localIdentifier
        #expect(try server.imageSource(forAsset: asset).current.assetIdentifier == asset)
    }
}
