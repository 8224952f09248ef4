import Foundation
import PhotoLibTestSupport
import Testing

@testable import PhotoLibImaging

@Suite("JPEGInspector")
struct JPEGInspectorTests {
    @Test("inspect reads stored sizes, progressive flag and components of every photo")
    func inspectSizes() throws {
        let expected: [(bytes: [UInt8], width: Int, height: Int, progressive: Bool)] = [
            (Photos.baseline, 5312, 2988, false),
            (Photos.progressive, 5312, 2988, true),
            (Photos.landscape, 4352, 2448, true),
            (Photos.portrait, 2560, 3837, true),
        ]
        for photo in expected {
            let info = try JPEGInspector.inspect(photo.bytes)
            #expect(info.storedWidth == photo.width && info.storedHeight == photo.height)
            #expect(info.pixelWidth == photo.width && info.pixelHeight == photo.height)
            #expect(info.isProgressive == photo.progressive)
            #expect(info.components == 3)
            #expect(info.orientation == 1)
            #expect(info.creationDate == nil)
            #expect(info.location == nil)
        }
    }

    @Test("the fixture folders hold the four photos")
    func fixturesExist() {
        #expect(Fixtures.samplePhotos.count == 2)
        #expect(Fixtures.testPhotos.count == 2)
        #expect(Fixtures.samplePhotos.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        #expect(Fixtures.testPhotos.allSatisfy { $0.hasPrefix("/") })
    }

    @Test("validate decodes the entropy data of every photo")
    func validateAll() throws {
        for bytes in [Photos.baseline, Photos.progressive, Photos.landscape, Photos.portrait] {
            let validated = try JPEGInspector.validate(bytes)
            let inspected = try JPEGInspector.inspect(bytes)
            #expect(validated == inspected)
        }
    }

    @Test("orientations 5...8 swap the upright size", arguments: 1...8)
    func orientationSwapsSize(orientation: Int) throws {
        let jpeg = ExifFixture.jpegWithExif(Photos.landscape, orientation: orientation)
        let info = try JPEGInspector.inspect(jpeg)
        #expect(info.orientation == orientation)
        #expect(info.storedWidth == 4352 && info.storedHeight == 2448)
        if orientation >= 5 {
            #expect(info.pixelWidth == 2448 && info.pixelHeight == 4352)
        } else {
            #expect(info.pixelWidth == 4352 && info.pixelHeight == 2448)
        }
    }

    @Test("inspect is fast: headers only")
    func inspectIsFast() throws {
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            for _ in 0..<20 { _ = try JPEGInspector.inspect(Photos.baseline) }
        }
        // 20 header reads of a 1.6 MB file; a full decode would take far longer.
        #expect(elapsed < .milliseconds(500), "20 inspections took \(elapsed)")
    }
}
