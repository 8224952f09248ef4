import Foundation
import PhotoLibCore
import XCTest

@testable import PhotoLibWire

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
            location: Location(latitude: 48.8584, longitude: 2.2945, altitude: 35), hasAdjustments: true)
    }

    func testControlMessages() throws {
        try roundTrip(Hello(token: "tøken", clientName: "tests 📷", maxFrameSize: 65536, initialStreamWindow: 1 << 20, initialConnectionWindow: 1 << 22))
        try roundTrip(Welcome(serverName: "photolibd/test", libraryIdentifier: "lib", maxFrameSize: 1 << 20, initialStreamWindow: 1, initialConnectionWindow: 2, maxConcurrentStreams: 100, idleTimeoutMs: 300_000, authorizationStatus: .limited, accessLevel: .addOnly, isOwner: true))
        try roundTrip(CallStart(method: PhotoLibraryMethods.fetchAssets.path, timeoutMs: 1500, metadata: [MetadataEntry(key: "k", value: "v")]))
        try roundTrip(CallStatus(code: .failedPrecondition, message: "gone", reason: .persistentChangeTokenExpired, failedRequestIndex: 3))
        try roundTrip(CallStatus.ok)
        try roundTrip(CancelMessage(reason: "bye"))
        try roundTrip(WindowUpdate(increment: 65535))
        try roundTrip(Ping(opaque: .max))
        try roundTrip(GoAway(lastStreamID: 7, status: CallStatus(code: .unavailable, message: "server shutting down")))
        try roundTrip(EmptyMessage())
    }

    func testStatusCodeNumbersAreGRPCs() throws {
        for code in StatusCode.allCases {
            XCTAssertEqual(try CallStatus(decoding: CallStatus(code: code).encoded()).code, code)
        }
        XCTAssertEqual(StatusCode.unauthenticated.rawValue, 16)
        XCTAssertEqual(StatusCode.unimplemented.rawValue, 12)
    }

    func testFetchMessages() throws {
        try roundTrip(FetchAssetsRequest(
            options: FetchOptions(predicate: "isFavorite == true", sortDescriptors: AssetSortKey.allCases.map { AssetSortDescriptor(key: $0, ascending: $0.rawValue.count % 2 == 0) }, fetchLimit: 10, includeHiddenAssets: true),
            collectionIdentifier: "smart-209/L0/040", localIdentifiers: ["a", "b"], mediaTypes: [.image, .video], prefetchCount: 50))
        try roundTrip(FetchAssetsRequest())
        try roundTrip(FetchAssetCollectionsRequest(type: .album, subtype: .albumRegular, localIdentifiers: ["x"], containingAssetIdentifier: "y", parentFolderIdentifier: "z", prefetchCount: 3))
        let collection = AssetCollection(localIdentifier: "smart-209/L0/040", title: "All Photos", type: .smartAlbum, subtype: .smartAlbumUserLibrary, estimatedAssetCount: 4, startDate: date, endDate: date, keyAssetIdentifier: "k", parentFolderIdentifier: nil)
        try roundTrip(FetchResultSnapshot(fetchResultID: "fr-1", objectType: .asset, count: 1_000_000, expiresAt: date, prefetched: .assets([asset, asset])))
        try roundTrip(FetchResultSnapshot(fetchResultID: "fr-2", objectType: .assetCollection, count: 1, expiresAt: date, prefetched: .assetCollections([collection])))
        try roundTrip(FetchResultObjectsRequest(fetchResultID: "fr-1", offset: 999_000, length: 1000, identifiersOnly: true))
        try roundTrip(FetchResultObjectsResponse(offset: 5, localIdentifiers: [asset.localIdentifier, "gone/L0/001"], objects: .assets([asset])))
        try roundTrip(FetchResultIndexRequest(fetchResultID: "fr", localIdentifier: "id"))
        try roundTrip(FetchResultIndexResponse(index: 0))
        try roundTrip(FetchResultIndexResponse(index: nil))
        try roundTrip(ReleaseFetchResultRequest(fetchResultID: "fr"))
        try roundTrip(LibraryInfo(libraryIdentifier: "l", serverName: "s", assetCount: 3, albumCount: 1, currentChangeToken: "t"))
    }

    func testAssetWithoutOptionalFields() throws {
        var plain = asset
        plain.location = nil
        plain.burstIdentifier = nil
        let decoded = try FetchResultSnapshot(decoding: FetchResultSnapshot(fetchResultID: "f", objectType: .asset, count: 1, expiresAt: date, prefetched: .assets([plain])).encoded())
        XCTAssertEqual(decoded.prefetched, .assets([plain]))
    }

    func testImageMessages() throws {
        try roundTrip(ImageRequest(
            assetIdentifier: "a/L0/001", targetSize: PixelSize(width: 256, height: 256), contentMode: .aspectFill,
            options: ImageRequestOptions(deliveryMode: .fastFormat, resizeMode: .exact, version: .original, normalizedCropRect: NormalizedRect(x: 0.1, y: 0.2, width: 0.5, height: 0.5)),
            wantsProgress: true, requestID: 42, bypassCache: true))
        try roundTrip(ImageResponse.start(ImageStart(width: 10, height: 20, byteCount: 300, degraded: true, imageIndex: 0)))
        try roundTrip(ImageResponse.chunk(offset: 65536, data: [UInt8](repeating: 0xAB, count: 65536)))
        try roundTrip(ImageResponse.end(imageIndex: 1, isFinal: true))
        try roundTrip(ImageResponse.progress(0.5))
        try roundTrip(CancelImageRequestRequest(requestID: 9))
    }

    func testUnknownEnumValuesAreClearErrors() {
        // ImageRequest with content_mode (field 4, varint) = 9.
        XCTAssertThrowsError(try ImageRequest(decoding: [0x20, 0x09])) { error in
            XCTAssertEqual((error as? PhotoLibError)?.code, .invalidArgument)
        }
        // SortDescriptor key 99 inside FetchOptions inside FetchAssetsRequest.
        let sort: [UInt8] = [0x08, 99]
        let options: [UInt8] = [0x12, UInt8(sort.count)] + sort
        XCTAssertThrowsError(try FetchAssetsRequest(decoding: [0x0A, UInt8(options.count)] + options))
    }
}
