import Foundation
import PhotoLibCore
import XCTest
@testable import PhotoLibWire

/// `ImageResponse.decoded(_:)` (an image's start, chunk, end and whole read by `ProtoReader`)
/// answers what the generated `init(decoding:)` answers for every input, and
/// `ImageRequest.encodedDirectly()` writes the generated `encoded()`'s bytes.
final class ImagePartReadingTests: XCTestCase {
    /// Parts as the server sends them, every field at its default and at its extremes.
    private static func parts(using generator: inout some RandomNumberGenerator) -> [Wire.ImageResponse] {
        let data = (0..<Int.random(in: 0...20_000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return [
            Wire.ImageResponse(part: .start(Wire.ImageStart())),
            Wire.ImageResponse(part: .start(Wire.ImageStart(
                width: UInt32.random(in: 0...UInt32.max, using: &generator), height: [0, 1, 255, UInt32.max].randomElement(using: &generator)!,
                byteCount: [0, 1, UInt64.max, UInt64(data.count)].randomElement(using: &generator)!, degraded: Bool.random(using: &generator),
                uniformTypeIdentifier: ["", "public.jpeg", "public.heic", "é✓"].randomElement(using: &generator)!,
                imageIndex: [0, 1, UInt32.max].randomElement(using: &generator)!))),
            Wire.ImageResponse(part: .chunk(Wire.ImageChunk())),
            Wire.ImageResponse(part: .chunk(Wire.ImageChunk(offset: [0, 65_536, UInt64.max].randomElement(using: &generator)!, data: data))),
            Wire.ImageResponse(part: .end(Wire.ImageEnd())),
            Wire.ImageResponse(part: .end(Wire.ImageEnd(imageIndex: UInt32.random(in: 0...UInt32.max, using: &generator), isFinal: Bool.random(using: &generator)))),
            Wire.ImageResponse(part: .whole(Wire.ImageWhole())),
            Wire.ImageResponse(part: .whole(Wire.ImageWhole(start: Wire.ImageStart()))),
            Wire.ImageResponse(part: .whole(Wire.ImageWhole(
                start: Wire.ImageStart(
                    width: UInt32.random(in: 0...UInt32.max, using: &generator), height: 171, byteCount: UInt64(data.count),
                    degraded: Bool.random(using: &generator), uniformTypeIdentifier: ["", "public.jpeg", "é✓"].randomElement(using: &generator)!,
                    imageIndex: [0, 1, UInt32.max].randomElement(using: &generator)!),
                data: data, isFinal: Bool.random(using: &generator)))),
        ]
    }

    func testImagePartsAreReadDirectlyAsTheGeneratedDecoderReadsThem() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<30 {
            for message in Self.parts(using: &generator) {
                let bytes = message.encoded()
                XCTAssertEqual(Wire.ImageResponse(readingPart: bytes), message, "the reader reads what the server sends")
                XCTAssertEqual(try Wire.ImageResponse.decoded(bytes), message)
            }
        }
    }

    func testOtherShapesGoToTheGeneratedDecoder() throws {
        let progress = Wire.ImageResponse(part: .progress(Wire.ImageProgress(fraction: 0.5)))
        XCTAssertNil(Wire.ImageResponse(readingPart: progress.encoded()))
        XCTAssertEqual(try Wire.ImageResponse.decoded(progress.encoded()), progress)
        XCTAssertNil(Wire.ImageResponse(readingPart: []), "no part at all")
        let start = Wire.ImageStart(width: 5, height: 7, byteCount: 9, uniformTypeIdentifier: "public.jpeg").encoded()
        let shapes: [(String, [UInt8])] = [
            ("no part", []),
            ("an unknown field in the response", [0x28, 0x01] + field(1, start)),
            ("an unknown field in a start", field(1, start + [0x38, 0x01])),
            ("two parts (the last one wins, or merges)", field(1, start) + field(3, [0x08, 0x01])),
            ("a field of a start twice", field(1, start + [0x08, 0x09])),
            ("a wrong wire type", field(2, [0x09] + Array(repeating: 0, count: 8))),
            ("a part that is not a message", [0x08, 0x01]),
            ("a type that is not UTF-8", field(1, [0x2A, 0x02, 0xC3, 0x28])),
            ("a type with a NUL", field(1, [0x2A, 0x02, 0x41, 0x00])),
            ("a non-canonical boolean", field(3, [0x10, 0x81, 0x00])),
            ("a boolean of 2", field(3, [0x10, 0x02])),
            ("a boolean of ten bytes whose high bits are set", field(1, [0x20] + Array(repeating: 0x80, count: 9) + [0x02])),
            ("a varint of eleven bytes", field(3, [0x08] + Array(repeating: 0xFF, count: 10) + [0x01])),
            ("field zero", field(2, [0x00, 0x01])),
            ("a length past the end", [0x12, 0x7F, 0x08]),
            ("a chunk's data past its message", field(2, [0x12, 0x05, 0x01])),
            ("an unknown field in a whole image", field(5, field(1, start) + [0x20, 0x01])),
            ("a whole image's start twice", field(5, field(1, start) + field(1, start))),
            ("a whole image's start that is not a message", field(5, [0x08, 0x01])),
            ("a whole image's start with an unknown field", field(5, field(1, start + [0x38, 0x01]))),
            ("a whole image's data past its message", field(5, [0x12, 0x05, 0x01])),
            ("a whole image whose final flag is not canonical", field(5, [0x18, 0x81, 0x00])),
        ]
        for (what, bytes) in shapes { assertDecodersAgree(Wire.ImageResponse.self, bytes, what) }
    }

    func testCutAndDamagedPartsAgreeWithTheGeneratedDecoder() throws {
        let messages = [
            Wire.ImageResponse(part: .start(Wire.ImageStart(width: 256, height: 171, byteCount: 8301, degraded: true, uniformTypeIdentifier: "public.jpeg", imageIndex: 1))),
            Wire.ImageResponse(part: .chunk(Wire.ImageChunk(offset: 300, data: Array(repeating: 0x5A, count: 40)))),
            Wire.ImageResponse(part: .end(Wire.ImageEnd(imageIndex: 1, isFinal: true))),
            Wire.ImageResponse(part: .whole(Wire.ImageWhole(
                start: Wire.ImageStart(width: 256, height: 171, byteCount: 40, uniformTypeIdentifier: "public.jpeg"),
                data: Array(repeating: 0x5A, count: 40), isFinal: true))),
        ]
        for message in messages {
            assertDecodersAgreeOnCutAndDamaged(Wire.ImageResponse.self, message.encoded(), rounds: 1500, "\(message)")
        }
    }

    /// A random image request, every field at its default or at an edge.
    private static func request(using generator: inout some RandomNumberGenerator) -> Wire.ImageRequest {
        Wire.ImageRequest(
            assetIdentifier: ["", "A/L0/001", UUID().uuidString + "/é✓", String(repeating: "x", count: 300)].randomElement(using: &generator)!,
            targetWidth: [0, 1, 256, UInt32.max].randomElement(using: &generator)!, targetHeight: UInt32.random(in: 0...UInt32.max, using: &generator),
            contentMode: Wire.ContentMode(rawValue: Int32.random(in: -2...3, using: &generator)),
            deliveryMode: Wire.DeliveryMode(rawValue: [0, 1, 3, Int32.min, Int32.max].randomElement(using: &generator)!),
            resizeMode: Wire.ResizeMode(rawValue: Int32.random(in: -1...3, using: &generator)),
            version: Wire.ImageVersion(rawValue: Int32.random(in: 0...3, using: &generator)),
            normalizedCropRect: [nil, Wire.NormalizedRect(), Wire.NormalizedRect(x: 0.25, y: -0.0, width: 0.5, height: .infinity)].randomElement(using: &generator)!,
            wantsProgress: Bool.random(using: &generator), requestID: [0, 1, UInt64.max, UInt64.random(in: 0...UInt64.max, using: &generator)].randomElement(using: &generator)!,
            bypassCache: Bool.random(using: &generator), acceptsWholeImages: Bool.random(using: &generator))
    }

    func testImageRequestsAreReadAsTheGeneratedDecoderReadsThem() {
        var generator = SystemRandomNumberGenerator()
        XCTAssertEqual(Wire.ImageRequest(reading: []), Wire.ImageRequest())
        for _ in 0..<300 {
            let request = Self.request(using: &generator)
            XCTAssertEqual(Wire.ImageRequest(reading: request.encoded()), request, "the reader reads what clients send")
        }
        let bytes = Wire.ImageRequest(
            assetIdentifier: "A/L0/001", targetWidth: 256, targetHeight: 256, contentMode: .init(rawValue: 1), deliveryMode: .init(rawValue: 2),
            resizeMode: .init(rawValue: 2), version: .init(rawValue: 1), normalizedCropRect: Wire.NormalizedRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4),
            wantsProgress: true, requestID: 77, bypassCache: true, acceptsWholeImages: true
        ).encoded()
        assertDecodersAgreeOnCutAndDamaged(Wire.ImageRequest.self, bytes, rounds: 3000, "a request")
        let shapes: [(String, [UInt8])] = [
            ("an unknown field", [0x68, 0x01]),
            ("whole images accepted twice", [0x60, 0x01, 0x60, 0x01]),
            ("a field twice", [0x10, 0x01, 0x10, 0x02]),
            ("the crop twice (merged)", field(8, [0x09, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F]) + field(8, [0x11, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F])),
            ("a crop field of the wrong type", field(8, [0x08, 0x01])),
            ("an identifier that is not UTF-8", field(1, [0xC3, 0x28])),
            ("an identifier with a NUL", field(1, [0x41, 0x00])),
            ("a boolean of two", [0x48, 0x02]),
            ("a negative enum", [0x20] + Array(repeating: 0xFF, count: 9) + [0x01]),
        ]
        for (what, bytes) in shapes { assertDecodersAgree(Wire.ImageRequest.self, bytes, what) }
    }

    func testImageRequestsAreWrittenAsTheGeneratedEncoderWritesThem() {
        var generator = SystemRandomNumberGenerator()
        XCTAssertEqual(Wire.ImageRequest().encodedDirectly(), Wire.ImageRequest().encoded(), "every field at its default")
        for _ in 0..<500 {
            let request = Self.request(using: &generator)
            XCTAssertEqual(request.encodedDirectly(), request.encoded(), "\(request)")
        }
    }
}
