import Foundation
import PhotoLibClient
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import XCTest

/// What the Swift API's documentation promises, against the real server code over the
/// in-process transport: arguments the wire cannot carry refused on the client, naming the
/// value given; cancellation surfacing as `PhotoLibError(.cancelled)`; a fetch result of
/// another connection refused before it is sent; a folder's albums; the type's example.
final class APIContractTests: XCTestCase {
    private var server: InProcessServer!
    private var library: PhotoLibrary!

    override func setUp() async throws {
        server = try InProcessServer(photos: [Fixtures.landscape])
        library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
    }

    override func tearDown() async throws {
        library?.close()
        await server?.tearDown()
    }

    /// Awaits `body` and checks it throws `code` with a message containing `text`.
    private func assertThrows(
        _ code: StatusCode, containing text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line,
        _ body: () async throws -> Void
    ) async {
        do {
            try await body()
            XCTFail("\(what) succeeded", file: file, line: line)
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, code, "\(what): \(error)", file: file, line: line)
            XCTAssertTrue(error.message.contains(text), "\(what): '\(error.message)' does not name \(text)", file: file, line: line)
        } catch {
            XCTFail("\(what) threw \(error), not a PhotoLibError", file: file, line: line)
        }
    }

    /// Before: a negative fetch limit was sent as 0 (no limit), and caching sizes were clamped
    /// (-5 x -5 sent as 0 x 0, the maximum size; 2^32 named as 4294967295 by the server).
    func testArgumentsTheWireCannotCarryAreRefusedOnTheClientNamingTheValueGiven() async throws {
        await assertThrows(.invalidArgument, containing: "fetchLimit -1", "fetchLimit -1") {
            _ = try await library.fetchAssets(with: FetchOptions(fetchLimit: -1))
        }
        await assertThrows(.invalidArgument, containing: "fetchLimit -3", "fetchLimit -3 in a media-type fetch") {
            _ = try await library.fetchAssets(with: .image, options: FetchOptions(fetchLimit: -3))
        }
        let subscription = try await library.subscribe()
        defer { subscription.cancel() }
        await assertThrows(.invalidArgument, containing: "fetchLimit -1", "registerFetch with fetchLimit -1") {
            _ = try await subscription.registerFetch(with: FetchOptions(fetchLimit: -1))
        }
        // 0 is no limit; a limit beyond the wire's range limits nothing.
        let unlimited = try await library.fetchAssets(with: FetchOptions(fetchLimit: 0)).count
        XCTAssertEqual(unlimited, 1)
        let huge = try await library.fetchAssets(with: FetchOptions(fetchLimit: 1 << 40)).count
        XCTAssertEqual(huge, 1)
        let registered = try await subscription.registerFetch(with: FetchOptions(fetchLimit: 1))
        XCTAssertEqual(registered.count, 1, "the subscription still works")

        let caching = CachingImageManager(library: library)
        for size in [PixelSize(width: -5, height: -5), PixelSize(width: 256, height: -1), PixelSize(width: 1 << 32, height: 1 << 32)] {
            await assertThrows(.invalidArgument, containing: "\(size.width)x\(size.height)", "caching at \(size)") {
                try await caching.startCachingImages(for: server.assets, targetSize: size)
            }
            await assertThrows(.invalidArgument, containing: "\(size.width)x\(size.height)", "stop caching at \(size)") {
                try await caching.stopCachingImages(for: server.assets, targetSize: size)
            }
        }
        for size in [PixelSize(width: -5, height: -5), PixelSize(width: 1 << 32, height: 1 << 32)] {
            await assertThrows(.invalidArgument, containing: "\(size.width)x\(size.height)", "an image at \(size)") {
                _ = try await library.imageManager.image(forAssetIdentifier: server.assets[0], targetSize: size)
            }
            await assertThrows(.invalidArgument, containing: "\(size.width)x\(size.height)", "an image stream at \(size)") {
                _ = try await library.imageManager.requestImage(forAssetIdentifier: server.assets[0], targetSize: size)
            }
        }
        let whole = try await library.imageManager.image(forAssetIdentifier: server.assets[0], targetSize: .maximum)
        XCTAssertEqual(whole.width, 4352, "PixelSize.maximum is still the full size")
        // The documented sentinel and ordinary sizes still work.
        try await caching.startCachingImages(for: server.assets, targetSize: .maximum)
        try await caching.startCachingImages(for: server.assets, targetSize: PixelSize(width: 256, height: 256))
        try await caching.stopCachingImagesForAllAssets()
    }

    /// A raw client can send any uint32: the server refuses target sides beyond its maximum
    /// image dimension and a target with one side 0 (docs/PROTOCOL.md 14, 14.1), naming them.
    func testTheServerRefusesOutOfRangeTargetSizesFromARawClient() async throws {
        let connection = try server.rawConnection()
        defer { connection.close() }
        _ = try connection.handshake(token: server.token)
        var stream: UInt32 = 1
        for (width, height) in [(UInt32.max, UInt32.max), (16_385, 16_385), (200, 0)] as [(UInt32, UInt32)] {
            let image = Wire.ImageRequest(assetIdentifier: server.assets[0], targetWidth: width, targetHeight: height)
            let imageCall = try connection.call(stream: stream, method: PhotoLibraryMethods.requestImage.path, request: image.encoded())
            XCTAssertEqual(imageCall.status.code, .invalidArgument, "RequestImage \(width)x\(height): \(imageCall.status.message)")
            XCTAssertTrue(imageCall.status.message.contains("\(width)x\(height)"), imageCall.status.message)
            let caching = Wire.CachingRequest(assetIdentifiers: server.assets, targetWidth: width, targetHeight: height)
            let cachingCall = try connection.call(stream: stream + 2, method: PhotoLibraryMethods.startCachingImages.path, request: caching.encoded())
            XCTAssertEqual(cachingCall.status.code, .invalidArgument, "StartCachingImages \(width)x\(height): \(cachingCall.status.message)")
            XCTAssertTrue(cachingCall.status.message.contains("\(width)x\(height)"), cachingCall.status.message)
            stream += 4
        }
    }

    /// Before: the cancelled task's response stream ended early and the call threw
    /// UNAVAILABLE "the input ended early: … of … full-size bytes".
    func testCancellingTheTaskAwaitingAContentEditingInputThrowsCancelled() async throws {
        let library = self.library!, asset = server.assets[0]
        let task = Task { () async throws -> ContentEditingInputData in
            try await library.requestContentEditingInput(for: asset) { fraction in
                // Runs on the task itself, between two parts of the full-size image.
                if fraction > 0, fraction < 1 { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        do {
            let input = try await task.value
            XCTFail("the cancelled request delivered \(input.fullSizeImage.count) bytes")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .cancelled, "\(error)")
        } catch {
            XCTFail("threw \(error), not PhotoLibError(.cancelled)")
        }
        // The connection goes on: the same input, uncancelled, arrives whole.
        let input = try await library.requestContentEditingInput(for: asset)
        XCTAssertEqual(input.fullSizeImage.count, input.input.byteCount)
        XCTAssertGreaterThan(input.fullSizeImage.count, 4 * 65_536, "the image comes in several parts")
    }

    /// Before: the result's id was sent, and the server answered "snapshot expired — fetch
    /// again … has expired or was released".
    func testRegisteringAFetchResultOfAnotherConnectionIsRefusedBeforeItIsSent() async throws {
        let other = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer { other.close() }
        let foreign = try await other.fetchAssets()
        let subscription = try await library.subscribe()
        defer { subscription.cancel() }
        await assertThrows(.invalidArgument, containing: "belongs to another connection", "registering another connection's result") {
            try await subscription.register(foreign)
        }
        // The subscription is untouched: a result of its own connection registers.
        let own = try await library.fetchAssets()
        try await subscription.register(own)
        try await subscription.unregister(own)
    }

    /// `fetchAssetCollections(in:)` lists a folder's albums; `fetchCollectionLists(in:)` its folders.
    func testTheAlbumsAndFoldersOfAFolder() async throws {
        var travel, europe, italy, spain, loose: ObjectPlaceholder?
        let created = try await library.performChanges { batch in
            travel = batch.createFolder(title: "Travel")
            italy = batch.createAlbum(title: "Italy", in: travel!.localIdentifier)
            europe = batch.createFolder(title: "Europe", in: travel!.localIdentifier)
            spain = batch.createAlbum(title: "Spain", in: europe!.localIdentifier)
            loose = batch.createAlbum(title: "Loose")
        }
        func id(_ placeholder: ObjectPlaceholder?) throws -> String { try XCTUnwrap(placeholder.flatMap(created.localIdentifier(for:))) }
        let albums = try await library.fetchAssetCollections(in: try id(travel)).allObjects().map(\.localIdentifier)
        XCTAssertEqual(albums, [try id(italy)], "only the albums directly in the folder")
        let folders = try await library.fetchCollectionLists(in: try id(travel)).allObjects().map(\.localIdentifier)
        XCTAssertEqual(folders, [try id(europe)])
        let inner = try await library.fetchAssetCollections(in: try id(europe)).allObjects().map(\.localIdentifier)
        XCTAssertEqual(inner, [try id(spain)])
        let all = try await library.fetchAssetCollections(with: .album).allObjects().map(\.localIdentifier)
        XCTAssertTrue(all.contains(try id(loose)))
        await assertThrows(.notFound, containing: "no folder", "an unknown folder") {
            _ = try await library.fetchAssetCollections(in: "00000000-0000-4000-8000-000000000000/L0/020")
        }
    }

    /// The `PhotoLibrary` type's example, as written there (but for how it connects).
    func testThePhotoLibraryTypeExampleRunsAsWritten() async throws {
        let library = self.library!
        var printed: [String] = []
        func print(_ line: String) { printed.append(line) }
        // --- from the doc comment ---
        let assets = try await library.fetchAssets(with: FetchOptions(sortDescriptors: [.init(key: .creationDate, ascending: false)]))
        if let newest = try await assets.firstObject {
            let image = try await library.imageManager.image(
                forAssetIdentifier: newest.localIdentifier, targetSize: PixelSize(width: 256, height: 256), contentMode: .aspectFill)
            print("\(image.width)x\(image.height), \(image.data.count) bytes of \(image.uniformTypeIdentifier)")
        }
        // ---
        XCTAssertEqual(printed.count, 1)
        XCTAssertTrue(printed.first?.hasSuffix(" bytes of public.jpeg") == true, "\(printed)")
    }
}
