import Crypto
import Foundation
import Logging
import PhotoLibCore

/// What every connection of a server shares: configuration, router, credentials, logger.
final class ServerCore: Sendable {
    let configuration: ServerConfiguration
    let router: RPCRouter
    let logger: Logger
    let libraryIdentifier: String
    /// The server-wide memory budget of every connection's fetch-result snapshots.
    let snapshotBudget: SnapshotBudget
    private let ownerTokenDigest: [UInt8]
    /// The library directory as given and as resolved: spellings of server paths that must
    /// never reach a client (see ``clientVisible(_:)``).
    private let serverPaths: [String]

    struct Identity {
        var isOwner: Bool
    }

    init(configuration: ServerConfiguration, router: RPCRouter, logger: Logger, libraryIdentifier: String, ownerToken: String, libraryDirectory: String) {
        let resolved = URL(fileURLWithPath: libraryDirectory).resolvingSymlinksInPath().path
        let absolute = URL(fileURLWithPath: libraryDirectory).standardizedFileURL.path
        self.serverPaths = Set([libraryDirectory, resolved, absolute]).filter { $0.count > 1 }.sorted { $0.count > $1.count }
        self.configuration = configuration
        self.snapshotBudget = SnapshotBudget(limit: configuration.snapshotMemoryBytes)
        self.router = router
        self.logger = logger
        self.libraryIdentifier = libraryIdentifier
        self.ownerTokenDigest = Array(SHA256.hash(data: Array(ownerToken.utf8)))
    }

    /// Checks a HELLO token. Compares digests in constant time.
    func authenticate(token: String) -> Identity? {
        // Spaces and line ends around the token are not part of it (owner.token ends with a
        // newline; a client that sends the file's text as it is must get in).
        let token = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { return nil }
        let digest = Array(SHA256.hash(data: Array(token.utf8)))
        var difference: UInt8 = 0
        for (a, b) in zip(digest, ownerTokenDigest) { difference |= a ^ b }
        return difference == 0 ? Identity(isOwner: true) : nil
    }

    /// `error` as a client may see it: any spelling of the library's path on the server is
    /// replaced by "<library>" (messages built deep in the store or by SQLite may hold one; a
    /// client has no business knowing the server's file layout). The owner sees the full
    /// message in the server log.
    func clientVisible(_ error: PhotoLibError) -> PhotoLibError {
        guard serverPaths.contains(where: { error.message.contains($0) }) else { return error }
        var visible = error
        for path in serverPaths { visible.message = visible.message.replacingOccurrences(of: path, with: "<library>") }
        logger.notice("server path removed from a client's error", metadata: ["message": "\(error.message)"])
        return visible
    }
}
