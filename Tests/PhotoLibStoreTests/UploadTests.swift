import Crypto
import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

@Suite("Staged uploads")
struct UploadTests {
    @Test("staging writes the bytes under uploads/, hashes them, and expires after the lifetime")
    func stage() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library, uploadLimits: UploadLimits(lifetime: 600))
        let bytes = try SamplePhotos.uniqueBytes(0)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let upload = try library.stageUpload(bytes, metadata: SamplePhotos.metadata(), now: now)
        #expect(upload.sha256 == SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined())
        #expect(upload.size == bytes.count && upload.existingAssetIdentifier == nil)
        #expect(upload.expiresAt == now.addingTimeInterval(600))
        #expect(regularFiles(under: temp.library + "/uploads") == [upload.uploadID])
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: temp.library + "/uploads/" + upload.uploadID))) == bytes)
        #expect(regularFiles(under: temp.library + "/tmp").isEmpty)
        #expect(try library.stagedUpload(withID: upload.uploadID, now: now) == upload)
        #expect(try library.stagedUpload(withID: upload.uploadID, now: now.addingTimeInterval(600)) == nil)

        // Expired: createAsset refuses it, purging removes row and file.
        let expired = expectError { () throws(PhotoLibError) in
            _ = try library.performChanges([.createAsset(.init(uploadID: upload.uploadID))], now: now.addingTimeInterval(601))
        }
        #expect(expired.code == .failedPrecondition && expired.failedRequestIndex == 0)
        #expect(try library.purgeExpiredUploads(now: now.addingTimeInterval(599)) == 0)
        #expect(try library.purgeExpiredUploads(now: now.addingTimeInterval(600)) == 1)
        #expect(regularFiles(under: temp.library + "/uploads").isEmpty)
        let gone = expectError { () throws(PhotoLibError) in
            _ = try library.performChanges([.createAsset(.init(uploadID: upload.uploadID))], now: now)
        }
        #expect(gone.code == .notFound && gone.message.contains(upload.uploadID))
    }

    @Test("bad uploads are refused: empty, not a JPEG, bad metadata, too many waiting")
    func limits() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library, uploadLimits: UploadLimits(lifetime: 60, maximumCount: 2))
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(expectError { () throws(PhotoLibError) in _ = try library.stageUpload([], metadata: SamplePhotos.metadata(), now: now) }.code == .invalidArgument)
        let notJPEG = expectError { () throws(PhotoLibError) in _ = try library.stageUpload(Array("GIF89a...".utf8), metadata: SamplePhotos.metadata(), now: now) }
        #expect(notJPEG.code == .invalidArgument && notJPEG.reason == .invalidImage)
        var metadata = SamplePhotos.metadata()
        metadata.pixelWidth = 0
        let bytes = try (0..<3).map { try SamplePhotos.uniqueBytes($0) }
        #expect(expectError { () throws(PhotoLibError) in _ = try library.stageUpload(bytes[0], metadata: metadata, now: now) }.code == .invalidArgument)
        #expect(regularFiles(under: temp.library + "/uploads").isEmpty)

        _ = try library.stageUpload(try SamplePhotos.uniqueBytes(0), metadata: SamplePhotos.metadata(), now: now)
        _ = try library.stageUpload(try SamplePhotos.uniqueBytes(1), metadata: SamplePhotos.metadata(), now: now)
        let full = expectError { () throws(PhotoLibError) in _ = try library.stageUpload(bytes[2], metadata: SamplePhotos.metadata(), now: now) }
        #expect(full.code == .resourceExhausted)
        #expect(regularFiles(under: temp.library + "/uploads").count == 2)
        // Expired ones no longer count.
        _ = try library.stageUpload(try SamplePhotos.uniqueBytes(2), metadata: SamplePhotos.metadata(), now: now.addingTimeInterval(61))
        #expect(expectError { () throws(PhotoLibError) in _ = try PhotoLibrary.open(at: temp.library, uploadLimits: UploadLimits(lifetime: 0)) }.code == .invalidArgument)
    }

    @Test("dedupe: the same bytes staged again name the existing asset, and createAsset resolves to it")
    func dedupe() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let bytes = try SamplePhotos.uniqueBytes(3)
        let first = try library.stageUpload(bytes, metadata: SamplePhotos.metadata())
        let created = try library.performChanges([.createAsset(.init(uploadID: first.uploadID, placeholder: "$p"))])
        let asset = try #require(created.placeholders["$p"])

        let second = try library.stageUpload(bytes, metadata: SamplePhotos.metadata("OTHER.JPG"))
        #expect(second.existingAssetIdentifier == asset && second.sha256 == first.sha256 && second.uploadID != first.uploadID)
        let token = try library.currentChangeToken()
        let again = try library.performChanges([
            .createAsset(.init(uploadID: second.uploadID, placeholder: "$q", isFavorite: true)),
            .createAlbum(title: "A", placeholder: "$a", parentFolder: nil),
            .addAssets(album: "$a", assets: ["$q"]),
        ])
        #expect(again.placeholders["$q"] == asset)
        // Nothing new was created: the asset is only added to the new album.
        #expect(!again.changes.contains { $0.objectType == .asset })
        #expect(try library.fetchAssetIdentifiers(AssetQuery()) == [asset])
        #expect(try library.asset(withIdentifier: asset)?.isFavorite == false)
        #expect(again.token == token + 1)
        #expect(regularFiles(under: temp.library + "/uploads").isEmpty)
        #expect(regularFiles(under: temp.library + "/originals").count == 1)
        // addPhoto sees the same bytes too.
        let existing = try #require(try library.asset(withIdentifier: asset))
        #expect(try library.addPhoto(bytes, metadata: SamplePhotos.metadata()) == .alreadyPresent(existing))

        // Re-uploading a photo in Recently Deleted brings it back.
        _ = try library.performChanges([.deleteAssets([asset])])
        let third = try library.stageUpload(bytes, metadata: SamplePhotos.metadata())
        let restored = try library.performChanges([.createAsset(.init(uploadID: third.uploadID, placeholder: "$r"))])
        #expect(restored.placeholders["$r"] == asset)
        #expect(try library.fetchAssetIdentifiers(AssetQuery()) == [asset])
    }

    @Test("createAsset overrides the upload's metadata: date, location cleared or set, favourite, hidden")
    func overrides() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let a = try library.stageUpload(try SamplePhotos.uniqueBytes(0), metadata: SamplePhotos.metadata("A.JPG"))
        let b = try library.stageUpload(try SamplePhotos.uniqueBytes(1), metadata: SamplePhotos.metadata("B.JPG"))
        let date = Date(timeIntervalSince1970: 1_000_000_000)
        let place = Location(latitude: 1, longitude: 2, altitude: 3)
        let result = try library.performChanges([
            .createAsset(.init(uploadID: a.uploadID, placeholder: "$a", creationDate: date, location: .clear, isHidden: true)),
            .createAsset(.init(uploadID: b.uploadID, placeholder: "$b", location: .set(place), isFavorite: true)),
        ])
        let firstID = try #require(result.placeholders["$a"])
        let secondID = try #require(result.placeholders["$b"])
        let first = try #require(try library.asset(withIdentifier: firstID))
        let second = try #require(try library.asset(withIdentifier: secondID))
        #expect(first.creationDate == date && first.location == nil && first.isHidden && !first.isFavorite)
        #expect(second.creationDate == SamplePhotos.metadata().creationDate && second.location == place && second.isFavorite)
        #expect(second.pixelWidth == 5312 && second.pixelHeight == 2988)
        #expect(try library.originalResource(forAsset: second.localIdentifier).originalFilename == "B.JPG")
        #expect(try library.fetchAssetIdentifiers(AssetQuery()) == [second.localIdentifier])
    }

    @Test("recovery removes upload files without a row and rows whose file is gone")
    func recovery() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let kept: Upload
        let lost: Upload
        do {
            let library = try PhotoLibrary.open(at: temp.library)
            kept = try library.stageUpload(try SamplePhotos.uniqueBytes(0), metadata: SamplePhotos.metadata())
            lost = try library.stageUpload(try SamplePhotos.uniqueBytes(1), metadata: SamplePhotos.metadata())
        }
        try FileManager.default.removeItem(atPath: temp.library + "/uploads/" + lost.uploadID)
        try Data([0xFF, 0xD8, 0xFF]).write(to: URL(fileURLWithPath: temp.library + "/uploads/orphan"))
        let library = try PhotoLibrary.open(at: temp.library)
        #expect(library.lastRecovery.removedOrphanUploads == ["uploads/orphan"])
        #expect(library.lastRecovery.droppedStagedUploads == [lost.uploadID])
        #expect(!library.lastRecovery.isClean)
        #expect(regularFiles(under: temp.library + "/uploads") == [kept.uploadID])
        #expect(try library.stagedUpload(withID: lost.uploadID) == nil)
        #expect(try library.stagedUpload(withID: kept.uploadID)?.sha256 == kept.sha256)
        #expect(try PhotoLibrary.open(at: temp.library).lastRecovery.isClean)
    }
}
