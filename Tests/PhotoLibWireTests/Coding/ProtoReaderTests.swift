import Foundation
import PhotoLibCore
import XCTest
@testable import PhotoLibWire

/// `FetchResultObjectsResponse.decoded(_:)` (pages of assets read by `ProtoReader`) answers
/// what the generated `init(decoding:)` answers for every input: the same page for what the
/// server sends, and for anything else — collections, unknown or repeated fields, cut or
/// damaged bytes, bad text — the generated decoder's value or refusal.
final class ProtoReaderTests: XCTestCase {
    /// A page of random assets, every field and its defaults exercised.
    private static func page(_ count: Int, offset: UInt64, using generator: inout some RandomNumberGenerator) -> Wire.FetchResultObjectsResponse {
        let assets = (0..<count).map { index in
            Wire.Asset(
                localIdentifier: UUID().uuidString + (index % 11 == 0 ? "/é✓" : "/L0/001"),
                mediaType: Wire.MediaType(rawValue: Int32.random(in: -2...4, using: &generator)),
                mediaSubtypes: [0, 1, UInt32.max].randomElement(using: &generator)!, pixelWidth: UInt32.random(in: 0...UInt32.max, using: &generator),
                pixelHeight: UInt32.random(in: 0...9000, using: &generator), creationDateMs: Int64.random(in: Int64.min...Int64.max, using: &generator),
                modificationDateMs: [0, -1, 1, Int64.min, Int64.max].randomElement(using: &generator)!, isFavorite: Bool.random(using: &generator),
                isHidden: Bool.random(using: &generator), duration: [0, -0.0, .infinity, 2.5, -7].randomElement(using: &generator)!,
                burstIdentifier: ["", "B", String(repeating: "b", count: 200)].randomElement(using: &generator)!,
                location: [nil, Wire.Location(), Wire.Location(latitude: -1, longitude: 2, hasAltitude: true, altitude: -0.5)].randomElement(using: &generator)!,
                hasAdjustments: Bool.random(using: &generator), contentVersion: [0, 1, UInt64.max].randomElement(using: &generator)!,
                trashedDateMs: [0, -5, 1_700_000_000_000].randomElement(using: &generator)!)
        }
        return Wire.FetchResultObjectsResponse(offset: offset, assets: assets, localIdentifiers: assets.map(\.localIdentifier) + ["", "gone/L0/001"])
    }

    func testPagesAreReadDirectlyAsTheGeneratedDecoderReadsThem() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<40 {
            let message = Self.page(Int.random(in: 0...110, using: &generator), offset: UInt64(round) << (round % 64), using: &generator)
            let bytes = message.encoded()
            XCTAssertEqual(Wire.FetchResultObjectsResponse(readingPage: bytes), message, "the reader reads what the server sends")
            XCTAssertEqual(try Wire.FetchResultObjectsResponse.decoded(bytes), message)
            XCTAssertEqual(try Wire.FetchResultObjectsResponse(decoding: bytes), message)
        }
    }

    func testOtherShapesGoToTheGeneratedDecoder() throws {
        let collections = Wire.FetchResultObjectsResponse(
            offset: 3, assetCollections: [Wire.AssetCollection(localIdentifier: "C/L0/010", title: "Trips")], localIdentifiers: ["C/L0/010"])
        XCTAssertNil(Wire.FetchResultObjectsResponse(readingPage: collections.encoded()))
        XCTAssertEqual(try Wire.FetchResultObjectsResponse.decoded(collections.encoded()), collections)

        let asset = Wire.Asset(localIdentifier: "A/L0/001", pixelWidth: 5).encoded()
        let shapes: [(String, [UInt8])] = [
            ("an unknown field in the page", [0x30, 0x01] + field(2, asset)),
            ("an unknown field in an asset", field(2, asset + [0x80, 0x01, 0x01])),
            ("the offset twice", [0x08, 0x01, 0x08, 0x02]),
            ("a field of an asset twice", field(2, asset + [0x20, 0x07])),
            ("the location twice (merged)", field(2, [0x62, 0x09, 0x09, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0x62, 0x02, 0x18, 0x01])),
            ("a wrong wire type", field(2, [0x0A] + [0x03, 0x41, 0x42, 0x43] + [0x21, 0x01])),
            ("text with a NUL", field(5, [0x41, 0x00, 0x42])),
            ("text that is not UTF-8", field(5, [0x62, 0xFF])),
            ("an identifier that is not UTF-8", field(2, [0x0A, 0x02, 0xC3, 0x28])),
            ("a varint of eleven bytes", [0x08] + Array(repeating: 0xFF, count: 10) + [0x01]),
            ("field zero", [0x00, 0x01]),
            ("a length past the end", [0x12, 0x7F, 0x08]),
            ("non-canonical booleans and varints", field(2, [0x40, 0x80, 0x00, 0x48, 0x82, 0x00, 0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])),
            ("a boolean of ten bytes whose high bits are set", field(2, [0x40] + Array(repeating: 0x80, count: 9) + [0x02])),
        ]
        for (what, bytes) in shapes { assertDecodersAgree(Wire.FetchResultObjectsResponse.self, bytes, what) }
    }

    func testCutAndDamagedPagesAgreeWithTheGeneratedDecoder() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = Self.page(6, offset: 700, using: &generator).encoded()
        assertDecodersAgreeOnCutAndDamaged(Wire.FetchResultObjectsResponse.self, bytes, rounds: 2000, "a page")
    }
}
