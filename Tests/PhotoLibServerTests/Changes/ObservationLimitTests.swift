import Foundation
import PhotoLibServer
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// Live fetch registrations are bounded per connection and server-wide (each distinct live
/// result keeps its listing in memory); beyond the limits a subscription ends with a clear
/// RESOURCE_EXHAUSTED, and what others hold keeps working.
final class ObservationLimitTests: XCTestCase {
    private func register(_ connection: RawConnection, stream: UInt32, fetchLimits: [UInt32]) -> Wire.Status? {
        connection.send(Frame(.call, stream: stream, payload: Wire.CallStart(method: PhotoLibraryMethods.subscribe.path).encoded()))
        for limit in fetchLimits {
            let request = Wire.SubscriptionRequest(request: .registerFetch(Wire.FetchAssetsRequest(options: Wire.FetchOptions(fetchLimit: limit))))
            connection.send(Frame(.message, stream: stream, payload: request.encoded()))
        }
        // Wait for one answer per request, or the STATUS that ended the subscription.
        var answered = 0
        while answered < fetchLimits.count {
            let (read, _) = connection.readUntil(timeout: 10) { $0.streamID == stream && ($0.type == .message || $0.type == .status) }
            guard case .frame(let frame) = read else { return Wire.Status(code: .unknown, message: "no answer: \(read)") }
            if frame.type == .status { return try? Wire.Status(decoding: frame.payload) }
            let credit = Wire.WindowUpdate(increment: UInt32(frame.payload.count)).encoded()
            connection.send(Frame(.windowUpdate, stream: stream, payload: credit))
            connection.send(Frame(.windowUpdate, stream: 0, payload: credit))
            if case .registeredFetchResult? = (try? Wire.SubscriptionEvent(decoding: frame.payload))?.event { answered += 1 }
        }
        return nil
    }

    func testRegistrationsAreCappedPerConnectionAndServerWide() async throws {
        var configuration = ServerConfiguration()
        configuration.maxObservedResultsPerConnection = 2
        configuration.maxLiveResults = 3
        let server = try InProcessServer(photos: [Fixtures.landscape], configuration: configuration)
        addTeardownBlock { await server.tearDown() }

        let first = try server.rawConnection()
        _ = try first.handshake(token: server.token)
        XCTAssertNil(register(first, stream: 1, fetchLimits: [1, 2]), "two registrations fit")
        // A second subscription on the same connection counts toward the same limit.
        let perConnection = try XCTUnwrap(register(first, stream: 3, fetchLimits: [3]), "a third registration on one connection was accepted")
        XCTAssertEqual(perConnection.code, .resourceExhausted)
        XCTAssertTrue(perConnection.message.contains("per connection"), perConnection.message)

        // Server-wide: live results {1, 2} exist; another connection adds a third.
        let second = try server.rawConnection()
        _ = try second.handshake(token: server.token)
        XCTAssertNil(register(second, stream: 1, fetchLimits: [1, 4]), "a shared result and one new one fit")
        // A third connection may share what exists, but not make a fourth distinct result.
        let third = try server.rawConnection()
        _ = try third.handshake(token: server.token)
        XCTAssertNil(register(third, stream: 1, fetchLimits: [2]), "shared results cost nothing new")
        let serverWide = try XCTUnwrap(register(third, stream: 3, fetchLimits: [5]), "a fourth distinct live result was accepted")
        XCTAssertEqual(serverWide.code, .resourceExhausted)
        XCTAssertTrue(serverWide.message.contains("distinct live fetch results"), serverWide.message)

        // The first connection's first subscription still works.
        let info = try first.call(stream: 5, method: PhotoLibraryMethods.getLibraryInfo.path)
        XCTAssertEqual(info.status.code, .ok)
    }
}
