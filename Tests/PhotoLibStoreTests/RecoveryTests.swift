import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

@Suite("Crash recovery")
struct RecoveryTests {
    @Test("reopening removes leftovers in tmp/ and originals no committed row references")
    func removesOrphans() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let kept: Asset
        do {
            let library = try PhotoLibrary.open(at: temp.library)
            kept = try library.addPhoto(try SamplePhotos.bytes(0), metadata: SamplePhotos.metadata()).asset
        }
        let keptPath = try PhotoLibrary.open(at: temp.library).originalFilePath(forAsset: kept.localIdentifier)
        // What a crash leaves: a half-written temp file, and a complete original renamed into
        // place whose transaction never committed (in an existing shard and in a new one).
        let jpeg = try SamplePhotos.bytes(1)
        let keptShard = (keptPath as NSString).deletingLastPathComponent
        let orphanInShard = keptShard + "/" + UUID().uuidString.lowercased() + ".jpg"
        try Data(jpeg).write(to: URL(fileURLWithPath: orphanInShard))
        try FileManager.default.createDirectory(atPath: temp.library + "/originals/zz", withIntermediateDirectories: false)
        try Data(jpeg).write(to: URL(fileURLWithPath: temp.library + "/originals/zz/orphan.jpg"))
        try Data(jpeg.prefix(100)).write(to: URL(fileURLWithPath: temp.library + "/tmp/0a1b.part"))

        let library = try PhotoLibrary.open(at: temp.library)
        let report = library.lastRecovery
        #expect(report.performed)
        #expect(report.removedTemporaryFiles == ["tmp/0a1b.part"])
        #expect(Set(report.removedOrphanFiles) == [
            "originals/" + (keptShard as NSString).lastPathComponent + "/" + (orphanInShard as NSString).lastPathComponent,
            "originals/zz/orphan.jpg",
        ])
        #expect(report.assetsWithMissingOriginals.isEmpty)
        #expect(regularFiles(under: temp.library + "/originals").map { temp.library + "/originals/" + $0 } == [keptPath])
        #expect(regularFiles(under: temp.library + "/tmp").isEmpty)
        #expect(try library.asset(withIdentifier: kept.localIdentifier) == kept)

        // A recovered library imports the orphan's bytes normally.
        #expect(try library.addPhoto(jpeg, metadata: SamplePhotos.metadata()) != .alreadyPresent(kept))
    }

    @Test("recovery waits for exclusive use: an open instance's files are never touched")
    func skippedWhileOpen() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let first = try PhotoLibrary.open(at: temp.library)
        let inFlight = temp.library + "/tmp/in-flight.part"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: inFlight))
        let second = try PhotoLibrary.open(at: temp.library)
        #expect(!second.lastRecovery.performed)
        #expect(FileManager.default.fileExists(atPath: inFlight))
        _ = first
    }

    @Test("a lost original is reported, and reading it fails with dataLoss naming the file")
    func missingOriginal() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let asset: Asset
        let path: String
        do {
            let library = try PhotoLibrary.open(at: temp.library)
            asset = try library.addPhoto(try SamplePhotos.bytes(0), metadata: SamplePhotos.metadata()).asset
            path = try library.originalFilePath(forAsset: asset.localIdentifier)
        }
        try FileManager.default.removeItem(atPath: path)
        let library = try PhotoLibrary.open(at: temp.library)
        #expect(library.lastRecovery.assetsWithMissingOriginals == [asset.localIdentifier])
        let error = thrownError { () throws(PhotoLibError) in _ = try library.originalResource(forAsset: asset.localIdentifier) }
        #expect(error?.code == .dataLoss && error?.message.contains(path) == true)
    }
}
