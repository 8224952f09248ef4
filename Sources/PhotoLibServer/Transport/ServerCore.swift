import Crypto
import Foundation
import Logging

/// What every connection of a server shares: configuration, router, credentials, logger.
final class ServerCore: Sendable {
    let configuration: ServerConfiguration
    let router: RPCRouter
    let logger: Logger
    let libraryIdentifier: String
    private let ownerTokenDigest: [UInt8]

    struct Identity {
        var isOwner: Bool
    }

    init(configuration: ServerConfiguration, router: RPCRouter, logger: Logger, libraryIdentifier: String, ownerToken: String) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
        self.libraryIdentifier = libraryIdentifier
        self.ownerTokenDigest = Array(SHA256.hash(data: Array(ownerToken.utf8)))
    }

    /// Checks a HELLO token. Compares digests in constant time.
    func authenticate(token: String) -> Identity? {
        guard !token.isEmpty else { return nil }
        let digest = Array(SHA256.hash(data: Array(token.utf8)))
        var difference: UInt8 = 0
        for (a, b) in zip(digest, ownerTokenDigest) { difference |= a ^ b }
        return difference == 0 ? Identity(isOwner: true) : nil
    }
}
