import Foundation
@testable import PhotoLibClient
import PhotoLibServer
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// More calls than the server lets a connection have open at once (`max_concurrent_streams`)
/// wait in the client for a place instead of failing `RESOURCE_EXHAUSTED`: the README's task
/// group of image requests works for any number of tasks, as PhotoKit's would.
final class WaitingCallsTests: XCTestCase {
    private func server(maxCalls: Int) throws -> InProcessServer {
        var configuration = ServerConfiguration()
        configuration.maxConcurrentStreams = maxCalls
        return try InProcessServer(photos: [Fixtures.landscape, Fixtures.portrait], configuration: configuration)
    }

    func testManyMoreRequestsThanTheServerTakesAtOnceAllSucceed() async throws {
        let server = try server(maxCalls: 4)
        addTeardownBlock { await server.tearDown() }
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer { library.close() }
        // Three subscriptions hold three of the four places: the requests share the last one.
        var held: [ChangeSubscription] = []
        for _ in 0..<3 { held.append(try await library.subscribe()) }
        defer { held.forEach { $0.cancel() } }
        let assets = server.assets
        let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<60 {
                group.addTask {
                    let image = try await library.imageManager.image(
                        forAssetIdentifier: assets[index % assets.count], targetSize: PixelSize(width: 64 + index, height: 64 + index),
                        options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact))
                    return max(image.width, image.height)
                }
            }
            var sizes: [Int] = []
            for try await size in group { sizes.append(size) }
            return sizes
        }
        XCTAssertEqual(sizes.sorted(), (0..<60).map { 64 + $0 })
    }

    /// A call that waits for a place longer than its deadline fails `DEADLINE_EXCEEDED`
    /// saying so, and one cancelled while it waits ends at once; the open calls go on.
    func testAWaitingCallKeepsItsDeadlineAndCanBeCancelled() async throws {
        let server = try server(maxCalls: 2)
        addTeardownBlock { await server.tearDown() }
        var configuration = ClientConfiguration()
        configuration.callTimeout = 0.5
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token, configuration: configuration)
        defer { library.close() }
        // Two subscriptions hold both places for as long as they run.
        let first = try await library.subscribe()
        let second = try await library.subscribe()
        do {
            _ = try await library.libraryInfo()
            XCTFail("a call with no place answered")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .deadlineExceeded, "\(error)")
            XCTAssertTrue(error.message.contains("waited all that time for one of the 2 calls"), error.message)
        }
        let waiting = Task { try await library.libraryInfo() }
        try await Task.sleep(nanoseconds: 50_000_000)
        waiting.cancel()
        do {
            _ = try await waiting.value
            XCTFail("a cancelled waiting call answered")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .cancelled, "\(error)")
        }
        // A place frees: the next call opens and answers.
        first.cancel()
        let info = try await library.libraryInfo()
        XCTAssertEqual(info.assetCount, 2)
        second.cancel()
    }
}
