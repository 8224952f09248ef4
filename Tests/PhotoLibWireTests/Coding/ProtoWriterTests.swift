import Foundation
import PhotoLibCore
import PhotoLibWire
import XCTest

/// `FetchResultObjectsResponse.encodedDirectly()` writes the bytes protobuf-c's generated
/// `encoded()` writes, for every kind of value a page of assets can hold, and they decode to
/// the same message.
final class ProtoWriterTests: XCTestCase {
    private func assertSameBytes(_ message: Wire.FetchResultObjectsResponse, file: StaticString = #filePath, line: UInt = #line) throws {
        let direct = message.encodedDirectly()
        XCTAssertEqual(direct, message.encoded(), file: file, line: line)
        XCTAssertEqual(try Wire.FetchResultObjectsResponse(decoding: direct), message, file: file, line: line)
    }

    func testDefaultsAndEdgeValues() throws {
        try assertSameBytes(Wire.FetchResultObjectsResponse())
        try assertSameBytes(Wire.FetchResultObjectsResponse(offset: 1 << 40, localIdentifiers: ["", "A", String(repeating: "x", count: 300)]))
        let edges = [
            Wire.Asset(),
            Wire.Asset(localIdentifier: "ID/L0/001", mediaType: .unrecognized(-7), mediaSubtypes: .max, pixelWidth: .max, pixelHeight: 1,
                       creationDateMs: .min, modificationDateMs: .max, isFavorite: true, isHidden: true, duration: -0.0,
                       burstIdentifier: "bürst ✓", location: Wire.Location(), hasAdjustments: true, contentVersion: .max, trashedDateMs: -1),
            Wire.Asset(localIdentifier: "ID/L0/002", mediaType: .video, duration: .infinity,
                       location: Wire.Location(latitude: -90, longitude: 180, hasAltitude: true, altitude: -0.5)),
            Wire.Asset(localIdentifier: "ID/L0/003", mediaType: .audio, creationDateMs: 1, duration: .leastNonzeroMagnitude,
                       location: Wire.Location(latitude: 0, longitude: 0, hasAltitude: false, altitude: 12)),
        ]
        try assertSameBytes(Wire.FetchResultObjectsResponse(offset: 0, assets: edges, localIdentifiers: edges.map(\.localIdentifier)))
    }

    /// A long burst identifier makes an asset's body longer than 127 bytes (a two-byte length).
    func testLongAssetsAndRandomPages() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<50 {
            let assets = (0..<Int.random(in: 0...120, using: &generator)).map { index in
                Wire.Asset(
                    localIdentifier: UUID().uuidString + "/L0/001", mediaType: Wire.MediaType(rawValue: Int32.random(in: -2...4, using: &generator)),
                    mediaSubtypes: UInt32.random(in: 0...UInt32.max, using: &generator), pixelWidth: UInt32.random(in: 0...9000, using: &generator),
                    pixelHeight: UInt32.random(in: 0...9000, using: &generator), creationDateMs: Int64.random(in: -1 << 45...1 << 45, using: &generator),
                    modificationDateMs: Int64.random(in: -1 << 45...1 << 45, using: &generator), isFavorite: Bool.random(using: &generator),
                    isHidden: Bool.random(using: &generator), duration: Bool.random(using: &generator) ? 0 : Double.random(in: -10...1e6, using: &generator),
                    burstIdentifier: index % 7 == 0 ? String(repeating: "b", count: Int.random(in: 0...400, using: &generator)) : "",
                    location: Bool.random(using: &generator) ? nil : Wire.Location(
                        latitude: Double.random(in: -90...90, using: &generator), longitude: Double.random(in: -180...180, using: &generator),
                        hasAltitude: Bool.random(using: &generator), altitude: Double.random(in: -100...9000, using: &generator)),
                    hasAdjustments: Bool.random(using: &generator), contentVersion: UInt64.random(in: 0...1000, using: &generator),
                    trashedDateMs: Bool.random(using: &generator) ? 0 : Int64.random(in: -1 << 45...1 << 45, using: &generator))
            }
            try assertSameBytes(Wire.FetchResultObjectsResponse(offset: UInt64(round * 100), assets: assets, localIdentifiers: assets.map(\.localIdentifier)))
        }
    }

    func testPagesOfCollectionsGoThroughTheGeneratedEncoder() throws {
        let message = Wire.FetchResultObjectsResponse(
            offset: 3, assetCollections: [Wire.AssetCollection(localIdentifier: "C/L0/010", title: "Trips")], localIdentifiers: ["C/L0/010"])
        try assertSameBytes(message)
    }
}
