import Foundation
import PhotoLibCore
import PhotoLibStore
import PhotoLibTestSupport
import Testing

@testable import PhotoLibServer

@Suite("PhotoIntake: imports and uploads enter the library the same way")
struct PhotoIntakeTests {
    @Test("a photo imported, imported again, then uploaded: one asset, read from its own bytes")
    func importThenUpload() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let intake = PhotoIntake(library: try PhotoLibrary.open(at: temp.library))
        let bytes = try Fixtures.bytes(at: Fixtures.portrait)
        guard case .added(let asset) = try intake.add(bytes, filename: "wine.jpg", fallbackDate: Date(timeIntervalSince1970: 0)) else {
            Issue.record("the first import did not add the photo")
            return
        }
        // Upright size from the JPEG itself, not from the caller.
        #expect(asset.pixelWidth == 2560 && asset.pixelHeight == 3837)
        guard case .alreadyPresent(let again) = try intake.add(bytes, filename: "copy.jpg", fallbackDate: Date()) else {
            Issue.record("the same bytes were added twice")
            return
        }
        #expect(again.localIdentifier == asset.localIdentifier)
        let upload = try intake.stage(bytes, filename: "wine.jpg")
        #expect(upload.existingAssetIdentifier == asset.localIdentifier)
        #expect(upload.size == bytes.count)
    }

    @Test("a damaged photo is refused by both paths with the same reason", arguments: [0.5, 0.95])
    func damaged(keep fraction: Double) throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let intake = PhotoIntake(library: try PhotoLibrary.open(at: temp.library))
        let bytes = try Fixtures.bytes(at: Fixtures.landscape)
        let truncated = Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
        let imported = thrownError { () throws(PhotoLibError) in _ = try intake.add(truncated, filename: "cut.jpg", fallbackDate: Date()) }
        let uploaded = thrownError { () throws(PhotoLibError) in _ = try intake.stage(truncated, filename: "cut.jpg") }
        #expect(imported?.code == .invalidArgument && imported?.reason == .invalidImage, "\(String(describing: imported))")
        #expect(imported?.message == uploaded?.message && imported?.code == uploaded?.code)
        #expect(regularFiles(in: temp.library + "/originals").isEmpty, "nothing written for a refused photo")
    }

    private func regularFiles(in directory: String) -> [String] {
        (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []).filter { !$0.hasPrefix(".") && $0.contains(".") }
    }
}
