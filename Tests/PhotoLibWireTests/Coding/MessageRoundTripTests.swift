import Foundation
import PhotoLibCore
import XCTest

@testable import PhotoLibWire

/// The generated codecs: every kind of field (scalars, text, bytes, enums, nested and
/// optional messages, repeated fields, oneofs) survives encoding and decoding through
/// protobuf-c, and unknown enum numbers are kept, as proto3 wants.
final class MessageRoundTripTests: XCTestCase {
    private func roundTrip<M: WireMessage & Equatable>(_ message: M, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try M(decoding: message.encoded()), message, file: file, line: line)
    }

    private let date = Date(timeIntervalSince1970: 1_700_000_000.123)

    private var asset: Asset {
        Asset(
            localIdentifier: "A0B1C2D3-0000-4000-8000-000000000001/L0/001", mediaType: .image, mediaSubtypes: [.photoScreenshot, .photoHDR],
            pixelWidth: 4032, pixelHeight: 3024, creationDate: date, modificationDate: date.addingTimeInterval(60),
            isFavorite: true, isHidden: false, duration: 0, burstIdentifier: "burst-1",
            location: Location(latitude: 48.8584, longitude: 2.2945, altitude: 35), hasAdjustments: true,
            trashedDate: date.addingTimeInterval(120), contentVersion: 3)
    }

    func testControlMessages() throws {
        try roundTrip(Wire.Hello(protocolVersion: 1, token: "tøken", clientName: "tests 📷", maxFrameSize: 65536, initialStreamWindow: 1 << 20, initialConnectionWindow: 1 << 22))
        try roundTrip(Wire.Welcome(
            protocolVersion: 1, serverName: "photolibd/test", libraryIdentifier: "lib", maxFrameSize: 1 << 20, initialStreamWindow: 1,
            initialConnectionWindow: 2, maxConcurrentStreams: 100, idleTimeoutMs: 300_000, authorizationStatus: .limited,
            accessLevel: .addOnly, isOwner: true, maxImageDimension: 8192))
        try roundTrip(Wire.CallStart(method: PhotoLibraryMethods.fetchAssets.path, timeoutMs: 1500, metadata: [Wire.MetadataEntry(key: "k", value: "v")]))
        try roundTrip(Wire.Status(PhotoLibError(.failedPrecondition, "gone", reason: .persistentChangeTokenExpired, failedRequestIndex: 3)))
        try roundTrip(Wire.Status.ok)
        try roundTrip(Wire.Cancel(reason: "bye"))
        try roundTrip(Wire.WindowUpdate(increment: 65535))
        try roundTrip(Wire.Ping(opaque: .max))
        try roundTrip(Wire.GoAway(lastStreamID: 7, status: Wire.Status(code: .unavailable, message: "server shutting down")))
        try roundTrip(Wire.GoAway(lastStreamID: 0, status: nil))
        try roundTrip(Wire.Empty())
        XCTAssertEqual(Wire.Empty().encoded(), [])
    }

    func testStatusCarriesEveryErrorCodeAndTheFailedIndex() throws {
        for code in StatusCode.allCases where code != .ok {
            let error = PhotoLibError(code, "m", failedRequestIndex: 0)
            let decoded = try Wire.Status(decoding: Wire.Status(error).encoded())
            XCTAssertEqual(decoded.error?.code, code)
            XCTAssertEqual(decoded.error?.failedRequestIndex, 0)
            XCTAssertEqual(decoded.code.rawValue, Int32(code.rawValue), "gRPC's numbers")
        }
        XCTAssertNil(Wire.Status.ok.error)
        XCTAssertEqual(Wire.StatusCode.unauthenticated.rawValue, 16)
        XCTAssertEqual(Wire.StatusCode.unimplemented.rawValue, 12)
        // A code this build does not know reads as UNKNOWN, keeping the message.
        let future = try Wire.Status(decoding: Wire.Status(code: .unrecognized(77), message: "new").encoded())
        XCTAssertEqual(future.code, .unrecognized(77))
        XCTAssertEqual(future.error?.code, .unknown)
        XCTAssertEqual(future.error?.message, "new")
    }

    func testFetchMessagesAndTheirMappings() throws {
        let options = FetchOptions(
            predicate: "isFavorite == true",
            sortDescriptors: AssetSortKey.allCases.map { AssetSortDescriptor(key: $0, ascending: $0.rawValue.count % 2 == 0) },
            fetchLimit: 10, includeHiddenAssets: true)
        let request = Wire.FetchAssetsRequest(
            options: try Wire.FetchOptions(options, collectionIdentifier: "smart-209/L0/040", localIdentifiers: ["a", "b"], mediaTypes: [.image, .video]),
            prefetchCount: 50)
        try roundTrip(request)
        let decoded = try Wire.FetchAssetsRequest(decoding: request.encoded())
        XCTAssertEqual(try decoded.options?.domain(), options)
        XCTAssertEqual(try decoded.options?.domainMediaTypes(), [.image, .video])
        XCTAssertEqual(decoded.options?.collectionIdentifier, "smart-209/L0/040")
        try roundTrip(Wire.FetchAssetsRequest())
        XCTAssertNil(try Wire.FetchAssetsRequest(decoding: []).options, "an absent message field decodes as nil")
        try roundTrip(Wire.FetchAssetCollectionsRequest(
            type: .album, subtype: .albumRegular, localIdentifiers: ["x"], containingAssetIdentifier: "y", parentFolderIdentifier: "z", prefetchCount: 3))
        let collection = AssetCollection(
            localIdentifier: "smart-209/L0/040", title: "All Photos", type: .smartAlbum, subtype: .smartAlbumUserLibrary,
            estimatedAssetCount: 4, startDate: date, endDate: date, keyAssetIdentifier: "k", parentFolderIdentifier: nil)
        try roundTrip(Wire.FetchResultSnapshot(fetchResultID: "fr-1", objectType: .asset, count: 1_000_000, expiresAtMs: 5, assets: [Wire.Asset(asset), Wire.Asset(asset)]))
        try roundTrip(Wire.FetchResultSnapshot(fetchResultID: "fr-2", objectType: .assetCollection, count: 1, assetCollections: [Wire.AssetCollection(collection)]))
        try roundTrip(Wire.FetchResultObjectsRequest(fetchResultID: "fr-1", offset: 999_000, length: 1000, identifiersOnly: true))
        try roundTrip(Wire.FetchResultObjectsResponse(offset: 5, assets: [Wire.Asset(asset)], localIdentifiers: [asset.localIdentifier, "gone/L0/001"]))
        try roundTrip(Wire.FetchResultIndexResponse(found: true, index: 0))
        try roundTrip(Wire.LibraryInfo(libraryIdentifier: "l", serverName: "s", assetCount: 3, albumCount: 1, currentChangeToken: "t"))
        // Domain values survive the trip through the wire types.
        XCTAssertEqual(Asset(try Wire.Asset(decoding: Wire.Asset(asset).encoded())), asset)
        XCTAssertEqual(try AssetCollection(try Wire.AssetCollection(decoding: Wire.AssetCollection(collection).encoded())), collection)
    }

    func testAssetWithoutOptionalFields() throws {
        var plain = asset
        plain.location = nil
        plain.burstIdentifier = nil
        let snapshot = Wire.FetchResultSnapshot(fetchResultID: "f", objectType: .asset, count: 1, assets: [Wire.Asset(plain)])
        let decoded = try Wire.FetchResultSnapshot(decoding: snapshot.encoded())
        XCTAssertNil(decoded.assets.first?.location)
        XCTAssertEqual(decoded.assets.map(Asset.init), [plain])
    }

    func testOneofsAndBytes() throws {
        let parts: [Wire.ImageResponse.Part] = [
            .start(Wire.ImageStart(width: 10, height: 20, byteCount: 300, degraded: true, uniformTypeIdentifier: "public.jpeg", imageIndex: 0)),
            .chunk(Wire.ImageChunk(offset: 65536, data: [UInt8](repeating: 0xAB, count: 65536))),
            .end(Wire.ImageEnd(imageIndex: 1, isFinal: true)),
            .progress(Wire.ImageProgress(fraction: 0.5)),
        ]
        for part in parts { try roundTrip(Wire.ImageResponse(part: part)) }
        XCTAssertNil(try Wire.ImageResponse(decoding: []).part, "no oneof member set")
        try roundTrip(Wire.UploadChunk(part: .header(Wire.UploadHeader(originalFilename: "IMG_1.JPG", size: 9, uniformTypeIdentifier: "public.jpeg"))))
        try roundTrip(Wire.UploadChunk(part: .data([0, 1, 2, 0xFF])))
        try roundTrip(Wire.UploadChunk(part: .data([])))
    }

    func testChangeRequestsMapBothWays() throws {
        let requests: [ChangeRequest] = [
            .createAsset(.init(uploadID: "u1", placeholder: "$1", creationDate: date, location: .set(Location(latitude: 1, longitude: 2)), isFavorite: true, isHidden: false)),
            .createAlbum(title: "Trip", placeholder: "$2", parentFolder: nil),
        ]
        let wire = try Wire.PerformChangesRequest(decoding: Wire.PerformChangesRequest(requests).encoded())
        XCTAssertEqual(try wire.domain(), requests)
    }

    func testPersistentChangesMapBothWays() throws {
        let change = PersistentChange(token: 42, committedAt: Date(timeIntervalSince1970: 1_700_000_000.5), author: "import", objects: [
            ObjectChange(objectType: .asset, identifier: "a", kind: .inserted),
            ObjectChange(objectType: .asset, identifier: "b", kind: .updated),
            ObjectChange(objectType: .assetCollection, identifier: "c", kind: .deleted),
        ])
        let wire = try Wire.PersistentChange(decoding: Wire.PersistentChange(change).encoded())
        XCTAssertEqual(wire.changes.count, 2, "grouped by object type")
        XCTAssertEqual(try PersistentChange(wire), change)
        XCTAssertThrowsError(try PersistentChange(Wire.PersistentChange(changeToken: "x")))
    }

    /// docs/PROTOCOL.md 13.1: unknown enum numbers are kept; a mode reads as its default (0),
    /// a sort key (which would select another order) is refused.
    func testUnknownEnumNumbersAreKeptDefaultedOrRefusedAtTheDomain() throws {
        // ImageRequest with content_mode (field 4, varint) = 9 and delivery_mode (5) = 40.
        let request = try Wire.ImageRequest(decoding: [0x20, 0x09, 0x28, 40])
        XCTAssertEqual(request.contentMode, .unrecognized(9))
        XCTAssertEqual(try Wire.ImageRequest(decoding: request.encoded()).contentMode, .unrecognized(9), "re-encoded as received")
        let (mode, imageOptions) = try request.domain()
        XCTAssertEqual(mode, ContentMode(rawValue: 0))
        XCTAssertEqual(imageOptions.deliveryMode, DeliveryMode(rawValue: 0))
        // SortDescriptor key 99 inside FetchOptions inside FetchAssetsRequest.
        let sort: [UInt8] = [0x08, 99]
        let options: [UInt8] = [0x12, UInt8(sort.count)] + sort
        let fetch = try Wire.FetchAssetsRequest(decoding: [0x0A, UInt8(options.count)] + options)
        XCTAssertEqual(fetch.options?.sortDescriptors.first?.key, .unrecognized(99))
        XCTAssertThrowsError(try fetch.options?.domain())
    }
}
