import Foundation
import PhotoLibCore

/// How the servers one talks to are trusted, kept beside the credentials as SSH keeps
/// `known_hosts` beside its keys: `known_servers` in the credentials' directory, a JSON
/// object from `HOST:PORT` to a pinned certificate fingerprint `SHA256:…`, or to
/// `certificate-authority` for a server whose certificate this machine's authorities verify
/// (TLS without a pin), mode 0600.
///
/// A pin is stored only on an explicit request (`photolib tls pin`), or with a credential
/// obtained over a connection that pin verified (``save(_:for:verifiedBy:)``), never silently
/// on first contact; once stored, a server presenting another certificate is refused until
/// the pin is replaced.
extension CredentialStore {
    /// The `known_servers` value of a server trusted through the certificate authorities.
    static let certificateAuthorityEntry = "certificate-authority"

    /// Stores `grant` for `server` and, when it was obtained over TLS (`tls`), how that TLS
    /// was trusted: its pinned fingerprint, or the certificate authorities, so that later
    /// connections with the stored token use TLS the same way rather than plain TCP (which
    /// would send the token in the clear before the server refused it). Returns the
    /// fingerprint pinned, if any.
    @discardableResult
    public func save(_ grant: ClientGrant, for server: String, verifiedBy tls: ClientTLS?) throws -> TLSFingerprint? {
        // The trust first: a stored token never waits in the store without the TLS it needs.
        if let tls { try setEntry(tls.pinnedFingerprint?.description ?? Self.certificateAuthorityEntry, for: server) }
        try save(grant, for: server)
        return tls?.pinnedFingerprint
    }

    /// How `server` (`HOST:PORT`) is known to use TLS: with its pinned fingerprint, or
    /// verified by the certificate authorities; `nil` when nothing is stored for it.
    public func knownServer(_ server: String) throws -> ClientTLS? {
        guard let entry = try loadKnownServers()[server] else { return nil }
        if entry == Self.certificateAuthorityEntry { return .certificateAuthority }
        // Checked when loaded: every other entry is a fingerprint.
        return Self.fingerprint(entry).map(ClientTLS.pinned)
    }

    /// The file of pinned fingerprints: `known_servers` beside ``path``.
    public var knownServersPath: String {
        (path as NSString).deletingLastPathComponent + "/known_servers"
    }

    /// The fingerprint pinned for `server` (`HOST:PORT`), if any.
    public func pinnedFingerprint(for server: String) throws -> TLSFingerprint? {
        try knownServer(server)?.pinnedFingerprint
    }

    /// Pins `fingerprint` for `server`, replacing an earlier pin (or a trust in the authorities).
    public func pin(_ fingerprint: TLSFingerprint, for server: String) throws {
        try setEntry(fingerprint.description, for: server)
    }

    /// Stores `entry` (`SHA256:…` or ``certificateAuthorityEntry``) for `server`; the file is
    /// written only when that changes it.
    private func setEntry(_ entry: String, for server: String) throws {
        var all = try loadKnownServers()
        guard all[server] != entry else { return }
        all[server] = entry
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

    /// The entries as stored: `HOST:PORT` → `SHA256:…` or ``certificateAuthorityEntry``.
    private func loadKnownServers() throws -> [String: String] {
        guard let data = FileManager.default.contents(atPath: knownServersPath) else { return [:] }
        let entries: [String: String]
        do {
            entries = try JSONDecoder().decode([String: String].self, from: data)
        } catch {
            throw unreadable(error.localizedDescription)
        }
        for (server, entry) in entries where entry != Self.certificateAuthorityEntry && Self.fingerprint(entry) == nil {
            throw unreadable("\(server): '\(entry.prefix(80))' is neither a SHA256: fingerprint nor \(Self.certificateAuthorityEntry)")
        }
        return entries
    }

    private static func fingerprint(_ entry: String) -> TLSFingerprint? {
        try? TLSFingerprint(parsing: entry)
    }

    private func unreadable(_ why: String) -> PhotoLibError {
        PhotoLibError(
            .dataLoss,
            "\(knownServersPath) is not a known-servers file PhotoLib can read (\(why)); fix or remove it, then pin the servers again")
    }
}
