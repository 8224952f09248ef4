import Foundation
import PhotoLibCore
import XCTest
@testable import PhotoLibWire

/// `CallStart.decoded(_:)` (read by `ProtoReader` when it can) answers what the generated
/// `init(decoding:)` answers for every input.
final class CallStartReadingTests: XCTestCase {
    func testCallStartsAreReadAsTheGeneratedDecoderReadsThem() {
        var generator = SystemRandomNumberGenerator()
        XCTAssertEqual(Wire.CallStart(reading: []), Wire.CallStart(), "every field at its default")
        for _ in 0..<300 {
            let call = Wire.CallStart(
                method: ["", PhotoLibraryMethods.requestImage.path, "/x/é✓", String(repeating: "m", count: 200)].randomElement(using: &generator)!,
                timeoutMs: [0, 1, 300, UInt64.max, UInt64.random(in: 0...UInt64.max, using: &generator)].randomElement(using: &generator)!)
            XCTAssertEqual(Wire.CallStart(reading: call.encoded()), call, "the reader reads what clients send")
            XCTAssertEqual(try Wire.CallStart.decoded(call.encoded()), call)
        }
    }

    func testMetadataAndOddShapesGoToTheGeneratedDecoder() {
        let withMetadata = Wire.CallStart(method: PhotoLibraryMethods.requestImage.path, timeoutMs: 5, metadata: [Wire.MetadataEntry(key: "k", value: "v")])
        XCTAssertNil(Wire.CallStart(reading: withMetadata.encoded()), "metadata is the generated decoder's")
        XCTAssertEqual(try Wire.CallStart.decoded(withMetadata.encoded()), withMetadata)
        let shapes: [(String, [UInt8])] = [
            ("an unknown field", [0x20, 0x01]),
            ("the method twice", field(1, [0x41]) + field(1, [0x42])),
            ("the timeout twice", [0x10, 0x01, 0x10, 0x02]),
            ("a method that is not UTF-8", field(1, [0xC3, 0x28])),
            ("a method with a NUL", field(1, [0x41, 0x00])),
            ("a timeout of the wrong wire type", field(2, [0x01])),
            ("a varint of eleven bytes", [0x10] + Array(repeating: 0xFF, count: 10) + [0x01]),
            ("field zero", [0x00, 0x01]),
            ("a length past the end", [0x0A, 0x7F, 0x41]),
        ]
        for (what, bytes) in shapes { assertDecodersAgree(Wire.CallStart.self, bytes, what) }
        let bytes = Wire.CallStart(method: PhotoLibraryMethods.fetchAssets.path, timeoutMs: 30_000).encoded()
        assertDecodersAgreeOnCutAndDamaged(Wire.CallStart.self, bytes, rounds: 3000, "a call start")
    }
}
