import Foundation
import PhotoLibClient
import XCTest

/// Image responses under the client's receive windows: images many windows long arrive
/// whole, and many small images pass through a connection window many times over, so
/// credit the client keeps back in batches always goes back in the end (a lost byte of
/// credit would stall the connection and time these tests out).
final class ImageFlowControlTests: XCTestCase {
    private var fixture: LibraryFixture!
    private var server: ServerProcess { fixture.server }

    override func setUpWithError() throws {
        fixture = try LibraryFixture("image-flow", photos: Paths.fourPhotos)
    }

    override func tearDown() {
        fixture?.stopAndRemove()
        fixture = nil
    }

    /// Windows large enough for the client to hold credit back and return it in batches.
    private static var batchingWindows: ClientConfiguration {
        var configuration = ClientConfiguration()
        configuration.maxFrameSize = 128 << 10
        configuration.initialStreamWindow = 1 << 20
        configuration.initialConnectionWindow = 1 << 20
        return configuration
    }

    private func connect(_ configuration: ClientConfiguration) async throws -> PhotoLibrary {
        try await connectClient(server, configuration: configuration, name: "e2e-flow")
    }

    func testOriginalsManyWindowsLongArriveWholeConcurrently() async throws {
        let library = try await connect(.minimalWindows)
        defer { library.close() }
        let manager = library.imageManager
        let original = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .none, version: .original)
        let paths = [Paths.sampleBaseline, Paths.sampleProgressive, Paths.landscape]
        let identifiers = try paths.map { try fixture.identifier($0) }
        let (final0, final1, streamed) = try await withTimeout(120, "three originals") {
            async let first = manager.image(forAssetIdentifier: identifiers[0], targetSize: .maximum, options: original)
            async let second = manager.image(forAssetIdentifier: identifiers[1], targetSize: .maximum, options: original)
            async let third = { () async throws -> [DeliveredImage] in
                var all: [DeliveredImage] = []
                for try await image in try await manager.requestImage(forAssetIdentifier: identifiers[2], targetSize: .maximum, options: original) {
                    all.append(image)
                }
                return all
            }()
            return try await (first, second, third)
        }
        XCTAssertEqual(final0.data, try readBytes(paths[0]), "image() of the original is the file")
        XCTAssertEqual(final1.data, try readBytes(paths[1]))
        XCTAssertEqual(streamed.map(\.data), [try readBytes(paths[2])], "requestImage delivers the original once")
        XCTAssertGreaterThan(final0.data.count, 5 * (192 << 10), "the image is many connection windows long")
        XCTAssertEqual(streamed.first?.isFinal, true)
    }

    func testThumbnailsPassThroughTheConnectionWindowManyTimes() async throws {
        for (name, configuration) in [("small", .minimalWindows), ("batching", Self.batchingWindows)] {
            let library = try await connect(configuration)
            defer { library.close() }
            let manager = library.imageManager
            let identifiers = Array(fixture.identifiers.values).sorted()
            let options = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact)
            let size = PixelSize(width: 256, height: 256)
            var reference: [String: [UInt8]] = [:]
            for identifier in identifiers {
                reference[identifier] = try await fetchImage(library, identifier, 256, 256).data
            }
            let expected = reference
            let requests = 400
            let bytes = try await withTimeout(120, "\(requests) thumbnails with \(name) windows") {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for worker in 0..<16 {
                        group.addTask {
                            var received = 0
                            for index in stride(from: worker, to: requests, by: 16) {
                                let identifier = identifiers[index % identifiers.count]
                                let image = try await manager.image(forAssetIdentifier: identifier, targetSize: size, options: options)
                                guard image.data == expected[identifier] else { throw E2EError("thumbnail \(index) differs from the reference") }
                                received += image.data.count
                            }
                            return received
                        }
                    }
                    return try await group.reduce(0, +)
                }
            }
            XCTAssertGreaterThan(bytes, 3 * configuration.initialConnectionWindow, "\(name): the window was passed through several times")
            let info = try await withTimeout(20, "libraryInfo") { try await library.libraryInfo() }
            XCTAssertEqual(info.assetCount, 4, "\(name): the connection still answers")
        }
    }

    func testCancelledDownloadsGiveTheirBufferedCreditBack() async throws {
        // Each download is dropped after its first chunk while the server has already sent
        // the next: unless the client returns the credit of what it never read, a few of
        // these use up the 192 KiB connection window and the last download stalls.
        let library = try await connect(.minimalWindows)
        defer { library.close() }
        let resources = AssetResourceManager(library: library)
        let asset = try fixture.identifier(Paths.sampleBaseline)
        let original = try readBytes(Paths.sampleBaseline)
        try await withTimeout(120, "cancelled downloads, then a whole one") {
            for _ in 0..<12 {
                var chunks = 0
                for try await chunk in try await resources.requestData(for: asset) {
                    XCTAssertEqual(chunk.offset, 0)
                    chunks += 1
                    // Give the server time to fill the stream window behind this chunk.
                    try await Task.sleep(nanoseconds: 50_000_000)
                    break
                }
                XCTAssertEqual(chunks, 1)
            }
            var whole: [UInt8] = []
            for try await chunk in try await resources.requestData(for: asset) { whole += chunk.data }
            XCTAssertTrue(whole == original, "the download after the cancelled ones is complete (\(whole.count) of \(original.count) bytes)")
        }
    }
}
