import Foundation
import PhotoLibClient
import XCTest

/// Many `PhotoLibClient` connections at once, each multiplexing several image requests.
final class ConcurrentClientsTests: XCTestCase {
    nonisolated(unsafe) private static var fixture: LibraryFixture?
    private var server: ServerProcess { Self.fixture!.server }

    override func setUpWithError() throws {
        if Self.fixture == nil { Self.fixture = try LibraryFixture("concurrent", photos: Paths.fourPhotos) }
    }

    override class func tearDown() {
        fixture?.shutDown()
        fixture = nil
    }

    /// The target, mode and exact expected size for an asset of each original size.
    private static func request(for asset: Asset, variant: Int) -> (PixelSize, ContentMode, JPEGSize)? {
        switch (asset.pixelWidth, asset.pixelHeight, variant % 2) {
        case (5312, 2988, 0): return (PixelSize(width: 256, height: 256), .aspectFit, JPEGSize(width: 256, height: 144))
        case (5312, 2988, _): return (PixelSize(width: 256, height: 256), .aspectFill, JPEGSize(width: 455, height: 256))
        case (2560, 3837, 0): return (PixelSize(width: 300, height: 300), .aspectFit, JPEGSize(width: 200, height: 300))
        case (2560, 3837, _): return (PixelSize(width: 300, height: 300), .aspectFill, JPEGSize(width: 300, height: 450))
        case (4352, 2448, _): return (PixelSize(width: 400, height: 400), .aspectFit, JPEGSize(width: 400, height: 225))
        default: return nil
        }
    }

    func testEightClientsEachWithThreeConcurrentImageRequests() async throws {
        let address = server.address
        let token = server.token
        let clients = 8
        let perClient = 3
        let checked: Int = try await withTimeout(120, "8 clients × 3 images") {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for client in 0..<clients {
                    group.addTask {
                        let library = try await PhotoLibrary.connect(to: address, token: token, clientName: "e2e-concurrent-\(client)")
                        defer { library.close() }
                        let assets = try await library.fetchAssets().allObjects()
                        guard assets.count == 4 else { throw E2EError("client \(client) fetched \(assets.count) assets, expected 4") }
                        // Three image requests at once on this one connection (multiplexed streams).
                        return try await withThrowingTaskGroup(of: Int.self) { images in
                            for k in 0..<perClient {
                                let asset = assets[(client + k) % assets.count]
                                guard let (target, mode, expected) = Self.request(for: asset, variant: client + k) else {
                                    throw E2EError("unexpected asset size \(asset.pixelWidth)x\(asset.pixelHeight)")
                                }
                                images.addTask {
                                    let image = try await library.imageManager.image(
                                        forAssetIdentifier: asset.localIdentifier, targetSize: target, contentMode: mode,
                                        options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact))
                                    let decoded = JPEGSize(jpeg: image.data)
                                    guard decoded == expected, image.width == expected.width, image.height == expected.height else {
                                        throw E2EError("client \(client) image \(k): expected \(expected), got \(image.width)x\(image.height) (SOF \(decoded.map(\.description) ?? "none"))")
                                    }
                                    return 1
                                }
                            }
                            return try await images.reduce(0, +)
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
        }
        XCTAssertEqual(checked, clients * perClient)
        // And the server is still healthy afterwards.
        let library = try await connectClient(server)
        defer { library.close() }
        let info = try await withTimeout(20, "libraryInfo") { try await library.libraryInfo() }
        XCTAssertEqual(info.assetCount, 4)
    }

    /// A `PhotoLibrary` the program drops without `close()` still closes its connection (its
    /// socket, and the reader thread that holds it): clients that come and go leak nothing.
    func testDroppedClientsCloseTheirConnections() async throws {
        let baseline = Self.openSocketCount()
        for round in 0..<10 {
            let library = try await connectClient(server)
            let info = try await withTimeout(20, "libraryInfo") { try await library.libraryInfo() }
            XCTAssertEqual(info.assetCount, 4, "client \(round)")
            XCTAssertGreaterThan(Self.openSocketCount(), baseline, "client \(round): the count sees its socket")
        }
        let deadline = Date().addingTimeInterval(10)
        while Self.openSocketCount() > baseline && Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        // At most the baseline: sockets other tests left closing may close meanwhile too.
        XCTAssertLessThanOrEqual(Self.openSocketCount(), baseline, "dropped clients kept their sockets open")
    }

    /// Sockets among this process's open descriptors.
    private static func openSocketCount() -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.count { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"))?.hasPrefix("socket:") == true
        }
    }
}
