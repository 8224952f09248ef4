import Foundation
import PhotoLibCore
import PhotoLibServer
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// Every method, called by every kind of connection: allowed or refused exactly as the
/// access table says. The expected table is written here again on purpose (a server table
/// changed by mistake fails), and a method of the protocol without a row fails the test.
final class EnforcementMatrixTests: XCTestCase {
    /// Who may call what: "all" anyone, "cred" any credential, "owner", "read" read-write
    /// clients (authorized or limited), "add" add-only or read-write clients, "limited" limited
    /// clients only (what they see is LimitedLibraryTests' subject).
    static let expected: [String: String] = [
        "GetLibraryInfo": "read", "RequestAuthorization": "all", "GetAuthorizationStatus": "cred",
        "ListClients": "owner", "SetClientAuthorization": "owner", "GetAuditLog": "owner",
        "ListPendingRequests": "owner", "AnswerPendingRequest": "owner", "RequestMoreAssets": "limited",
        "FetchAssets": "read", "FetchAssetCollections": "read", "FetchCollectionLists": "read",
        "FetchResultObjects": "read", "FetchResultIndex": "read", "ReleaseFetchResult": "read",
        "UploadAsset": "add", "PerformChanges": "add",
        "RequestImage": "read", "CancelImageRequest": "read", "StartCachingImages": "read", "StopCachingImages": "read",
        "StopCachingImagesForAllAssets": "read", "GetAssetResources": "read", "RequestResourceData": "read",
        "RequestContentEditingInput": "read", "Subscribe": "read", "FetchPersistentChanges": "read",
    ]

    enum Who: String, CaseIterable {
        case owner, readWrite, limited, addOnly, undecided, denied, revoked, unauthenticated
    }

    private var server: InProcessServer!
    private var tokens: [Who: String] = [:]

    override func setUp() async throws {
        server = try InProcessServer(photos: [Fixtures.landscape])
        tokens[.owner] = server.token
        tokens[.unauthenticated] = ""
        let owner = try server.rawConnection()
        _ = try owner.handshake(token: server.token)
        var stream: UInt32 = 1
        let decisions: [(Who, Wire.AccessLevel, Wire.AuthorizationStatus?)] = [
            (.readWrite, .readWrite, .authorized), (.limited, .readWrite, .limited), (.addOnly, .addOnly, .authorized), (.undecided, .readWrite, nil),
            (.denied, .readWrite, .denied), (.revoked, .readWrite, .authorized),
        ]
        for (who, level, decision) in decisions {
            let state = try Self.register(server, name: who.rawValue, level: level)
            tokens[who] = state.clientToken
            if let decision {
                let result = try owner.call(stream: stream, method: PhotoLibraryMethods.setClientAuthorization.path, request: Wire.SetClientAuthorizationRequest(
                    clientIdentifier: state.clientIdentifier, status: decision, accessLevel: level,
                    selectedAssetIdentifiers: decision == .limited ? [server.assets[0]] : [], revoke: who == .revoked).encoded())
                stream += 2
                XCTAssertEqual(result.status.code, .ok, result.status.message)
            }
        }
        owner.close()
    }

    override func tearDown() async throws {
        await server?.tearDown()
    }

    /// Registers a client over an unauthenticated connection and returns its state.
    static func register(_ server: InProcessServer, name: String, level: Wire.AccessLevel) throws -> Wire.AuthorizationState {
        let connection = try server.rawConnection()
        defer { connection.close() }
        let welcome = try connection.handshake(token: "")
        XCTAssertFalse(welcome.isOwner)
        XCTAssertEqual(welcome.authorizationStatus, .notDetermined)
        let result = try connection.call(stream: 1, method: PhotoLibraryMethods.requestAuthorization.path, request: Wire.AuthorizationRequest(accessLevel: level, clientName: name).encoded())
        XCTAssertEqual(result.status.code, .ok, result.status.message)
        return try Wire.AuthorizationState(decoding: result.messages[0])
    }

    /// The first answer to a call with an empty request: its STATUS code, or nil when the
    /// call got past the access check (a MESSAGE came, or a STATUS other than a refusal).
    private func firstAnswer(_ connection: RawConnection, stream: UInt32, method: String) throws -> Wire.Status? {
        // A limited client's RequestMoreAssets waits for the owner: its deadline answers it.
        let timeout: UInt64 = method == "RequestMoreAssets" ? 2000 : 0
        connection.send(Frame(.call, stream: stream, payload: Wire.CallStart(method: "/\(PhotoLibraryMethods.serviceName)/\(method)", timeoutMs: timeout).encoded()))
        connection.send(Frame(.message, stream: stream, flags: .endStream, payload: []))
        let (read, _) = connection.readUntil(timeout: 20) { $0.streamID == stream && ($0.type == .message || $0.type == .status) }
        guard case .frame(let frame) = read else { throw RawConnectionError("\(method): no answer: \(read)") }
        if frame.type == .message {
            connection.send(Frame(.cancel, stream: stream, payload: Wire.Cancel(reason: "matrix").encoded()))
            return nil
        }
        return try Wire.Status(decoding: frame.payload)
    }

    func testEveryMethodForEveryKindOfConnection() throws {
        let methods = PhotoLibraryMethods.all.map(\.name)
        XCTAssertEqual(Set(methods), Set(Self.expected.keys), "every method of the protocol has one row in the matrix")
        for method in methods {
            XCTAssertEqual(MethodAccess.required(for: method), Self.access(Self.expected[method] ?? ""), "\(method): the server's table")
        }
        var failures: [String] = []
        for who in Who.allCases {
            let connection = try server.rawConnection()
            defer { connection.close() }
            guard who != .revoked else {
                // A revoked credential opens nothing: not even the handshake.
                XCTAssertThrowsError(try connection.handshake(token: tokens[who]!), "a revoked token passes the handshake")
                continue
            }
            _ = try connection.handshake(token: tokens[who]!)
            var stream: UInt32 = 1
            for method in methods {
                let status = try firstAnswer(connection, stream: stream, method: method)
                stream += 2
                let rule = Self.expected[method]!
                let allowed = Self.allows(rule, who)
                // Asking for more assets without a selection is a precondition, not a permission.
                let refusals: Set<Wire.StatusCode> = rule == "limited" ? [.permissionDenied, .unauthenticated, .failedPrecondition] : [.permissionDenied, .unauthenticated]
                let refused = status.map { refusals.contains($0.code) } ?? false
                if allowed == refused {
                    failures.append("\(who) \(method): expected \(allowed ? "allowed" : "refused"), got \(status.map { "\($0.code) \($0.message)" } ?? "an answer")")
                }
                if !allowed, who == .unauthenticated, let status { XCTAssertEqual(status.code, .unauthenticated, "\(method)") }
                if !allowed, who != .unauthenticated, rule != "limited", let status {
                    XCTAssertEqual(status.code, .permissionDenied, "\(who) \(method)")
                    XCTAssertEqual(status.reason, .notAuthorized, "\(who) \(method): PERMISSION_DENIED from authorization carries NOT_AUTHORIZED (docs/PROTOCOL.md 8.2)")
                }
            }
        }
        XCTAssertEqual(failures, [])
    }

    /// A revoked client's token no longer passes the handshake.
    func testARevokedTokenIsRefusedAtTheHandshake() throws {
        let state = try Self.register(server, name: "lost phone", level: .readWrite)
        let owner = try server.rawConnection()
        _ = try owner.handshake(token: server.token)
        let revoke = try owner.call(stream: 1, method: PhotoLibraryMethods.setClientAuthorization.path, request: Wire.SetClientAuthorizationRequest(
            clientIdentifier: state.clientIdentifier, revoke: true).encoded())
        XCTAssertEqual(revoke.status.code, .ok, revoke.status.message)
        let connection = try server.rawConnection()
        XCTAssertThrowsError(try connection.handshake(token: state.clientToken))
    }

    private static func access(_ name: String) -> MethodAccess {
        switch name {
        case "all": return .anyone
        case "cred": return .anyCredential
        case "read": return .read
        case "add": return .add
        case "limited": return .limited
        default: return .owner
        }
    }

    private static func allows(_ rule: String, _ who: Who) -> Bool {
        switch who {
        case .owner: return rule != "limited"
        case .unauthenticated: return rule == "all"
        case .readWrite: return rule != "owner" && rule != "limited"
        case .limited: return rule != "owner"
        case .addOnly: return rule == "all" || rule == "cred" || rule == "add"
        case .undecided, .denied, .revoked: return rule == "all" || rule == "cred"
        }
    }
}
