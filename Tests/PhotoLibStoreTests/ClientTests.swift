import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

@Suite("Clients: registration, decisions, revocation, audit")
struct ClientTests {
    @Test("a client registers, is found by its token alone, and the token is stored only as a hash")
    func register() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let (record, token) = try library.registerClient(name: "Frame in the hall", level: .readWrite)
        #expect(record.readWrite == .notDetermined && record.addOnly == .notDetermined && !record.isRevoked)
        #expect(record.clientIdentifier.hasPrefix("client-") && token.count == 64)
        #expect(try library.client(presenting: token)?.clientIdentifier == record.clientIdentifier)
        #expect(try library.client(presenting: token + "0") == nil)
        #expect(try library.client(presenting: try library.ownerToken()) == nil)
        // Only the digest is in the database.
        let stored = try library.read { (database) throws(PhotoLibError) in
            try database.prepare("SELECT token_sha256 FROM client").rows { $0.text(0) }
        }
        #expect(stored == [PhotoLibrary.tokenDigest(token)] && !stored.contains(token))

        let restricted = try library.registerClient(name: "Uploader", level: .addOnly, restricted: true).0
        #expect(restricted.addOnly == .restricted && restricted.readWrite == .notDetermined)
        // The level each asked for is kept (the owner approves that, not more).
        #expect(try library.client(withIdentifier: record.clientIdentifier)?.requestedLevel == .readWrite)
        #expect(try library.client(withIdentifier: restricted.clientIdentifier)?.requestedLevel == .addOnly)
        #expect(try library.clients().map(\.requestedLevel) == [.readWrite, .addOnly])
        #expect(expectError { () throws(PhotoLibError) in _ = try library.registerClient(name: "", level: .readWrite) }.code == .invalidArgument)
        #expect(expectError { () throws(PhotoLibError) in _ = try library.registerClient(name: String(repeating: "x", count: 129), level: .readWrite) }.code == .invalidArgument)
        #expect(expectError { () throws(PhotoLibError) in _ = try library.registerClient(name: "bell\u{7}", level: .readWrite) }.code == .invalidArgument)
    }

    @Test("the owner decides per access level; revoking denies everything and voids the credential; all of it is audited")
    func decide() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let (record, token) = try library.registerClient(name: "Phone", level: .readWrite)
        let id = record.clientIdentifier
        #expect(try library.decide(client: id, level: .addOnly, status: .authorized).addOnly == .authorized)
        #expect(try library.client(presenting: token)?.readWrite == .notDetermined, "levels are decided separately")
        #expect(try library.decide(client: id, level: .readWrite, status: .denied).readWrite == .denied)
        #expect(expectError { () throws(PhotoLibError) in _ = try library.decide(client: id, level: .readWrite, status: .limited) }.code == .invalidArgument)
        #expect(expectError { () throws(PhotoLibError) in _ = try library.decide(client: "client-nope", level: .readWrite, status: .authorized) }.code == .notFound)

        let revoked = try library.revoke(client: id)
        #expect(revoked.isRevoked && revoked.readWrite == .denied && revoked.addOnly == .denied)
        #expect(try library.client(presenting: token) == nil, "a revoked credential opens nothing")
        #expect(expectError { () throws(PhotoLibError) in _ = try library.decide(client: id, level: .readWrite, status: .authorized) }.code == .notFound)
        try library.audit(client: id, event: "refused", detail: "FetchAssets: revoked")
        #expect(try library.auditLog().map(\.event) == ["requested", "authorized", "denied", "revoked", "refused"])
        #expect(try library.clients().map(\.clientIdentifier) == [id])
    }
}
