import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

@Suite("The library is private: directories 0700, files 0600, whatever the umask")
struct FileModeTests {
    private func mode(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_mode & 0o777) : -1
    }

    @Test("a new library, an import, an upload and an edit create only private files")
    func privateModes() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let asset = try library.addPhoto(try SamplePhotos.uniqueBytes(0), metadata: SamplePhotos.metadata()).asset
        var render = SamplePhotos.metadata("render.jpg")
        render.pixelWidth = asset.pixelWidth
        render.pixelHeight = asset.pixelHeight
        let upload = try library.stageUpload(try SamplePhotos.uniqueBytes(1), metadata: render)
        let session = try library.contentEditingInput(forAsset: asset.localIdentifier, canHandle: []).input.editingSessionID
        _ = try library.performChanges([.commitContentEdit(ContentEdit(
            asset: asset.localIdentifier, editingSessionID: session,
            adjustmentData: AdjustmentData(formatIdentifier: "com.example", formatVersion: "1", data: [1, 2, 3]), renderedUploadID: upload.uploadID))])
        #expect(mode(temp.library) == 0o700)
        var checked = 0
        let walker = FileManager.default.enumerator(atPath: temp.library)
        while let relative = walker?.nextObject() as? String {
            let path = temp.library + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            #expect(mode(path) == (isDirectory.boolValue ? 0o700 : 0o600), "\(relative) is \(String(mode(path), radix: 8))")
            checked += 1
        }
        #expect(checked >= 8, "the database, its WAL, the owner token, originals and the edit's files were all checked")
        #expect(try library.resources(forAsset: asset.localIdentifier).allSatisfy { mode($0.path) == 0o600 })
    }
}
