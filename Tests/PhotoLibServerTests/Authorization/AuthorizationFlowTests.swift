import Foundation
import PhotoLibCore
import PhotoLibServer
import PhotoLibServerTestSupport
import PhotoLibStore
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// A client asks, waits, the owner decides; an add-only client adds and nothing else; a
/// revocation ends what the client has open at once.
final class AuthorizationFlowTests: XCTestCase {
    private var server: InProcessServer!
    private var owner: RawConnection!
    private var ownerStream: UInt32 = 1

    override func setUp() async throws {
        server = try InProcessServer(photos: [Fixtures.landscape])
        owner = try server.rawConnection()
        _ = try owner.handshake(token: server.token)
    }

    override func tearDown() async throws {
        owner?.close()
        await server?.tearDown()
    }

    private func decide(_ client: String, _ status: Wire.AuthorizationStatus, _ level: Wire.AccessLevel = .readWrite, revoke: Bool = false) throws -> Wire.Status {
        defer { ownerStream += 2 }
        return try owner.call(stream: ownerStream, method: PhotoLibraryMethods.setClientAuthorization.path, request: Wire.SetClientAuthorizationRequest(
            clientIdentifier: client, status: status, accessLevel: level, revoke: revoke).encoded()).status
    }

    func testAWaitingClientLearnsTheDecisionWithoutPolling() throws {
        let state = try EnforcementMatrixTests.register(server, name: "Kitchen frame", level: .readWrite)
        XCTAssertEqual(state.status, .notDetermined)
        let client = try server.rawConnection()
        defer { client.close() }
        let welcome = try client.handshake(token: state.clientToken)
        XCTAssertEqual(welcome.authorizationStatus, .notDetermined)
        // The wait is answered only after the owner decides.
        client.send(Frame(.call, stream: 1, payload: Wire.CallStart(method: PhotoLibraryMethods.getAuthorizationStatus.path, timeoutMs: 10_000).encoded()))
        client.send(Frame(.message, stream: 1, flags: .endStream, payload: Wire.AuthorizationStatusRequest(accessLevel: .readWrite, waitForDecision: true).encoded()))
        if case .frame(let early) = client.readUntil(timeout: 0.5, { $0.streamID == 1 }).0 { XCTFail("answered before the decision: \(early)") }
        XCTAssertEqual(try decide(state.clientIdentifier, .authorized).code, .ok)
        let (read, _) = client.readUntil(timeout: 5) { $0.streamID == 1 && $0.type == .message }
        guard case .frame(let frame) = read else { return XCTFail("no answer after the decision: \(read)") }
        XCTAssertEqual(try Wire.AuthorizationState(decoding: frame.payload).status, .authorized)
        // Now it reads.
        let info = try client.call(stream: 3, method: PhotoLibraryMethods.getLibraryInfo.path)
        XCTAssertEqual(info.status.code, .ok, info.status.message)
        XCTAssertTrue(try Wire.LibraryInfo(decoding: info.messages[0]).budgets.isEmpty, "budgets are the owner's")
    }

    func testAnAddOnlyClientAddsAndNothingElse() throws {
        let state = try EnforcementMatrixTests.register(server, name: "Camera uploader", level: .addOnly)
        XCTAssertEqual(try decide(state.clientIdentifier, .authorized, .addOnly).code, .ok)
        let client = try server.rawConnection()
        defer { client.close() }
        let welcome = try client.handshake(token: state.clientToken)
        XCTAssertEqual(welcome.accessLevel, .addOnly)
        XCTAssertEqual(welcome.authorizationStatus, .authorized)
        // Upload the library's own photo again: the answer does not say it exists.
        let bytes = try Fixtures.bytes(at: Fixtures.landscape)
        client.send(Frame(.call, stream: 1, payload: Wire.CallStart(method: PhotoLibraryMethods.uploadAsset.path).encoded()))
        client.send(Frame(.message, stream: 1, payload: Wire.UploadChunk(part: .header(Wire.UploadHeader(originalFilename: "again.jpg", size: UInt64(bytes.count)))).encoded()))
        var offset = 0
        var credit = 1 << 20
        while offset < bytes.count {
            let end = min(bytes.count, offset + 60_000)
            let payload = Wire.UploadChunk(part: .data(Array(bytes[offset..<end]))).encoded()
            while credit < payload.count {
                let (read, _) = client.readUntil(timeout: 10) { $0.type == .windowUpdate && $0.streamID == 1 }
                guard case .frame(let update) = read else { return XCTFail("no credit: \(read)") }
                credit += Int(try Wire.WindowUpdate(decoding: update.payload).increment)
            }
            client.send(Frame(.message, stream: 1, flags: end == bytes.count ? .endStream : [], payload: payload))
            credit -= payload.count
            offset = end
        }
        let (read, _) = client.readUntil(timeout: 20) { $0.streamID == 1 && ($0.type == .message || $0.type == .status) }
        guard case .frame(let answer) = read, answer.type == .message else { return XCTFail("upload: \(read)") }
        let upload = try Wire.UploadResult(decoding: answer.payload)
        XCTAssertEqual(upload.existingAssetIdentifier, "", "an add-only client does not learn which assets exist")
        let create = try client.call(stream: 3, method: PhotoLibraryMethods.performChanges.path, request: Wire.PerformChangesRequest(requests: [
            Wire.ChangeRequest(request: .createAsset(Wire.CreateAssetRequest(uploadID: upload.uploadID, placeholderID: "$1"))),
        ]).encoded())
        XCTAssertEqual(create.status.code, .ok, create.status.message)
        // Nor does creating an asset from it: nothing is created, and $1 stays unresolved.
        let created = try Wire.PerformChangesResponse(decoding: try XCTUnwrap(create.messages.first))
        XCTAssertEqual(created.placeholders, [], "an add-only client is not told which asset holds those bytes")
        XCTAssertEqual(try server.library.countAssets(AssetQuery()), 1, "no asset was added")
        let trash = try client.call(stream: 5, method: PhotoLibraryMethods.performChanges.path, request: Wire.PerformChangesRequest(requests: [
            Wire.ChangeRequest(request: .deleteAssets(Wire.DeleteAssetsRequest(assetIdentifiers: [server.assets[0]]))),
        ]).encoded())
        XCTAssertEqual(trash.status.code, .permissionDenied, trash.status.message)
        XCTAssertEqual(trash.status.failedRequestIndexPlusOne, 1)
        XCTAssertEqual(trash.status.reason, .notAuthorized)
        let fetch = try client.call(stream: 7, method: PhotoLibraryMethods.fetchAssets.path, request: Wire.FetchAssetsRequest().encoded())
        XCTAssertEqual(fetch.status.code, .permissionDenied, fetch.status.message)
        // The audit log says so (refusals are written in the background: wait for the line).
        var entries: [Wire.AuditLogEntry] = []
        for _ in 0..<100 where !entries.contains(where: { $0.event == "refused" && $0.detail.hasPrefix("FetchAssets") }) {
            if !entries.isEmpty { Thread.sleep(forTimeInterval: 0.05) }
            let log = try owner.call(stream: ownerStream, method: PhotoLibraryMethods.getAuditLog.path, request: Wire.AuditLogRequest().encoded())
            ownerStream += 2
            entries = try Wire.AuditLogResponse(decoding: log.messages[0]).entries.filter { $0.clientIdentifier == state.clientIdentifier }
        }
        XCTAssertEqual(entries.map(\.event).prefix(2), ["requested", "authorized"])
        XCTAssertTrue(entries.contains { $0.event == "refused" && $0.detail.hasPrefix("FetchAssets") }, "\(entries)")
    }

    func testRevokingEndsAnOpenSubscriptionWithinASecond() throws {
        let state = try EnforcementMatrixTests.register(server, name: "Old laptop", level: .readWrite)
        XCTAssertEqual(try decide(state.clientIdentifier, .authorized).code, .ok)
        let client = try server.rawConnection()
        _ = try client.handshake(token: state.clientToken)
        client.send(Frame(.call, stream: 1, payload: Wire.CallStart(method: PhotoLibraryMethods.subscribe.path).encoded()))
        client.send(Frame(.message, stream: 1, payload: Wire.SubscriptionRequest(request: .registerFetch(Wire.FetchAssetsRequest())).encoded()))
        guard case .frame = client.readUntil(timeout: 10, { $0.streamID == 1 && $0.type == .message }).0 else { return XCTFail("not subscribed") }
        let started = Date()
        XCTAssertEqual(try decide(state.clientIdentifier, .denied, revoke: true).code, .ok)
        let (read, _) = client.readUntil(timeout: 5) { $0.streamID == 1 && $0.type == .status }
        guard case .frame(let status) = read else { return XCTFail("the subscription was not ended: \(read)") }
        XCTAssertEqual(try Wire.Status(decoding: status.payload).code, .permissionDenied)
        XCTAssertEqual(try Wire.Status(decoding: status.payload).reason, .notAuthorized)
        XCTAssertTrue(client.waitForClose(timeout: 5), "the connection closes")
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.0, "within a second")
        XCTAssertThrowsError(try server.rawConnection().handshake(token: state.clientToken), "the token opens nothing any more")
    }

    /// Connections without a token are capped, so a flood of them cannot hold the slots of
    /// clients that have one; a closed one frees its slot.
    func testTokenlessConnectionsAreFewAtATime() async throws {
        var configuration = ServerConfiguration()
        configuration.maxTokenlessConnections = 2
        let limited = try InProcessServer(configuration: configuration)
        addTeardownBlock { await limited.tearDown() }
        let first = try limited.rawConnection(), second = try limited.rawConnection()
        _ = try first.handshake(token: "")
        _ = try second.handshake(token: "")
        let third = try limited.rawConnection()
        XCTAssertThrowsError(try third.handshake(token: "")) { error in
            XCTAssertTrue("\(error)".contains("RESOURCE_EXHAUSTED"), "\(error)")
        }
        let owner = try limited.rawConnection()
        XCTAssertNoThrow(try owner.handshake(token: limited.token), "the owner still gets in")
        first.close()
        var admitted = false
        for _ in 0..<50 where !admitted {
            try await Task.sleep(nanoseconds: 20_000_000)
            admitted = (try? limited.rawConnection().handshake(token: "")) != nil
        }
        XCTAssertTrue(admitted, "a closed tokenless connection frees its slot")
    }

    /// A level the server refuses by policy is `restricted` from the start.
    func testARestrictedLevelIsRestricted() async throws {
        var configuration = ServerConfiguration()
        configuration.restrictedAccessLevels = [.addOnly]
        let restricting = try InProcessServer(configuration: configuration)
        addTeardownBlock { await restricting.tearDown() }
        XCTAssertEqual(try EnforcementMatrixTests.register(restricting, name: "uploader", level: .addOnly).status, .restricted)
        XCTAssertEqual(try EnforcementMatrixTests.register(restricting, name: "viewer", level: .readWrite).status, .notDetermined)
    }

    /// Changes from a client whose edits need confirmation wait for the owner: confirmed,
    /// they apply; declined, nothing is applied and the client hears PERMISSION_DENIED.
    func testEditsWaitForTheOwnersConfirmation() throws {
        let state = try EnforcementMatrixTests.register(server, name: "Tagger", level: .readWrite)
        XCTAssertEqual(try decide(state.clientIdentifier, .authorized).code, .ok)
        let policy = try owner.call(stream: ownerStream, method: PhotoLibraryMethods.setClientAuthorization.path, request: Wire.SetClientAuthorizationRequest(
            clientIdentifier: state.clientIdentifier, confirmEdits: .on, policyOnly: true).encoded())
        ownerStream += 2
        XCTAssertEqual(policy.status.code, .ok, policy.status.message)
        let client = try server.rawConnection()
        defer { client.close() }
        _ = try client.handshake(token: state.clientToken)
        let asset = server.assets[0]

        func propose(_ stream: UInt32, favorite: Bool) {
            let change = Wire.ChangeRequest(request: .setAssetProperties(Wire.SetAssetPropertiesRequest(assetIdentifier: asset, isFavorite: Wire.BoolValue(value: favorite))))
            client.send(Frame(.call, stream: stream, payload: Wire.CallStart(method: PhotoLibraryMethods.performChanges.path).encoded()))
            client.send(Frame(.message, stream: stream, flags: .endStream, payload: Wire.PerformChangesRequest(requests: [change]).encoded()))
        }
        func pending() throws -> [Wire.PendingRequest] {
            defer { ownerStream += 2 }
            let result = try owner.call(stream: ownerStream, method: PhotoLibraryMethods.listPendingRequests.path, request: Wire.Empty().encoded())
            return try Wire.PendingRequestsResponse(decoding: result.messages[0]).requests.filter { $0.kind == .editConfirmation }
        }
        func answer(_ id: String, confirm: Bool) throws -> Wire.Status {
            defer { ownerStream += 2 }
            return try owner.call(stream: ownerStream, method: PhotoLibraryMethods.answerPendingRequest.path, request: Wire.AnswerPendingRequestRequest(requestID: id, confirm: confirm).encoded()).status
        }
        func waitForPending() throws -> Wire.PendingRequest {
            for _ in 0..<100 {
                if let first = try pending().first { return first }
                Thread.sleep(forTimeInterval: 0.02)
            }
            throw RawConnectionError("no change waits for confirmation")
        }

        // Declined: nothing applied.
        propose(1, favorite: true)
        let first = try waitForPending()
        XCTAssertEqual(first.clientIdentifier, state.clientIdentifier)
        XCTAssertTrue(first.summary.contains("setAssetProperties") || first.summary.contains("PerformChanges"), first.summary)
        XCTAssertEqual(try answer(first.requestID, confirm: false).code, .ok)
        let (declined, _) = client.readUntil(timeout: 5) { $0.streamID == 1 && $0.type == .status }
        guard case .frame(let declinedFrame) = declined else { return XCTFail("no answer after the decline") }
        XCTAssertEqual(try Wire.Status(decoding: declinedFrame.payload).code, .permissionDenied)
        XCTAssertFalse(try server.library.asset(withIdentifier: asset)?.isFavorite ?? true, "nothing applied")

        // Confirmed: applied.
        propose(3, favorite: true)
        let second = try waitForPending()
        XCTAssertEqual(try answer(second.requestID, confirm: true).code, .ok)
        let (confirmed, _) = client.readUntil(timeout: 5) { $0.streamID == 3 && $0.type == .status }
        guard case .frame(let confirmedFrame) = confirmed else { return XCTFail("no answer after the confirmation") }
        XCTAssertEqual(try Wire.Status(decoding: confirmedFrame.payload).code, .ok)
        XCTAssertTrue(try server.library.asset(withIdentifier: asset)?.isFavorite ?? false)
        XCTAssertEqual(try answer(second.requestID, confirm: true).code, .notFound, "answered once")
        XCTAssertTrue(try pending().isEmpty)
    }
}
