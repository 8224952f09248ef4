import Foundation
import PhotoLibCore

/// The servers' pinned certificate fingerprints, kept beside the credentials as SSH keeps
/// `known_hosts` beside its keys: `known_servers` in the credentials' directory, a JSON
/// object from `HOST:PORT` to `SHA256:…`, mode 0600.
///
/// A pin is stored only on an explicit request (`photolib tls pin`), or with a credential
/// obtained over a connection that pin verified (``save(_:for:verifiedBy:)``), never silently
/// on first contact; once stored, a server presenting another certificate is refused until
/// the pin is replaced.
extension CredentialStore {
    /// Stores `grant` for `server` and, when it was obtained over TLS verified by a pinned
    /// fingerprint (`tls`), pins that fingerprint for `server` too, so that later
    /// connections with the stored token use TLS with it rather than plain TCP. Returns the
    /// fingerprint pinned, if any.
    @discardableResult
    public func save(_ grant: ClientGrant, for server: String, verifiedBy tls: ClientTLS?) throws -> TLSFingerprint? {
        // The pin first: a stored token never waits in the store without the pin it needs.
        let pinned = tls?.pinnedFingerprint
        if let pinned, try pinnedFingerprint(for: server) != pinned {
            try pin(pinned, for: server)
        }
        try save(grant, for: server)
        return pinned
    }

    /// The file of pinned fingerprints: `known_servers` beside ``path``.
    public var knownServersPath: String {
        (path as NSString).deletingLastPathComponent + "/known_servers"
    }

    /// The fingerprint pinned for `server` (`HOST:PORT`), if any.
    public func pinnedFingerprint(for server: String) throws -> TLSFingerprint? {
        try loadKnownServers()[server]
    }

    /// Pins `fingerprint` for `server`, replacing an earlier pin.
    public func pin(_ fingerprint: TLSFingerprint, for server: String) throws {
        var all = try loadKnownServers()
        all[server] = fingerprint
        try Self.writePrivately(all, to: knownServersPath)
    }

    /// Forgets the pin for `server`; returns whether there was one.
    @discardableResult
    public func forgetPin(for server: String) throws -> Bool {
        var all = try loadKnownServers()
        guard all.removeValue(forKey: server) != nil else { return false }
        try Self.writePrivately(all, to: knownServersPath)
        return true
    }

    private func loadKnownServers() throws -> [String: TLSFingerprint] {
        guard let data = FileManager.default.contents(atPath: knownServersPath) else { return [:] }
        do {
            return try JSONDecoder().decode([String: TLSFingerprint].self, from: data)
        } catch {
            throw PhotoLibError(
                .dataLoss,
                "\(knownServersPath) is not a known-servers file PhotoLib can read (\(error.localizedDescription)); fix or remove it, then pin the servers again")
        }
    }
}
