import Foundation
import PhotoLibClient
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Deadlines and task cancellation end calls on the client at once, even while the server
/// does not answer (it is stopped with SIGSTOP), and the connection goes on afterwards: late
/// answers to abandoned calls are dropped and their connection credit returned.
final class CallCancellationTests: XCTestCase {
    private var fixture: LibraryFixture!
    private var server: ServerProcess { fixture.server }
    /// The photos' identifiers, sorted.
    private var ids: [String] { Array(fixture.identifiers.values).sorted() }

    override func setUpWithError() throws {
        fixture = try LibraryFixture("cancellation", photos: Paths.fourPhotos)
    }

    override func tearDown() {
        fixture?.server.resume()
        fixture?.stopAndRemove()
        fixture = nil
    }

    private func connect(_ configuration: ClientConfiguration = ClientConfiguration()) async throws -> PhotoLibrary {
        try await connectClient(server, configuration: configuration, name: "e2e-cancellation")
    }

    private static let thumbnail = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact)

    /// The error `task` ends with (`nil` if it succeeds), waiting at most `seconds`.
    private func outcome<T: Sendable>(of task: Task<T, any Error>, within seconds: Double) async throws -> (any Error)? {
        try await withTimeout(seconds, "the cancelled call") {
            do {
                _ = try await task.value
                return nil
            } catch {
                return error
            }
        }
    }

    func testCancellingTheTaskEndsImageRequestsAtOnce() async throws {
        let library = try await connect()
        defer { library.close() }
        let manager = library.imageManager
        let identifier = ids[0]
        let options = Self.thumbnail
        XCTAssertTrue(server.suspend())
        let final = Task {
            try await manager.image(forAssetIdentifier: identifier, targetSize: PixelSize(width: 256, height: 256), options: options)
        }
        let streamed = Task {
            var count = 0
            for try await _ in try await manager.requestImage(forAssetIdentifier: identifier, targetSize: PixelSize(width: 128, height: 128), options: options) {
                count += 1
            }
            return count
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        final.cancel()
        streamed.cancel()
        let finalError = try await outcome(of: final, within: 5)
        XCTAssertEqual((finalError as? PhotoLibError)?.code, .cancelled, "\(String(describing: finalError))")
        // A cancelled iteration of an AsyncThrowingStream ends without an error; a task
        // cancelled before the stream was handed out (a loaded machine) ends with CANCELLED.
        let images = try await withTimeout(5, "the cancelled image stream") { () async throws -> Int in
            do {
                return try await streamed.value
            } catch let error as PhotoLibError where error.code == .cancelled {
                return 0
            }
        }
        XCTAssertEqual(images, 0, "no image arrives from a stopped server")
        server.resume()
        let image = try await fetchImage(library, identifier, 64, 64)
        XCTAssertEqual(max(image.width, image.height), 64, "the connection goes on")
    }

    func testATaskCancelledBeforeItAsksNeverStartsTheRequest() async throws {
        let library = try await connect()
        defer { library.close() }
        let manager = library.imageManager
        let identifier = ids[1]
        let options = Self.thumbnail
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            return try await manager.image(forAssetIdentifier: identifier, targetSize: PixelSize(width: 64, height: 64), options: options)
        }
        task.cancel()
        let error = try await outcome(of: task, within: 5)
        XCTAssertEqual((error as? PhotoLibError)?.code, .cancelled, "\(String(describing: error))")
        let image = try await fetchImage(library, identifier, 64, 64)
        XCTAssertEqual(max(image.width, image.height), 64)
    }

    func testLateAnswersToCancelledRequestsGiveTheirConnectionCreditBack() async throws {
        let library = try await connect(.minimalWindows)
        defer { library.close() }
        let manager = library.imageManager
        let identifiers = ids
        let options = Self.thumbnail
        // Cached, so that the server answers at once when it runs again.
        for identifier in identifiers { _ = try await fetchImage(library, identifier, 256, 256) }
        for round in 0..<3 {
            XCTAssertTrue(server.suspend())
            let tasks = (0..<48).map { index in
                Task {
                    try await manager.image(forAssetIdentifier: identifiers[index % identifiers.count], targetSize: PixelSize(width: 256, height: 256), options: options)
                }
            }
            try await Task.sleep(nanoseconds: 200_000_000)
            tasks.forEach { $0.cancel() }
            for task in tasks {
                let error = try await outcome(of: task, within: 5)
                XCTAssertEqual((error as? PhotoLibError)?.code, .cancelled, "round \(round): \(String(describing: error))")
            }
            server.resume()
            // More than the connection window of answers, after whatever the server sent for
            // the cancelled calls.
            for index in 0..<48 {
                let image = try await fetchImage(library, identifiers[index % identifiers.count], 256, 256)
                XCTAssertEqual(max(image.width, image.height), 256, "round \(round), request \(index)")
            }
        }
    }
}
