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

    /// `AssetPageWriter` (a page written from the store's values, no `Wire.Asset` made)
    /// writes what the generated codec writes for the same assets mapped by `Wire.Asset(_:)`,
    /// clamped and defaulted values included.
    func testAssetPageWriterWritesTheGeneratedBytes() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<30 {
            let assets = (0..<Int.random(in: 0...110, using: &generator)).map { index in
                Asset(
                    localIdentifier: UUID().uuidString + (index % 13 == 0 ? "/é" : "/L0/001"), mediaType: MediaType.allCases.randomElement(using: &generator)!,
                    mediaSubtypes: MediaSubtypes(rawValue: UInt32.random(in: 0...UInt32.max, using: &generator)),
                    pixelWidth: [0, 1, 4032, Int(UInt32.max) + 5, -3].randomElement(using: &generator)!, pixelHeight: Int.random(in: 0...9000, using: &generator),
                    creationDate: Date(timeIntervalSince1970: Double.random(in: -1e10...1e10, using: &generator)),
                    modificationDate: Date(timeIntervalSince1970: Double(Int.random(in: -1 << 40...1 << 40, using: &generator)) / 1e6),
                    isFavorite: Bool.random(using: &generator), isHidden: Bool.random(using: &generator),
                    duration: [0, -0.0, 1.5, .infinity, Double.random(in: -10...1e6, using: &generator)].randomElement(using: &generator)!,
                    burstIdentifier: [nil, "", "B", String(repeating: "b", count: Int.random(in: 100...300, using: &generator)), "bürst"].randomElement(using: &generator)!,
                    location: [nil, Location(latitude: 0, longitude: 0, altitude: nil), Location(latitude: -33.5, longitude: 151.25, altitude: 0),
                               Location(latitude: 1, longitude: -2, altitude: -0.5)].randomElement(using: &generator)!,
                    hasAdjustments: Bool.random(using: &generator), trashedDate: Bool.random(using: &generator) ? nil : Date(timeIntervalSince1970: 1_700_000_000.0005),
                    contentVersion: [0, 3, -1, Int.max].randomElement(using: &generator)!)
            }
            var writer = AssetPageWriter(offset: UInt64(round * 1000), capacity: assets.count)
            for asset in assets {
                var identifier = asset.localIdentifier, burst = asset.burstIdentifier ?? ""
                identifier.withUTF8 { identifier in
                    burst.withUTF8 { burst in
                        writer.appendAsset(
                            localIdentifier: UnsafeRawBufferPointer(identifier), mediaType: asset.mediaType, mediaSubtypes: asset.mediaSubtypes,
                            pixelWidth: asset.pixelWidth, pixelHeight: asset.pixelHeight, creationDate: asset.creationDate,
                            modificationDate: asset.modificationDate, isFavorite: asset.isFavorite, isHidden: asset.isHidden, duration: asset.duration,
                            burstIdentifier: UnsafeRawBufferPointer(burst), location: asset.location, hasAdjustments: asset.hasAdjustments,
                            contentVersion: asset.contentVersion, trashedDate: asset.trashedDate)
                    }
                }
            }
            let identifiers = assets.map(\.localIdentifier) + (round % 2 == 0 ? ["gone/L0/001"] : [])
            writer.appendLocalIdentifiers(identifiers)
            let expected = Wire.FetchResultObjectsResponse(offset: UInt64(round * 1000), assets: assets.map(Wire.Asset.init), localIdentifiers: identifiers)
            XCTAssertEqual(writer.bytes, expected.encoded(), "round \(round)")
        }
    }

    func testPagesOfCollectionsGoThroughTheGeneratedEncoder() throws {
        let message = Wire.FetchResultObjectsResponse(
            offset: 3, assetCollections: [Wire.AssetCollection(localIdentifier: "C/L0/010", title: "Trips")], localIdentifiers: ["C/L0/010"])
        try assertSameBytes(message)
    }
}
