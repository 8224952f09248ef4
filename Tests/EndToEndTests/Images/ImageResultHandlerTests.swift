import Foundation
import PhotoLibClient
import XCTest

/// PhotoKit's callback form of `requestImage`: images (degraded, then final) or the error
/// reach the result handler, the id cancels the request, and handlers may chain requests.
final class ImageResultHandlerTests: XCTestCase {
    private var fixture: LibraryFixture!
    private var server: ServerProcess { fixture.server }

    override func setUpWithError() throws {
        fixture = try LibraryFixture("result-handler", photos: Paths.fourPhotos)
    }

    override func tearDown() {
        fixture?.stopAndRemove()
        fixture = nil
    }

    private func id(_ path: String) throws -> String { try fixture.identifier(path) }

    /// What a request's handler received, once it got a final image or an error.
    private func results(
        _ manager: ImageManager, _ identifier: String, _ size: PixelSize, _ options: ImageRequestOptions,
        started: (@Sendable (ImageRequestID) async throws -> Void)? = nil
    ) async throws -> [Result<DeliveredImage, any Error>] {
        let collected = Collected()
        let id = manager.requestImage(forAssetIdentifier: identifier, targetSize: size, options: options) { result in
            collected.add(result)
        }
        try await started?(id)
        XCTAssertTrue(waitUntil(timeout: 60) { collected.isComplete }, "the handler got a final image or an error")
        try await Task.sleep(nanoseconds: 100_000_000)
        return collected.all
    }

    func testHandlerGetsDegradedThenFinalImages() async throws {
        let library = try await connectClient(server)
        defer { library.close() }
        var manager = library.imageManager
        manager.bypassCache = true
        let options = ImageRequestOptions(deliveryMode: .opportunistic, resizeMode: .exact)
        let all = try await results(manager, try id(Paths.sampleProgressive), PixelSize(width: 1024, height: 1024), options)
        let images = try all.map { try $0.get() }
        XCTAssertEqual(images.map(\.isDegraded), [true, false], "degraded first, then final, and nothing after")
        XCTAssertEqual(images.map(\.isFinal), [false, true])
        XCTAssertEqual(images.map { [$0.width, $0.height] }, [[664, 374], [1024, 576]])
        let streamed = try await fetchImage(library, try id(Paths.sampleProgressive), 1024, 1024)
        XCTAssertEqual(images.last?.data, streamed.data, "the same image as image(...)")
    }

    func testHandlerGetsTheErrorOnce() async throws {
        let library = try await connectClient(server)
        defer { library.close() }
        let manager = library.imageManager
        let unknown = try await results(manager, "00000000-0000-0000-0000-000000000000/L0/001", PixelSize(width: 64, height: 64), ImageRequestOptions())
        XCTAssertEqual(unknown.count, 1)
        if case .failure(let error) = unknown.first {
            XCTAssertEqual((error as? PhotoLibError)?.code, .notFound, "\(error)")
        } else {
            XCTFail("an unknown asset must fail: \(unknown)")
        }
        var cropped = ImageRequestOptions()
        cropped.normalizedCropRect = NormalizedRect(x: 0.5, y: 0, width: 0.7, height: 1)
        let refused = try await results(manager, try id(Paths.landscape), PixelSize(width: 64, height: 64), cropped)
        XCTAssertEqual(refused.count, 1)
        if case .failure(let error) = refused.first {
            XCTAssertEqual((error as? PhotoLibError)?.code, .invalidArgument, "\(error)")
        } else {
            XCTFail("a crop outside the unit square must fail: \(refused)")
        }
    }

    func testTheIdCancelsTheRequest() async throws {
        let library = try await connectClient(server)
        defer { library.close() }
        let manager = library.imageManager
        let options = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .none)
        let all = try await results(manager, try id(Paths.sampleProgressive), .maximum, options) { id in
            try await Task.sleep(nanoseconds: 100_000_000)
            try await manager.cancelImageRequest(id)
        }
        XCTAssertEqual(all.count, 1)
        if case .failure(let error) = all.first {
            XCTAssertEqual((error as? PhotoLibError)?.code, .cancelled, "\(error)")
        } else {
            XCTFail("a cancelled request ends with cancelled: \(all)")
        }
    }

    func testHandlersChainRequestsOnTheConnectionQueue() async throws {
        let library = try await connectClient(server)
        defer { library.close() }
        let manager = library.imageManager
        let identifiers = Array(fixture.identifiers.values).sorted()
        let chain = Chain(manager: manager, identifiers: identifiers, total: 200)
        chain.start(width: 8)
        XCTAssertTrue(waitUntil(timeout: 60) { chain.finished == 200 }, "200 chained requests finish (\(chain.finished))")
        XCTAssertEqual(chain.failures, [], "no chained request fails")
    }
}

/// A handler's results, from the connection's queue.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<DeliveredImage, any Error>] = []

    func add(_ result: Result<DeliveredImage, any Error>) { lock.withLock { results.append(result) } }

    var all: [Result<DeliveredImage, any Error>] { lock.withLock { results } }

    /// Whether a final image or an error arrived.
    var isComplete: Bool {
        lock.withLock {
            results.contains { result in
                switch result {
                case .success(let image): return image.isFinal
                case .failure: return true
                }
            }
        }
    }
}

/// Requests `total` thumbnails, `width` at a time, each started from the handler of the one before.
private final class Chain: @unchecked Sendable {
    private let manager: ImageManager
    private let identifiers: [String]
    private let total: Int
    private let lock = NSLock()
    private var issued = 0
    private var done = 0
    private var errors: [String] = []

    init(manager: ImageManager, identifiers: [String], total: Int) {
        self.manager = manager
        self.identifiers = identifiers
        self.total = total
    }

    var finished: Int { lock.withLock { done } }
    var failures: [String] { lock.withLock { errors } }

    func start(width: Int) {
        for _ in 0..<width { next() }
    }

    private func next() {
        let index: Int? = lock.withLock {
            guard issued < total else { return nil }
            issued += 1
            return issued - 1
        }
        guard let index else { return }
        let options = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact)
        manager.requestImage(forAssetIdentifier: identifiers[index % identifiers.count], targetSize: PixelSize(width: 128, height: 128), options: options) { result in
            self.lock.withLock {
                self.done += 1
                if case .failure(let error) = result { self.errors.append("\(error)") }
            }
            self.next()
        }
    }
}
