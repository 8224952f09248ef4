import Foundation
import PhotoLibCore
import PhotoLibServer
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// Methods whose work runs on the library I/O pool straight from the connection
/// (`FetchResultObjects`, `FetchResultIndex`), driven frame by frame against the real server
/// code: the answer and its STATUS, errors as STATUS, the request's credit returned, and the
/// shapes of request that go through a handler task instead.
final class PooledCallTests: XCTestCase {
    private var server: InProcessServer!
    private var connection: RawConnection!
    /// A snapshot of every asset (two photos).
    private var snapshotID = ""

    override func setUp() async throws {
        server = try InProcessServer(photos: [Fixtures.landscape, Fixtures.portrait])
        connection = try server.rawConnection()
        _ = try connection.handshake(token: server.token)
        let fetched = try connection.call(stream: 1, method: PhotoLibraryMethods.fetchAssets.path, request: Wire.FetchAssetsRequest(prefetchCount: 0).encoded())
        XCTAssertEqual(fetched.status.code, .ok)
        snapshotID = try Wire.FetchResultSnapshot(decoding: try XCTUnwrap(fetched.messages.first)).fetchResultID
    }

    override func tearDown() async throws {
        connection?.close()
        await server?.tearDown()
    }

    func testAPageAndAnIndexAreAnsweredFromThePool() throws {
        let page = try connection.call(
            stream: 3, method: PhotoLibraryMethods.fetchResultObjects.path,
            request: Wire.FetchResultObjectsRequest(fetchResultID: snapshotID, offset: 0, length: 10).encoded())
        XCTAssertEqual(page.status.code, .ok, page.status.message)
        XCTAssertEqual(page.messages.count, 1)
        let response = try Wire.FetchResultObjectsResponse(decoding: page.messages[0])
        XCTAssertEqual(Set(response.assets.map(\.localIdentifier)), Set(server.assets))
        XCTAssertEqual(response.localIdentifiers, response.assets.map(\.localIdentifier))

        let index = try connection.call(
            stream: 5, method: PhotoLibraryMethods.fetchResultIndex.path,
            request: Wire.FetchResultIndexRequest(fetchResultID: snapshotID, localIdentifier: response.localIdentifiers[1]).encoded())
        XCTAssertEqual(index.status.code, .ok, index.status.message)
        let answer = try Wire.FetchResultIndexResponse(decoding: try XCTUnwrap(index.messages.first))
        XCTAssertTrue(answer.found)
        XCTAssertEqual(answer.index, 1)
    }

    func testTheWorksErrorsAreTheCallsStatus() throws {
        let past = try connection.call(
            stream: 3, method: PhotoLibraryMethods.fetchResultObjects.path,
            request: Wire.FetchResultObjectsRequest(fetchResultID: snapshotID, offset: 3, length: 10).encoded())
        XCTAssertEqual(past.status.code, .outOfRange)
        XCTAssertTrue(past.messages.isEmpty)
        let unknown = try connection.call(
            stream: 5, method: PhotoLibraryMethods.fetchResultIndex.path,
            request: Wire.FetchResultIndexRequest(fetchResultID: "fr-unknown", localIdentifier: server.assets[0]).encoded())
        XCTAssertNotEqual(unknown.status.code, .ok)
        XCTAssertTrue(unknown.messages.isEmpty)
        let garbage = try connection.call(stream: 7, method: PhotoLibraryMethods.fetchResultObjects.path, request: [0xFF, 0xFF, 0xFF])
        XCTAssertEqual(garbage.status.code, .invalidArgument)
    }

    /// A CALL that ends without a request message, and a request without END_STREAM, take
    /// the handler-task path: the first is refused as a task refuses it, the second waits
    /// for its end (other calls go on meanwhile) and is refused when a second message comes.
    func testRequestsThatDoNotArriveWholeGoThroughATask() throws {
        let none = try connection.call(stream: 3, callPayload: Wire.CallStart(method: PhotoLibraryMethods.fetchResultObjects.path).encoded(), request: nil)
        XCTAssertEqual(none.status.code, .invalidArgument)

        let request = Wire.FetchResultObjectsRequest(fetchResultID: snapshotID, offset: 0, length: 1, identifiersOnly: true).encoded()
        connection.send(Frame(.call, stream: 5, payload: Wire.CallStart(method: PhotoLibraryMethods.fetchResultObjects.path).encoded()))
        connection.send(Frame(.message, stream: 5, payload: request))
        let split = try connection.call(stream: 7, method: PhotoLibraryMethods.fetchResultIndex.path,
            request: Wire.FetchResultIndexRequest(fetchResultID: snapshotID, localIdentifier: server.assets[0]).encoded())
        XCTAssertEqual(split.status.code, .ok, "other calls go on while stream 5 waits for its END_STREAM")
        connection.send(Frame(.message, stream: 5, flags: .endStream, payload: []))
        var status: Wire.Status?
        while status == nil, case .frame(let frame) = connection.readFrame(timeout: 10) {
            if frame.type == .status && frame.streamID == 5 { status = try Wire.Status(decoding: frame.payload) }
        }
        XCTAssertEqual(status?.code, .invalidArgument, "two request messages for a unary method")
    }

    /// Every request byte of pooled calls comes back as connection credit.
    func testPooledCallsReturnTheirRequestsCredit() throws {
        var sent = 0, credited = 0
        for index in 0..<20 {
            let stream = UInt32(3 + 2 * index)
            let request = Wire.FetchResultObjectsRequest(fetchResultID: snapshotID, offset: 0, length: 2).encoded()
            connection.send(Frame(.call, stream: stream, payload: Wire.CallStart(method: PhotoLibraryMethods.fetchResultObjects.path).encoded()))
            connection.send(Frame(.message, stream: stream, flags: .endStream, payload: request))
            sent += request.count
        }
        var statuses = 0
        while statuses < 20 || credited < sent, case .frame(let frame) = connection.readFrame(timeout: 10) {
            if frame.type == .windowUpdate, frame.streamID == 0 { credited += Int(try Wire.WindowUpdate(decoding: frame.payload).increment) }
            if frame.type == .status {
                XCTAssertEqual(try Wire.Status(decoding: frame.payload).code, .ok)
                statuses += 1
            }
        }
        XCTAssertEqual(statuses, 20)
        XCTAssertEqual(credited, sent)
    }
}
