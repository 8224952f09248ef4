import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import PhotoLibWire
import XCTest
@testable import PhotoLibServer
@testable import PhotoLibStore

/// A page of assets written straight from the rows (`PhotoLibraryService.encodedDirectly`,
/// driven by `PhotoLibrary.visitAssets(page:of:)`) is byte for byte what the generated
/// protobuf-c codec writes for the same page read as `Asset` values — for every sort, a
/// predicate, smart albums (Recently Deleted, hidden), rows with every optional value set or
/// not — and is `nil` (the general path answers) whenever the page is not one range of the
/// query's order now, or a row is one `Asset` would repair.
final class DirectPageEncodingTests: XCTestCase {
    private var temp: TestDirectory!
    private var library: PhotoLibrary!

    override func setUpWithError() throws {
        temp = try TestDirectory()
        library = try PhotoLibrary.open(at: temp.library)
        let types: [MediaType] = [.image, .video, .audio, .unknown]
        let widths = [0, 1, 4032, 9000]
        var assets: [SyntheticAsset] = []
        for index in 0..<40 {
            let identifier = String(format: "%08X-0000-0000-0000-000000000000", (index * 17) % 40) + LocalIdentifier.assetSuffix
            let subtypes = MediaSubtypes(rawValue: index % 5 == 0 ? 0 : UInt32(1) << UInt32(index % 9))
            let created = Date(timeIntervalSince1970: 1_000_000 + Double(index / 3) * 60 + 0.0015)
            let modified = Date(timeIntervalSince1970: -5_000 + Double(index % 7) * 0.0004)
            let duration: Double = index % 4 == 1 ? Double(index) / 7 : 0
            assets.append(SyntheticAsset(
                identifier: identifier, mediaType: types[index % types.count], mediaSubtypes: subtypes,
                pixelWidth: widths[index % 4], pixelHeight: 800 + index % 3, creationDate: created, modificationDate: modified,
                isFavorite: index % 3 == 0, isHidden: index % 11 == 0, duration: duration))
        }
        try library.insertSyntheticAssets(assets)
        let ids = assets.map { $0.identifier }
        // Locations with and without altitude (and a zero one), bursts (one not ASCII, one
        // empty), adjustments, content versions, trashed assets with their dates.
        for (offset, id) in ids.enumerated() {
            var sets: [String] = []
            switch offset % 4 {
            case 0: sets.append("latitude = \(Double(offset) - 20.25), longitude = \(-Double(offset) * 3.5), altitude = \(offset % 8 == 0 ? "NULL" : "\(Double(offset) * 10.5)")")
            case 1: sets.append("latitude = 0, longitude = 0, altitude = 0")
            default: break
            }
            switch offset % 5 {
            case 0: sets.append("burst_identifier = 'BURST-\(offset % 10)'")
            case 1: sets.append("burst_identifier = 'bürst ✓'")
            case 2: sets.append("burst_identifier = ''")
            default: break
            }
            if offset % 6 == 0 { sets.append("has_adjustments = 1, content_generation = \(offset)") }
            if offset % 9 == 4 { sets.append("trashed = 1, trashed_date = \(1_700_000_000_123_456 + offset)") }
            if !sets.isEmpty { try library.executeForTesting("UPDATE asset SET \(sets.joined(separator: ", ")) WHERE local_identifier = '\(id)'") }
        }
    }

    override func tearDown() {
        library = nil
        temp?.cleanUp()
    }

    /// Queries a keyset range can follow (the direct path must answer their pages).
    private func rangeQueries() throws -> [AssetQuery] {
        var queries = [
            AssetQuery(), AssetQuery(includeHiddenAssets: true), AssetQuery(predicate: try AssetPredicate(parsing: "pixelWidth > 1000")),
            AssetQuery(collection: LocalIdentifier.smartAlbum(.smartAlbumFavorites)),
            AssetQuery(collection: LocalIdentifier.smartAlbum(.smartAlbumRecentlyDeleted)),
            AssetQuery(collection: LocalIdentifier.smartAlbum(.smartAlbumAllHidden)),
            AssetQuery(mediaType: .video),
        ]
        for key in AssetSortKey.allCases {
            for ascending in [true, false] { queries.append(AssetQuery(sortDescriptors: [AssetSortDescriptor(key: key, ascending: ascending)])) }
        }
        queries.append(AssetQuery(sortDescriptors: [AssetSortDescriptor(key: .mediaType, ascending: false), AssetSortDescriptor(key: .pixelWidth, ascending: false)]))
        return queries
    }

    /// What the general path sends for `page` at `offset`: the assets read as values, mapped
    /// and encoded by the generated codec.
    private func generated(_ page: [String], at offset: Int, of query: AssetQuery) throws -> [UInt8] {
        let assets = try library.assets(page: page, of: query)
        return Wire.FetchResultObjectsResponse(offset: UInt64(offset), assets: assets.map(Wire.Asset.init), localIdentifiers: page).encoded()
    }

    /// Every page of `lengths` of `query`'s listing `list`: the direct bytes equal the
    /// generated ones when there are any; returns how many pages the direct path answered.
    @discardableResult
    private func comparePages(_ query: AssetQuery, _ list: [String], lengths: [Int] = [1, 7, 100]) throws -> (direct: Int, pages: Int) {
        var direct = 0, pages = 0
        for length in lengths {
            for start in stride(from: 0, to: list.count, by: max(1, length / 2)) {
                let page = Array(list[start..<min(list.count, start + length)])
                pages += 1
                guard let bytes = try PhotoLibraryService.encodedDirectly(page, at: UInt64(start), of: query, in: library) else { continue }
                direct += 1
                XCTAssertEqual(bytes, try generated(page, at: start, of: query), "\(query) page at \(start) of \(length)")
            }
        }
        return (direct, pages)
    }

    func testPagesOfAnUnchangedLibraryAreTheGeneratedBytes() throws {
        for query in try rangeQueries() {
            let list = try library.fetchAssetIdentifiers(query)
            XCTAssertFalse(list.isEmpty, "\(query)")
            let (direct, pages) = try comparePages(query, list)
            XCTAssertEqual(direct, pages, "every page of \(query) is one range: the direct path answers it")
        }
        // The message decodes to the assets the general path reads, values and all.
        let list = try library.fetchAssetIdentifiers(AssetQuery(includeHiddenAssets: true))
        let bytes = try XCTUnwrap(try PhotoLibraryService.encodedDirectly(list, at: 0, of: AssetQuery(includeHiddenAssets: true), in: library))
        let decoded = try Wire.FetchResultObjectsResponse(decoding: bytes)
        XCTAssertEqual(decoded.assets.map(Asset.init), try library.assets(page: list, of: AssetQuery(includeHiddenAssets: true)).map { Asset(Wire.Asset($0)) })
        XCTAssertTrue(decoded.assets.contains { $0.location?.hasAltitude == true } && decoded.assets.contains { $0.burstIdentifier == "bürst ✓" })
    }

    func testPagesThatAreNoLongerOneRangeGoTheGeneralWay() throws {
        let query = AssetQuery()
        let list = try library.fetchAssetIdentifiers(query)
        // One asset moves to the end of the order, one is trashed: pages holding them are not
        // one range any more.
        try library.executeForTesting("UPDATE asset SET creation_date = creation_date + 86400000000 WHERE local_identifier = '\(list[3])'")
        try library.executeForTesting("UPDATE asset SET trashed = 1, trashed_date = 5 WHERE local_identifier = '\(list[10])'")
        XCTAssertNil(try PhotoLibraryService.encodedDirectly(Array(list[0..<7]), at: 0, of: query, in: library))
        XCTAssertNil(try PhotoLibraryService.encodedDirectly(Array(list[8..<12]), at: 8, of: query, in: library))
        XCTAssertNotNil(try PhotoLibraryService.encodedDirectly(Array(list[11..<20]), at: 11, of: query, in: library))
        let (direct, pages) = try comparePages(query, list)
        XCTAssertTrue(direct > 0 && direct < pages)
        // A page repeating an identifier is not a range either.
        XCTAssertNil(try PhotoLibraryService.encodedDirectly([list[12], list[12]], at: 12, of: query, in: library))
    }

    func testAlbumOrderAndMixedDirectionsGoTheGeneralWay() throws {
        let album = try library.createAlbum(title: "Trip")
        let list = try library.fetchAssetIdentifiers(AssetQuery())
        try library.addAssets(Array(list[0..<5]), toAlbum: album.localIdentifier)
        let inAlbum = AssetQuery(collection: album.localIdentifier)
        XCTAssertNil(try PhotoLibraryService.encodedDirectly(try library.fetchAssetIdentifiers(inAlbum), at: 0, of: inAlbum, in: library))
        let mixed = AssetQuery(sortDescriptors: [AssetSortDescriptor(key: .mediaType, ascending: true), AssetSortDescriptor(key: .pixelWidth, ascending: false)])
        XCTAssertNil(try PhotoLibraryService.encodedDirectly(try library.fetchAssetIdentifiers(mixed), at: 0, of: mixed, in: library))
    }

    func testARowAnAssetWouldRepairGoesTheGeneralWay() throws {
        let query = AssetQuery()
        let list = try library.fetchAssetIdentifiers(query)
        // A burst identifier that is not UTF-8: `Asset` repairs it, so the bytes would differ.
        try library.executeForTesting("UPDATE asset SET burst_identifier = CAST(x'62FF63' AS TEXT) WHERE local_identifier = '\(list[2])'")
        XCTAssertNil(try PhotoLibraryService.encodedDirectly(Array(list[0..<5]), at: 0, of: query, in: library))
        XCTAssertNotNil(try PhotoLibraryService.encodedDirectly(Array(list[3..<9]), at: 3, of: query, in: library))
        // Subtypes beyond 32 bits: the general path refuses the page (dataLoss), the direct
        // one leaves it to it.
        try library.executeForTesting("UPDATE asset SET media_subtypes = 4294967296 WHERE local_identifier = '\(list[6])'")
        XCTAssertNil(try PhotoLibraryService.encodedDirectly(Array(list[3..<9]), at: 3, of: query, in: library))
        XCTAssertThrowsError(try library.assets(page: Array(list[3..<9]), of: query))
    }
}
