import Foundation
import PhotoLibCore
import PhotoLibServerTestSupport
import PhotoLibStore
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// `FetchAssets` and Subscribe's `register_fetch` read `FetchOptions` the same way: what one
/// refuses, the other refuses with the same status (register_fetch used to take the first of
/// several media types where FetchAssets answered UNIMPLEMENTED).
final class FetchOptionsQueryTests: XCTestCase {
    private var server: InProcessServer!
    private var connection: RawConnection!

    override func setUp() async throws {
        server = try InProcessServer()
        _ = try server.library.addSyntheticAssetsForBenchmark(count: 10)
        connection = try server.rawConnection()
        _ = try connection.handshake(token: server.token)
    }

    override func tearDown() async throws {
        connection?.close()
        await server?.tearDown()
    }

    /// The STATUS that ends a Subscribe whose first request registers `options` (nil: the
    /// registration was answered instead).
    private func registerFetch(_ options: Wire.FetchOptions, stream: UInt32) throws -> Wire.Status? {
        connection.send(Frame(.call, stream: stream, payload: Wire.CallStart(method: PhotoLibraryMethods.subscribe.path).encoded()))
        connection.send(Frame(.message, stream: stream, payload: Wire.SubscriptionRequest(request: .registerFetch(Wire.FetchAssetsRequest(options: options))).encoded()))
        let (read, _) = connection.readUntil(timeout: 10) { $0.streamID == stream && ($0.type == .message || $0.type == .status) }
        guard case .frame(let frame) = read else { throw RawConnectionError("no answer: \(read)") }
        return frame.type == .status ? try Wire.Status(decoding: frame.payload) : nil
    }

    func testSeveralMediaTypesAreUnimplementedForBoth() throws {
        let options = Wire.FetchOptions(mediaTypes: [.image, .video])
        let fetch = try connection.call(stream: 1, method: PhotoLibraryMethods.fetchAssets.path, request: Wire.FetchAssetsRequest(options: options).encoded())
        XCTAssertEqual(fetch.status.code, .unimplemented, fetch.status.message)
        let registered = try registerFetch(options, stream: 3)
        XCTAssertEqual(registered?.code, .unimplemented, registered?.message ?? "register_fetch was answered")
        XCTAssertEqual(registered?.message, fetch.status.message)
    }

    func testAnInvalidLocalIdentifierIsRefusedByBoth() throws {
        let options = Wire.FetchOptions(localIdentifiers: [""])
        let fetch = try connection.call(stream: 1, method: PhotoLibraryMethods.fetchAssets.path, request: Wire.FetchAssetsRequest(options: options).encoded())
        XCTAssertEqual(fetch.status.code, .invalidArgument, fetch.status.message)
        let registered = try registerFetch(options, stream: 3)
        XCTAssertEqual(registered?.code, .invalidArgument, registered?.message ?? "register_fetch was answered")
    }

    func testOneMediaTypeIsServedByBoth() throws {
        let options = Wire.FetchOptions(mediaTypes: [.image])
        let fetch = try connection.call(stream: 1, method: PhotoLibraryMethods.fetchAssets.path, request: Wire.FetchAssetsRequest(options: options).encoded())
        XCTAssertEqual(fetch.status.code, .ok, fetch.status.message)
        XCTAssertEqual(try Wire.FetchResultSnapshot(decoding: fetch.messages[0]).count, 10)
        XCTAssertNil(try registerFetch(options, stream: 3), "register_fetch answers with the registered snapshot")
    }
}
