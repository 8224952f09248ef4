import Foundation
import PhotoLibTestSupport
import PhotoLibClient
import PhotoLibWire
import XCTest

/// Fetch results as server-side snapshots, over a fetch larger than one page: `count`,
/// `object(at:)`, `objects(in:)`, `firstObject`/`lastObject`, `index(of:)`, `contains`, raw
/// `FetchResultObjects` paging, immutability after changes, release and eviction.
final class SnapshotTests: XCTestCase {
    nonisolated(unsafe) private static var fixture: UploadLibrary?
    /// The 450 uploaded assets, oldest first (creation dates one minute apart in 2035).
    nonisolated(unsafe) private static var created: [String] = []

    private var fixture: UploadLibrary { Self.fixture! }
    private var created: [String] { Self.created }
    /// 2035-01-01T00:00:00Z: every uploaded asset is created after it, the imported photo before.
    private static let start = Date(timeIntervalSince1970: 2_051_222_400)

    override func setUp() async throws {
        if Self.fixture == nil {
            let fixture = try UploadLibrary("snapshots")
            Self.fixture = fixture
            let library = try await connectClient(fixture.server)
            defer { library.close() }
            let base = try await fixture.smallBases(library)[0]
            let photos = (0..<450).map { index in
                PhotoToCreate(bytes: photoVariant(base, tag: "snapshot \(index)"), filename: "s\(index).jpg",
                              creationDate: Self.start.addingTimeInterval(Double(index) * 60), isFavorite: index % 3 == 0)
            }
            Self.created = try await createAssets(library, photos)
        }
    }

    override class func tearDown() {
        fixture?.shutDown()
        fixture = nil
    }

    /// Default order: the imported photo (older), then the uploads in creation order.
    private var expectedAll: [String] { [fixture.landscapeID] + created }

    func testCountPagesFirstLastAndRandomAccessMatchTheOrder() async throws {
        let library = try await connectClient(fixture.server)
        defer { library.close() }
        let expected = expectedAll
        XCTAssertGreaterThan(expected.count, 2 * FetchResult<Asset>.pageSize, "the fetch spans several pages")

        let result = try await library.fetchAssets()
        XCTAssertEqual(result.count, expected.count)
        XCTAssertFalse(result.isEmpty)
        let first = try await result.firstObject
        XCTAssertEqual(first?.localIdentifier, expected.first)
        let last = try await result.lastObject
        XCTAssertEqual(last?.localIdentifier, expected.last)

        // object(at:) on fresh snapshots (no client cache beyond the prefetched first page),
        // at page boundaries and past the prefetch.
        for index in [0, 1, 199, 200, 201, 399, 400, 401, 449, 450] {
            let fresh = try await library.fetchAssets()
            let object = try await fresh.object(at: index)
            XCTAssertEqual(object.localIdentifier, expected[index], "object(at: \(index))")
            try await fresh.release()
        }
        // objects(in:) across page boundaries.
        for range in [0..<451, 150..<420, 199..<201, 333..<334, 450..<451, 200..<200] {
            let fresh = try await library.fetchAssets()
            let objects = try await fresh.objects(in: range).map(\.localIdentifier)
            XCTAssertEqual(objects, Array(expected[range]), "objects(in: \(range))")
        }
        // Out of range.
        await assertThrowsPhotoLibError(.outOfRange, "object(at: count)") { try await result.object(at: expected.count) }
        await assertThrowsPhotoLibError(.outOfRange, "object(at: -1)") { try await result.object(at: -1) }
        await assertThrowsPhotoLibError(.outOfRange, "objects(in:) past the end") { try await result.objects(in: 400..<452) }

        // index(of:) / contains: answered by the server for objects the client has not seen.
        for index in [0, 250, 437, 450] {
            let fresh = try await library.fetchAssets(with: FetchOptions(fetchLimit: 451))
            let found = try await fresh.index(of: expected[index])
            XCTAssertEqual(found, index, "index(of: object \(index))")
            let contained = try await fresh.contains(expected[index])
            XCTAssertTrue(contained)
        }
        let unknown = LocalIdentifier.newAsset()
        let missing = try await result.index(of: unknown)
        XCTAssertNil(missing)
        let containsUnknown = try await result.contains(unknown)
        XCTAssertFalse(containsUnknown)

        // A sorted, filtered, limited snapshot.
        let descending = try await library.fetchAssets(with: FetchOptions(
            predicate: "creationDate >= 2035-01-01 AND isFavorite == true", sortDescriptors: [AssetSortDescriptor(key: .creationDate, ascending: false)], fetchLimit: 120))
        let favorites = Array(created.enumerated().filter { $0.offset % 3 == 0 }.map(\.element).reversed())
        XCTAssertEqual(descending.count, 120)
        let page = try await descending.objects(in: 0..<120).map(\.localIdentifier)
        XCTAssertEqual(page, Array(favorites.prefix(120)))
        let position = try await descending.index(of: favorites[119])
        XCTAssertEqual(position, 119)
        let beyondLimit = try await descending.index(of: favorites[120])
        XCTAssertNil(beyondLimit, "an asset cut by fetchLimit is not in the snapshot")
    }

    func testRawPagingHonoursOffsetsLengthsAndEnds() throws {
        let connection = try RawConnection(port: fixture.server.port)
        _ = try connection.handshake(token: fixture.server.token)
        var stream: UInt32 = 1
        func call<Request, Response>(_ method: MethodDescriptor<Request, Response, CallKinds.Unary>, _ request: Request, _: Response.Type) throws -> (Response?, Wire.Status) {
            defer { stream += 2 }
            let result = try connection.call(stream: stream, method: method.path, request: request.encoded())
            guard result.status.code == .ok else { return (nil, result.status) }
            guard result.messages.count == 1 else { throw E2EError("\(method.path): \(result.messages.count) messages") }
            return (try Response(decoding: result.messages[0]), result.status)
        }
        let expected = expectedAll
        let (snapshot, status) = try call(PhotoLibraryMethods.fetchAssets, Wire.FetchAssetsRequest(prefetchCount: 0), Wire.FetchResultSnapshot.self)
        let id = try XCTUnwrap(snapshot?.fetchResultID, "FetchAssets failed: \(status)")
        XCTAssertEqual(snapshot?.count, UInt64(expected.count))
        XCTAssertEqual(snapshot?.assets.count, 0, "prefetch 0 ships no object")

        // Pages of 7 objects, identifiers only, until count.
        var paged: [String] = []
        while paged.count < expected.count {
            let (page, status) = try call(PhotoLibraryMethods.fetchResultObjects, Wire.FetchResultObjectsRequest(fetchResultID: id, offset: UInt64(paged.count), length: 7, identifiersOnly: true), Wire.FetchResultObjectsResponse.self)
            let response = try XCTUnwrap(page, "page at \(paged.count): \(status)")
            XCTAssertEqual(response.offset, UInt64(paged.count))
            XCTAssertEqual(response.localIdentifiers.count, min(7, expected.count - paged.count))
            XCTAssertEqual(response.assets.count, 0, "identifiersOnly ships no object")
            guard !response.localIdentifiers.isEmpty else { break }
            paged += response.localIdentifiers
        }
        XCTAssertEqual(paged, expected)

        // A length above 1000 is served as at most 1000 (here: up to count), with objects.
        let (big, _) = try call(PhotoLibraryMethods.fetchResultObjects, Wire.FetchResultObjectsRequest(fetchResultID: id, offset: 1, length: 5000), Wire.FetchResultObjectsResponse.self)
        let bigPage = try XCTUnwrap(big)
        XCTAssertGreaterThan(bigPage.localIdentifiers.count, 0)
        XCTAssertEqual(bigPage.localIdentifiers, Array(expected[1..<(1 + bigPage.localIdentifiers.count)]))
        XCTAssertEqual(bigPage.assets.map(\.localIdentifier), bigPage.localIdentifiers)
        // offset == count: an empty page; offset > count: OUT_OF_RANGE.
        let (end, _) = try call(PhotoLibraryMethods.fetchResultObjects, Wire.FetchResultObjectsRequest(fetchResultID: id, offset: UInt64(expected.count), length: 10), Wire.FetchResultObjectsResponse.self)
        XCTAssertEqual(end?.localIdentifiers, [])
        let (_, past) = try call(PhotoLibraryMethods.fetchResultObjects, Wire.FetchResultObjectsRequest(fetchResultID: id, offset: UInt64(expected.count + 1), length: 10), Wire.FetchResultObjectsResponse.self)
        XCTAssertEqual(past.code, .outOfRange, past.message)

        // Index of the last object, then release: every use fails with FETCH_RESULT_EXPIRED.
        let (index, _) = try call(PhotoLibraryMethods.fetchResultIndex, Wire.FetchResultIndexRequest(fetchResultID: id, localIdentifier: expected[450]), Wire.FetchResultIndexResponse.self)
        XCTAssertEqual(index?.found, true)
        XCTAssertEqual(index?.index, 450)
        let (_, released) = try call(PhotoLibraryMethods.releaseFetchResult, Wire.ReleaseFetchResultRequest(fetchResultID: id), Wire.Empty.self)
        XCTAssertEqual(released.code, .ok)
        let (_, afterRelease) = try call(PhotoLibraryMethods.fetchResultObjects, Wire.FetchResultObjectsRequest(fetchResultID: id, offset: 0, length: 1), Wire.FetchResultObjectsResponse.self)
        XCTAssertEqual(afterRelease.code, .failedPrecondition)
        XCTAssertEqual(afterRelease.reason, .fetchResultExpired)
        XCTAssertFalse(afterRelease.message.isEmpty)
    }

    func testSnapshotIsImmutableAndExpiresAfterReleaseOrEviction() async throws {
        let library = try await connectClient(fixture.server)
        defer { library.close() }
        let expected = expectedAll
        let before = try await library.fetchAssets()
        let beforeFavorites = try await library.fetchAssets(in: LocalIdentifier.smartAlbum(.smartAlbumFavorites))
        XCTAssertEqual(beforeFavorites.count, 150)

        // A change after the fetch does not move the snapshot: flag and unflag one asset.
        let target = created[300]  // 300 % 3 == 0: a favourite
        _ = try await library.performChanges { $0.setProperties(of: target, isFavorite: false) }
        let favoritesNow = try await library.fetchAssets(in: LocalIdentifier.smartAlbum(.smartAlbumFavorites))
        XCTAssertEqual(favoritesNow.count, 149, "a new fetch sees the change")
        let stillThere = try await beforeFavorites.index(of: target)
        XCTAssertNotNil(stillThere, "the old snapshot still holds the asset")
        XCTAssertEqual(beforeFavorites.count, 150)
        _ = try await library.performChanges { $0.setProperties(of: target, isFavorite: true) }
        let afterCount = try await library.fetchAssets(in: LocalIdentifier.smartAlbum(.smartAlbumFavorites)).count
        XCTAssertEqual(afterCount, 150)

        // Release: every use of the snapshot that reaches the server fails with
        // FAILED_PRECONDITION / fetchResultExpired (the client still answers from what it has
        // cached: here the prefetched page 0..<200 and the page 300..<500).
        let page = try await before.object(at: 300)
        XCTAssertEqual(page.localIdentifier, expected[300])
        try await before.release()
        await assertThrowsPhotoLibError(.failedPrecondition, reason: .fetchResultExpired, "object(at:) after release") { try await before.object(at: 250) }
        await assertThrowsPhotoLibError(.failedPrecondition, reason: .fetchResultExpired, "index(of:) after release") { try await before.index(of: expected[210]) }
        // Releasing twice is harmless.
        try await before.release()

        // Bounded per connection: the 256 most recently used snapshots live; older ones expire.
        let oldest = try await library.fetchAssets(with: FetchOptions(fetchLimit: 1))
        for _ in 0..<256 { _ = try await library.fetchAssets(with: FetchOptions(fetchLimit: 1)) }
        await assertThrowsPhotoLibError(.failedPrecondition, reason: .fetchResultExpired, "the least recently used snapshot beyond 256") {
            try await oldest.index(of: expected[1])
        }
        // Snapshots belong to their connection: another connection cannot use them.
        let recent = try await library.fetchAssets(with: FetchOptions(fetchLimit: 451))
        let stolen = FetchResultHandle(id: recent.fetchResultID)
        let response = try await stolen.index(on: fixture.server, of: expected[5])
        XCTAssertEqual(response.code, .failedPrecondition)
        XCTAssertEqual(response.reason, .fetchResultExpired)
        let mine = try await recent.index(of: expected[430])
        XCTAssertEqual(mine, 430)
    }
}

/// A snapshot id used from a fresh raw connection.
private struct FetchResultHandle {
    var id: String

    func index(on server: ServerProcess, of identifier: String) async throws -> Wire.Status {
        let connection = try RawConnection(port: server.port)
        _ = try connection.handshake(token: server.token)
        let result = try connection.call(stream: 1, method: PhotoLibraryMethods.fetchResultIndex.path, request: Wire.FetchResultIndexRequest(fetchResultID: id, localIdentifier: identifier).encoded())
        return result.status
    }
}
