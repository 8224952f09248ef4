import PhotoLibCore
import XCTest

@testable import PhotoLibWire

/// Image, caching and resource messages survive encoding and decoding, and bad values are refused.
final class ImageMessageTests: XCTestCase {
    func testImageRequestWithEveryOption() throws {
        let request = ImageRequest(
            assetIdentifier: "A1B2C3D4-E5F6-4711-8899-AABBCCDDEEFF/L0/001", targetSize: PixelSize(width: 256, height: 128),
            contentMode: .aspectFill,
            options: ImageRequestOptions(deliveryMode: .fastFormat, resizeMode: .none, version: .original, normalizedCropRect: NormalizedRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4)),
            wantsProgress: true, requestID: 42, bypassCache: true)
        XCTAssertEqual(try ImageRequest(decoding: request.encoded()), request)
    }

    func testImageResponseParts() throws {
        let parts: [ImageResponse] = [
            .start(ImageStart(width: 10, height: 20, byteCount: 300, degraded: true, imageIndex: 0)),
            .chunk(offset: 65536, data: [1, 2, 3]), .end(imageIndex: 1, isFinal: true), .progress(0.5),
        ]
        for part in parts { XCTAssertEqual(try ImageResponse(decoding: part.encoded()), part) }
    }

    func testCachingRequestRoundTripAndLimit() throws {
        let request = CachingRequest(assetIdentifiers: ["a/L0/001", "b/L0/001"], targetSize: PixelSize(width: 64, height: 64), contentMode: .aspectFill, resizeMode: .exact, version: .unadjusted)
        XCTAssertEqual(try CachingRequest(decoding: request.encoded()), request)
        let tooMany = CachingRequest(assetIdentifiers: Array(repeating: "x/L0/001", count: CachingRequest.maxAssets + 1), targetSize: PixelSize(width: 1, height: 1))
        XCTAssertThrowsError(try CachingRequest(decoding: tooMany.encoded())) { error in
            XCTAssertEqual((error as? PhotoLibError)?.code, .resourceExhausted)
        }
    }

    func testResourceMessages() throws {
        let resource = AssetResourceDescription(assetIdentifier: "a/L0/001", type: .fullSizePhoto, originalFilename: "IMG_0001.JPG", uniformTypeIdentifier: "public.jpeg", size: 1_234_567, sha256: String(repeating: "ab", count: 32))
        let response = AssetResourcesResponse(resources: [resource])
        XCTAssertEqual(try AssetResourcesResponse(decoding: response.encoded()), response)
        XCTAssertEqual(try AssetResourcesRequest(decoding: AssetResourcesRequest(assetIdentifier: "a/L0/001").encoded()).assetIdentifier, "a/L0/001")
        let data = ResourceDataRequest(assetIdentifier: "a/L0/001", type: .photo, offset: 65536, length: 100)
        XCTAssertEqual(try ResourceDataRequest(decoding: data.encoded()), data)
        let chunk = ResourceDataChunk(offset: 10, data: Array(repeating: 7, count: WireLimits.chunkSize), totalSize: 1 << 20)
        let encoded = chunk.encoded()
        XCTAssertEqual(try ResourceDataChunk(decoding: encoded), chunk)
        XCTAssertLessThan(encoded.count, WireLimits.chunkSize + 32, "a full chunk fits a 64 KiB frame plus a few bytes of fields")
    }

    func testUnspecifiedResourceTypeIsRefused() {
        // ResourceDataRequest{asset_identifier: "a/L0/001"} with no type (0: RESOURCE_TYPE_UNSPECIFIED).
        let withoutType: [UInt8] = [0x0A, 8] + Array("a/L0/001".utf8)
        XCTAssertThrowsError(try ResourceDataRequest(decoding: withoutType)) { error in
            XCTAssertEqual((error as? PhotoLibError)?.code, .invalidArgument)
        }
    }

    func testResourceTypeNamesMatchTheProto() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("Protos/images.proto"), encoding: .utf8)
        for type in ResourceType.allCases {
            var screaming = ""
            for character in type.name {
                if character.isUppercase { screaming += "_" }
                screaming += character.uppercased()
            }
            XCTAssertTrue(text.contains("RESOURCE_TYPE_\(screaming) = \(type.rawValue);"), "\(type.name) = \(type.rawValue) in images.proto")
            XCTAssertEqual(ResourceType(name: type.name.uppercased()), type)
        }
    }
}
