import Foundation
import PhotoLibClient
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// An add-only client adds and changes nothing that was there (docs/PROTOCOL.md 16b): its
/// movie does not become the Live Photo video of the owner's still, and creating an asset from
/// bytes the library holds neither names that asset nor brings it back from the trash. Its own
/// uploads still pair with each other.
final class AddOnlyUploadTests: XCTestCase {
    private var server: InProcessServer!
    private var owner: PhotoLibrary!
    private var uploader: PhotoLibrary!

    private static func media(_ name: String) throws -> [UInt8] {
        try Fixtures.bytes(at: Fixtures.path("Tests/Fixtures/media/" + name))
    }

    override func setUp() async throws {
        server = try InProcessServer()
        owner = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        let anonymous = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: "")
        let state = try await anonymous.call(
            PhotoLibraryMethods.requestAuthorization, Wire.AuthorizationRequest(accessLevel: .addOnly, clientName: "Camera uploader"))
        anonymous.close()
        try await owner.setAuthorization(.authorized, for: .addOnly, client: state.clientIdentifier)
        uploader = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: state.clientToken)
    }

    override func tearDown() async throws {
        uploader?.close()
        owner?.close()
        await server?.tearDown()
    }

    /// Creates one asset per upload in one batch; the identifiers the answer names.
    private func create(_ uploads: [Upload], in library: PhotoLibrary) async throws -> [String?] {
        var placeholders: [ObjectPlaceholder] = []
        let result = try await library.performChanges { batch in placeholders = uploads.map { batch.createAsset(from: $0) } }
        return placeholders.map { result.localIdentifier(for: $0) }
    }

    private func resourceTypes(_ asset: String) async throws -> Set<AssetResourceType> {
        Set(try await AssetResourceManager(library: owner).assetResources(for: asset).map(\.type))
    }

    func testAnAddOnlyMovieDoesNotPairWithTheOwnersStill() async throws {
        let stillCreated = try await create([try await owner.upload(try Self.media("jpeg_live_still.jpg"), filename: "P1000.JPG")], in: owner)
        let stillID = try XCTUnwrap(stillCreated[0])
        // The movie with the still's content identifier, from the add-only client: a video of
        // its own, not the still's paired video.
        let movieCreated = try await create([try await uploader.upload(try Self.media("live-IMG_0002.mov"), filename: "IMG_0002.MOV")], in: uploader)
        let movieID = try XCTUnwrap(movieCreated[0])
        XCTAssertNotEqual(movieID, stillID)
        let stillFound = try await owner.fetchAssets(withLocalIdentifiers: [stillID]).firstObject
        let still = try XCTUnwrap(stillFound)
        XCTAssertFalse(still.mediaSubtypes.contains(.photoLive), "the owner's still is unchanged")
        let stillTypes = try await resourceTypes(stillID)
        XCTAssertEqual(stillTypes, [.photo])
        let movieFound = try await owner.fetchAssets(withLocalIdentifiers: [movieID]).firstObject
        let movie = try XCTUnwrap(movieFound)
        XCTAssertEqual(movie.mediaType, .video)
    }

    func testBytesTheLibraryHoldsAreNeitherNamedNorRestored() async throws {
        let bytes = try Self.media("webp_photo.webp")
        let ownerCreated = try await create([try await owner.upload(bytes, filename: "p.webp")], in: owner)
        let ownerID = try XCTUnwrap(ownerCreated[0])
        _ = try await owner.performChanges([.deleteAssets([ownerID])])
        let upload = try await uploader.upload(bytes, filename: "again.webp")
        XCTAssertNil(upload.existingAssetIdentifier, "the upload does not say which asset holds the bytes")
        let created = try await create([upload], in: uploader)
        XCTAssertEqual(created, [nil], "nor does creating an asset from it")
        let visible = try await owner.fetchAssets(withLocalIdentifiers: [ownerID]).count
        XCTAssertEqual(visible, 0, "the trashed asset stays in Recently Deleted")
        let trashed = try await owner.fetchAssets(in: LocalIdentifier.smartAlbum(.smartAlbumRecentlyDeleted)).allObjects().map(\.localIdentifier)
        XCTAssertEqual(trashed, [ownerID])
    }

    func testAnAddOnlyClientsOwnStillAndMoviePairInOneBatch() async throws {
        let uploads = [
            try await uploader.upload(try Self.media("jpeg_live_still.jpg"), filename: "IMG_0002.JPG"),
            try await uploader.upload(try Self.media("live-IMG_0002.mov"), filename: "IMG_0002.MOV"),
        ]
        let ids = try await create(uploads, in: uploader)
        let id = try XCTUnwrap(ids[0])
        XCTAssertEqual(ids[1], id, "one Live Photo")
        let found = try await owner.fetchAssets(withLocalIdentifiers: [id]).firstObject
        let asset = try XCTUnwrap(found)
        XCTAssertTrue(asset.mediaSubtypes.contains(.photoLive))
        let types = try await resourceTypes(id)
        XCTAssertEqual(types, [.photo, .pairedVideo])
    }
}
