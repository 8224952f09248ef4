import PhotoLibCore
import XCTest

@testable import PhotoLibWire

/// `ResourceDataChunk`'s in-place encoder and field reader give and take the same bytes as
/// the generated (protobuf-c) codec.
final class ResourceDataChunkInPlaceTests: XCTestCase {
    private static let cases: [(offset: UInt64, count: Int, total: UInt64)] = [
        (0, 0, 0), (0, 1, 1), (0, 65_536, 229_547_454), (127, 3, 130), (128, 300, 1 << 40), (UInt64.max - 5, 5, UInt64.max),
    ]

    func testEncodedIsWhatTheGeneratedCodecPacks() {
        for (offset, count, total) in Self.cases {
            let data = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let inPlace = Wire.ResourceDataChunk.encoded(offset: offset, totalSize: total, dataCount: count) { buffer in
                buffer.copyBytes(from: data)
            }
            XCTAssertEqual(inPlace, Wire.ResourceDataChunk(offset: offset, data: data, totalSize: total).encoded(), "offset \(offset), \(count) bytes")
        }
    }

    /// The first bytes the server sends before a chunk's file bytes (`sendfile`): with the data
    /// after them, a message the generated codec and the in-place reader both decode.
    func testPrefixAndDataDecodeAsTheChunk() throws {
        for (offset, count, total) in Self.cases {
            let data = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 17 &+ 3) }
            let payload = Wire.ResourceDataChunk.prefix(offset: offset, totalSize: total, dataCount: count) + data
            XCTAssertLessThanOrEqual(payload.count - count, Wire.ResourceDataChunk.maxOverhead)
            XCTAssertEqual(try Wire.ResourceDataChunk(decoding: payload), Wire.ResourceDataChunk(offset: offset, data: data, totalSize: total), "offset \(offset), \(count) bytes")
            let fields = try Wire.ResourceDataChunk.fields(of: payload)
            XCTAssertEqual(fields.offset, offset)
            XCTAssertEqual(fields.totalSize, total)
            XCTAssertEqual(Array(payload[fields.data]), data)
        }
    }

    func testFieldsReadWhatTheGeneratedCodecPacks() throws {
        for (offset, count, total) in Self.cases {
            let data = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            let payload = Wire.ResourceDataChunk(offset: offset, data: data, totalSize: total).encoded()
            let fields = try Wire.ResourceDataChunk.fields(of: payload)
            XCTAssertEqual(fields.offset, offset)
            XCTAssertEqual(fields.totalSize, total)
            XCTAssertEqual(Array(payload[fields.data]), data)
        }
    }

    func testFieldsAcceptAnyOrderAndSkipUnknownFields() throws {
        // total_size (3) = 9, unknown field 7 (length-delimited "ab"), data (2) = [5, 6], unknown
        // fixed32 field 9, offset (1) = 4, unknown fixed64 field 10, unknown varint field 11.
        let payload: [UInt8] = [0x18, 9, 0x3a, 2, 0x61, 0x62, 0x12, 2, 5, 6, 0x4d, 1, 2, 3, 4, 0x08, 4, 0x51, 0, 0, 0, 0, 0, 0, 0, 0, 0x58, 0x96, 0x01]
        let fields = try Wire.ResourceDataChunk.fields(of: payload)
        XCTAssertEqual(fields.offset, 4)
        XCTAssertEqual(fields.totalSize, 9)
        XCTAssertEqual(Array(payload[fields.data]), [5, 6])
        let generated = try Wire.ResourceDataChunk(decoding: payload)
        XCTAssertEqual(generated, Wire.ResourceDataChunk(offset: 4, data: [5, 6], totalSize: 9))
    }

    func testMalformedPayloadsAreInvalidArgument() {
        let malformed: [[UInt8]] = [
            [0x12, 5, 1, 2],  // data longer than the payload
            [0x08, 0x80],  // truncated varint
            [0x08] + [UInt8](repeating: 0x80, count: 10) + [1],  // an 11-byte varint
            [0x0a, 1, 0],  // offset as length-delimited
            [0x00, 1],  // field number 0
            [0x0b],  // wire type 3 (a group)
        ]
        for payload in malformed {
            XCTAssertThrowsError(try Wire.ResourceDataChunk.fields(of: payload), "\(payload)") { error in
                XCTAssertEqual((error as? PhotoLibError)?.code, .invalidArgument)
            }
        }
    }

    func testFillErrorIsRethrown() {
        struct Refused: Error {}
        XCTAssertThrowsError(try Wire.ResourceDataChunk.encoded(offset: 0, totalSize: 4, dataCount: 4) { _ in throw Refused() }) { error in
            XCTAssertTrue(error is Refused)
        }
    }
}
