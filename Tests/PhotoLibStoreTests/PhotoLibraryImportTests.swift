import Crypto
import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

#if canImport(Glibc)
import Glibc
#endif

@Suite("Opening, importing and reopening a library")
struct PhotoLibraryImportTests {
    @Test("a library keeps its assets, identifier and files across reopen")
    func createAndReopen() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let bytes = try SamplePhotos.bytes(0)
        let added: Asset
        let identifier: String
        do {
            let library = try PhotoLibrary.open(at: temp.library)
            identifier = library.libraryIdentifier
            #expect(UUID(uuidString: identifier) != nil)
            #expect(library.lastRecovery.performed && library.lastRecovery.isClean)
            let outcome = try library.addPhoto(bytes, metadata: SamplePhotos.metadata())
            guard case .added(let asset) = outcome else {
                Issue.record("expected .added, got \(outcome)")
                return
            }
            added = asset
            #expect(asset.pixelWidth == 5312 && asset.pixelHeight == 2988)
            #expect(asset.creationDate == Date(timeIntervalSince1970: 1_600_000_000))
            #expect(asset.location == Location(latitude: 48.8566, longitude: 2.3522, altitude: 35))
            #expect(!asset.isFavorite && !asset.isHidden && asset.mediaType == .image)
        }
        let reopened = try PhotoLibrary.open(at: temp.library, createIfMissing: false)
        #expect(reopened.libraryIdentifier == identifier)
        #expect(reopened.lastRecovery.performed && reopened.lastRecovery.isClean)
        #expect(try reopened.asset(withIdentifier: added.localIdentifier) == added)
        #expect(try reopened.fetchAssetIdentifiers(AssetQuery()) == [added.localIdentifier])

        let resource = try reopened.originalResource(forAsset: added.localIdentifier)
        #expect(resource.originalFilename == "IMG_0001.JPG")
        #expect(resource.byteSize == bytes.count)
        #expect(resource.uniformTypeIdentifier == "public.jpeg")
        #expect(resource.type == .photo)
        #expect(resource.sha256 == SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined())
        #expect(resource.path.hasPrefix(temp.library + "/originals/"))
        #expect(try reopened.originalFilePath(forAsset: added.localIdentifier) == resource.path)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: resource.path))) == bytes)
        #expect(regularFiles(under: temp.library + "/tmp").isEmpty)
    }

    @Test("the owner token is 64 hex digits, mode 0600, and stable across reopen")
    func ownerToken() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let first = try PhotoLibrary.open(at: temp.library).ownerToken()
        #expect(first.count == 64 && first.allSatisfy(\.isHexDigit) && first == first.lowercased())
        var info = stat()
        #expect(stat(temp.library + "/owner.token", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let again = try PhotoLibrary.open(at: temp.library).ownerToken()
        #expect(again == first)

        let other = try TestDirectory()
        defer { other.cleanUp() }
        #expect(try PhotoLibrary.open(at: other.library).ownerToken() != first)

        // A token others can read is refused, with the fix in the message.
        #expect(chmod(temp.library + "/owner.token", 0o644) == 0)
        let library = try PhotoLibrary.open(at: temp.library)
        let error = thrownError { () throws(PhotoLibError) in _ = try library.ownerToken() }
        #expect(error?.code == .failedPrecondition)
        #expect(error?.message.contains("chmod 600") == true)
    }

    @Test("importing the same bytes twice gives the existing asset and writes one file")
    func dedupe() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let bytes = try SamplePhotos.bytes(1)
        let first = try library.addPhoto(bytes, metadata: SamplePhotos.metadata("a.jpg"))
        let second = try library.addPhoto(bytes, metadata: SamplePhotos.metadata("b.jpg", date: 1))
        guard case .added(let asset) = first, case .alreadyPresent(let existing) = second else {
            Issue.record("expected .added then .alreadyPresent, got \(first) and \(second)")
            return
        }
        #expect(existing == asset)
        #expect(second.asset == first.asset)
        #expect(regularFiles(under: temp.library + "/originals").count == 1)
        #expect(try library.countAssets(AssetQuery()) == 1)

        // One byte more is another photo.
        let third = try library.addPhoto(bytes + [0], metadata: SamplePhotos.metadata("c.jpg"))
        guard case .added(let other) = third else {
            Issue.record("expected .added, got \(third)")
            return
        }
        #expect(other.localIdentifier != asset.localIdentifier)
        #expect(regularFiles(under: temp.library + "/originals").count == 2)
    }

    @Test("two instances on one directory see each other's imports, and dataVersion moves")
    func dataVersionAcrossInstances() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let server = try PhotoLibrary.open(at: temp.library)
        let importer = try PhotoLibrary.open(at: temp.library)
        // The second opener must not run recovery while the first has the library open.
        #expect(!importer.lastRecovery.performed)

        let before = try server.dataVersion()
        #expect(try server.dataVersion() == before)
        let outcome = try importer.addPhoto(try SamplePhotos.bytes(2), metadata: SamplePhotos.metadata())
        let afterImport = try server.dataVersion()
        #expect(afterImport != before)
        #expect(try server.asset(withIdentifier: outcome.asset.localIdentifier) == outcome.asset)

        // The server's own commits move it too.
        try server.setFavorite(true, forAssets: [outcome.asset.localIdentifier])
        #expect(try server.dataVersion() != afterImport)
        #expect(try importer.asset(withIdentifier: outcome.asset.localIdentifier)?.isFavorite == true)

        // The same bytes through the other instance: deduplicated across connections.
        let again = try server.addPhoto(try SamplePhotos.bytes(2), metadata: SamplePhotos.metadata())
        #expect(again == .alreadyPresent(try #require(try importer.asset(withIdentifier: outcome.asset.localIdentifier))))
    }

    @Test("dataVersion asks SQLite again only once something committed, in either instance")
    func dataVersionAsksOnlyAfterACommit() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let server = try PhotoLibrary.open(at: temp.library)
        let importer = try PhotoLibrary.open(at: temp.library)
        // The first answers ask: the WAL-index is mapped by the first read, and its header
        // is remembered with the answer after it.
        let before = try server.externalDataVersion()
        #expect(try server.externalDataVersion() == before)
        let asked = server.dataVersionQueryCount
        for _ in 0..<5 { #expect(try server.externalDataVersion() == before) }
        #expect(server.dataVersionQueryCount == asked)

        // Another instance's commit (another connection, as another process's would be).
        let outcome = try importer.addPhoto(try SamplePhotos.bytes(2), metadata: SamplePhotos.metadata())
        let afterImport = try server.externalDataVersion()
        #expect(afterImport != before)
        #expect(server.dataVersionQueryCount == asked + 1)
        #expect(try server.externalDataVersion() == afterImport)
        #expect(server.dataVersionQueryCount == asked + 1)

        // This instance's own writer: its connection is another one than the version's.
        try server.setFavorite(true, forAssets: [outcome.asset.localIdentifier])
        #expect(try server.externalDataVersion() != afterImport)
        #expect(server.dataVersionQueryCount == asked + 2)
    }

    @Test("bad photos and metadata are refused with errors naming the problem")
    func badImports() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let jpeg = try SamplePhotos.bytes(0)

        let notJPEG = thrownError { () throws(PhotoLibError) in _ = try library.addPhoto(Array("GIF89a....".utf8), metadata: SamplePhotos.metadata("x.gif")) }
        #expect(notJPEG?.code == .invalidArgument && notJPEG?.reason == .invalidImage)
        #expect(notJPEG?.message.contains("x.gif") == true)
        let empty = thrownError { () throws(PhotoLibError) in _ = try library.addPhoto([], metadata: SamplePhotos.metadata()) }
        #expect(empty?.code == .invalidArgument)

        var metadata = SamplePhotos.metadata()
        metadata.pixelWidth = 0
        #expect(thrownError { () throws(PhotoLibError) in _ = try library.addPhoto(jpeg, metadata: metadata) }?.code == .invalidArgument)
        metadata = SamplePhotos.metadata("dir/evil.jpg")
        #expect(thrownError { () throws(PhotoLibError) in _ = try library.addPhoto(jpeg, metadata: metadata) }?.reason == .invalidText)
        metadata = SamplePhotos.metadata(String(repeating: "n", count: 256))
        #expect(thrownError { () throws(PhotoLibError) in _ = try library.addPhoto(jpeg, metadata: metadata) }?.code == .invalidArgument)
        metadata = SamplePhotos.metadata()
        metadata.orientation = 9
        #expect(thrownError { () throws(PhotoLibError) in _ = try library.addPhoto(jpeg, metadata: metadata) }?.code == .invalidArgument)
        metadata = SamplePhotos.metadata()
        metadata.location = Location(latitude: 91, longitude: 0)
        #expect(thrownError { () throws(PhotoLibError) in _ = try library.addPhoto(jpeg, metadata: metadata) }?.code == .invalidArgument)
        metadata = SamplePhotos.metadata()
        metadata.creationDate = Date(timeIntervalSince1970: .infinity)
        #expect(thrownError { () throws(PhotoLibError) in _ = try library.addPhoto(jpeg, metadata: metadata) }?.code == .invalidArgument)

        // Nothing was written by any of them.
        #expect(try library.countAssets(AssetQuery()) == 0)
        #expect(regularFiles(under: temp.library + "/originals").isEmpty)
        #expect(regularFiles(under: temp.library + "/tmp").isEmpty)

        let unknown = LocalIdentifier.newAsset()
        #expect(try library.asset(withIdentifier: unknown) == nil)
        let missing = thrownError { () throws(PhotoLibError) in _ = try library.originalFilePath(forAsset: unknown) }
        #expect(missing?.code == .notFound && missing?.message.contains(unknown) == true)
        #expect(thrownError { () throws(PhotoLibError) in _ = try library.asset(withIdentifier: "") }?.code == .invalidArgument)
        #expect(thrownError { () throws(PhotoLibError) in _ = try library.asset(withIdentifier: "has space") }?.code == .invalidArgument)
    }

    @Test("open refuses a missing library without createIfMissing and a directory that is not a library")
    func badDirectories() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let missing = thrownError { () throws(PhotoLibError) in _ = try PhotoLibrary.open(at: temp.library, createIfMissing: false) }
        #expect(missing?.code == .notFound && missing?.message.contains(temp.library) == true)
        #expect(!FileManager.default.fileExists(atPath: temp.library))

        try Data("notes".utf8).write(to: URL(fileURLWithPath: temp.path + "/notes.txt"))
        let foreign = thrownError { () throws(PhotoLibError) in _ = try PhotoLibrary.open(at: temp.path) }
        #expect(foreign?.code == .failedPrecondition)
        #expect(!FileManager.default.fileExists(atPath: temp.path + "/library.sqlite"))

        // An existing empty directory becomes a library.
        try FileManager.default.createDirectory(atPath: temp.library, withIntermediateDirectories: false)
        let library = try PhotoLibrary.open(at: temp.library, createIfMissing: true)
        #expect(FileManager.default.fileExists(atPath: library.directory + "/library.sqlite"))
    }
}
