import Foundation
import PhotoLibCore
import PhotoLibServer
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// Points where docs/PROTOCOL.md and the server disagreed, each now one behaviour, written
/// down and tested: the token file's newline, unknown identifiers, unknown oneof members
/// and enum numbers, the batch limit.
final class ContractTests: XCTestCase {
    private var server: InProcessServer!
    private var connection: RawConnection!

    override func setUp() async throws {
        server = try InProcessServer(photos: [Fixtures.landscape])
        connection = try server.rawConnection()
        _ = try connection.handshake(token: server.token)
    }

    override func tearDown() async throws {
        connection?.close()
        await server?.tearDown()
    }

    /// Section 4.2: owner.token ends with a newline; sending the file as it is gets in.
    func testTheTokenFileSentAsItIsIsAccepted() throws {
        let text = try String(contentsOfFile: server.directory.library + "/owner.token", encoding: .utf8)
        XCTAssertTrue(text.hasSuffix("\n"))
        let other = try server.rawConnection()
        defer { other.close() }
        XCTAssertNoThrow(try other.handshake(token: text))
    }

    /// Section 15: an unknown parent folder is NOT_FOUND, like every unknown identifier
    /// (it used to answer an empty list).
    func testAnUnknownParentFolderIsNotFound() throws {
        let request = Wire.FetchAssetCollectionsRequest(parentFolderIdentifier: "0F0F0F0F-0000-0000-0000-000000000000/L0/020")
        let result = try connection.call(stream: 1, method: PhotoLibraryMethods.fetchAssetCollections.path, request: request.encoded())
        XCTAssertEqual(result.status.code, Wire.StatusCode.notFound, result.status.message)
    }

    /// Section 13.1: an unknown content mode reads as the default (it used to be refused).
    func testAnUnknownImageModeReadsAsTheDefault() throws {
        var request = Wire.ImageRequest(assetIdentifier: server.assets[0], targetWidth: 64, targetHeight: 64)
        request.contentMode = .unrecognized(9)
        let result = try connection.call(stream: 1, method: PhotoLibraryMethods.requestImage.path, request: request.encoded())
        XCTAssertEqual(result.status.code, Wire.StatusCode.ok, result.status.message)
    }

    /// Section 13.1: a SubscriptionRequest with a member the server does not know is skipped
    /// and answered; the subscription goes on (it used to end INVALID_ARGUMENT).
    func testAnUnknownSubscriptionRequestIsSkipped() throws {
        connection.send(Frame(.call, stream: 1, payload: Wire.CallStart(method: PhotoLibraryMethods.subscribe.path).encoded()))
        // Field 99 (varint 1): a member from a newer protocol.
        connection.send(Frame(.message, stream: 1, payload: [0x98, 0x06, 0x01]))
        let register = Wire.SubscriptionRequest(request: .registerFetch(Wire.FetchAssetsRequest()))
        connection.send(Frame(.message, stream: 1, payload: register.encoded()))
        var events: [Wire.SubscriptionEvent] = []
        while events.count < 2 {
            let (read, _) = connection.readUntil(timeout: 10) { $0.streamID == 1 && ($0.type == .message || $0.type == .status) }
            guard case .frame(let frame) = read, frame.type == .message else { return XCTFail("expected two answers, got \(read)") }
            events.append(try Wire.SubscriptionEvent(decoding: frame.payload))
        }
        guard case .registeredAtToken? = events[0].event else { return XCTFail("the unknown request was not answered: \(events[0])") }
        guard case .registeredFetchResult? = events[1].event else { return XCTFail("the subscription did not go on: \(events[1])") }
    }

    /// Section 15a.3: half-closing the request side keeps a subscription (it is a
    /// server-streaming call from then on).
    func testAHalfClosedSubscriptionKeepsDelivering() throws {
        connection.send(Frame(.call, stream: 1, payload: Wire.CallStart(method: PhotoLibraryMethods.subscribe.path).encoded()))
        let register = Wire.SubscriptionRequest(request: .registerFetch(Wire.FetchAssetsRequest()))
        connection.send(Frame(.message, stream: 1, flags: .endStream, payload: register.encoded()))
        func next() throws -> Wire.SubscriptionEvent {
            let (read, _) = connection.readUntil(timeout: 10) { $0.streamID == 1 && ($0.type == .message || $0.type == .status) }
            guard case .frame(let frame) = read, frame.type == .message else { throw RawConnectionError("expected an event, got \(read)") }
            return try Wire.SubscriptionEvent(decoding: frame.payload)
        }
        guard case .registeredFetchResult? = try next().event else { return XCTFail("not registered") }
        _ = try server.library.performChanges([.setAssetProperties(.init(asset: server.assets[0], isFavorite: true))])
        guard case .change(let change)? = try next().event else { return XCTFail("no notification after the half-close") }
        XCTAssertEqual(change.fetchResultChanges.first?.changedIndexes, [0])
    }

    /// Section 13.1: a ChangeRequest with no (known) member fails its batch UNIMPLEMENTED with
    /// its index, and nothing is applied.
    func testAnUnknownChangeRequestFailsTheBatchAndAppliesNothing() throws {
        let favourite = Wire.ChangeRequest(request: .setAssetProperties(Wire.SetAssetPropertiesRequest(assetIdentifier: server.assets[0], isFavorite: Wire.BoolValue(value: true))))
        let request = Wire.PerformChangesRequest(requests: [favourite, Wire.ChangeRequest()])
        let result = try connection.call(stream: 1, method: PhotoLibraryMethods.performChanges.path, request: request.encoded())
        XCTAssertEqual(result.status.code, Wire.StatusCode.unimplemented, result.status.message)
        XCTAssertEqual(result.status.failedRequestIndexPlusOne, 2)
        XCTAssertFalse(try server.library.asset(withIdentifier: server.assets[0])?.isFavorite ?? true, "nothing applied")
    }

    /// Section 12: at most 1000 requests per batch.
    func testABatchOfMoreThanAThousandRequestsIsRefused() throws {
        let one = Wire.ChangeRequest(request: .setAssetProperties(Wire.SetAssetPropertiesRequest(assetIdentifier: server.assets[0], isFavorite: Wire.BoolValue(value: true))))
        let result = try connection.call(
            stream: 1, method: PhotoLibraryMethods.performChanges.path,
            request: Wire.PerformChangesRequest(requests: Array(repeating: one, count: 1001)).encoded())
        XCTAssertEqual(result.status.code, Wire.StatusCode.resourceExhausted, result.status.message)
    }
}
