import Foundation
import PhotoLibCore
import XCTest

@testable import PhotoLibWire

/// Image, caching and resource messages and their mappings to PhotoLibCore values.
final class ImageMessageTests: XCTestCase {
    func testImageRequestWithEveryOption() throws {
        let options = ImageRequestOptions(
            deliveryMode: .fastFormat, resizeMode: .none, version: .original, normalizedCropRect: NormalizedRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4))
        let request = try Wire.ImageRequest(
            assetIdentifier: "A1B2C3D4-E5F6-4711-8899-AABBCCDDEEFF/L0/001", targetSize: PixelSize(width: 256, height: 128),
            contentMode: .aspectFill, options: options, wantsProgress: true, requestID: 42, bypassCache: true)
        let decoded = try Wire.ImageRequest(decoding: request.encoded())
        XCTAssertEqual(decoded, request)
        XCTAssertEqual(decoded.targetSize, PixelSize(width: 256, height: 128))
        let domain = try decoded.domain()
        XCTAssertEqual(domain.contentMode, .aspectFill)
        XCTAssertEqual(domain.options, options)
    }

    func testCachingRequestRoundTripAndLimit() throws {
        let request = try Wire.CachingRequest(
            assetIdentifiers: ["a/L0/001", "b/L0/001"], targetSize: PixelSize(width: 64, height: 64), contentMode: .aspectFill, resizeMode: .exact,
            version: .unadjusted)
        let decoded = try Wire.CachingRequest(decoding: request.encoded())
        XCTAssertEqual(decoded, request)
        XCTAssertEqual(try decoded.domain().resizeMode, .exact)
        let tooMany = try Wire.CachingRequest(
            assetIdentifiers: Array(repeating: "x/L0/001", count: Wire.CachingRequest.maxAssets + 1), targetSize: PixelSize(width: 1, height: 1),
            contentMode: .aspectFit, resizeMode: .fast, version: .current)
        XCTAssertThrowsError(try Wire.CachingRequest(decoding: tooMany.encoded()).domain()) { error in
            XCTAssertEqual((error as? PhotoLibError)?.code, .resourceExhausted)
        }
    }

    func testResourceMessages() throws {
        let resource = AssetResource(
            assetIdentifier: "a/L0/001", type: .fullSizePhoto, originalFilename: "IMG_0001.JPG", uniformTypeIdentifier: "public.jpeg",
            size: 1_234_567, sha256: String(repeating: "ab", count: 32))
        let response = Wire.AssetResourcesResponse(resources: [Wire.AssetResource(resource)])
        let decoded = try Wire.AssetResourcesResponse(decoding: response.encoded())
        XCTAssertEqual(try decoded.resources.map { (wire) throws(PhotoLibError) in try AssetResource(wire) }, [resource])
        let data = Wire.ResourceDataRequest(assetIdentifier: "a/L0/001", type: .init(AssetResourceType.photo), offset: 65536, length: 100)
        XCTAssertEqual(try Wire.ResourceDataRequest(decoding: data.encoded()), data)
        let chunk = Wire.ResourceDataChunk(offset: 10, data: Array(repeating: 7, count: WireLimits.chunkSize), totalSize: 1 << 20)
        let encoded = chunk.encoded()
        XCTAssertEqual(try Wire.ResourceDataChunk(decoding: encoded), chunk)
        XCTAssertLessThan(encoded.count, WireLimits.chunkSize + 32, "a full chunk fits a 64 KiB frame plus a few bytes of fields")
    }

    func testUnspecifiedResourceTypeIsRefused() throws {
        // ResourceDataRequest{asset_identifier: "a/L0/001"} with no type (0: RESOURCE_TYPE_UNSPECIFIED).
        let withoutType: [UInt8] = [0x0A, 8] + Array("a/L0/001".utf8)
        let request = try Wire.ResourceDataRequest(decoding: withoutType)
        XCTAssertThrowsError(try request.type.domain(field: "ResourceDataRequest.type")) { error in
            XCTAssertEqual((error as? PhotoLibError)?.code, .invalidArgument)
        }
    }

    func testResourceTypeNamesMatchTheProto() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("Protos/images.proto"), encoding: .utf8)
        for type in AssetResourceType.allCases {
            var screaming = ""
            for character in type.name {
                if character.isUppercase { screaming += "_" }
                screaming += character.uppercased()
            }
            XCTAssertTrue(text.contains("RESOURCE_TYPE_\(screaming) = \(type.rawValue);"), "\(type.name) = \(type.rawValue) in images.proto")
            XCTAssertEqual(AssetResourceType(name: type.name.uppercased()), type)
            XCTAssertEqual(Wire.ResourceType(type).description, "RESOURCE_TYPE_\(screaming)")
        }
    }
}
