import Foundation
import PhotoLibCore

#if canImport(Glibc)
import Glibc
#endif

/// Where a program keeps the client tokens it was given, per server, so that it asks for
/// authorization once: `$XDG_CONFIG_HOME/photolib/credentials` (default
/// `~/.config/photolib/credentials`), a JSON file of mode 0600 in a directory of mode 0700.
///
/// Reads and writes a small file: call it where blocking briefly is fine.
public struct CredentialStore: Sendable {
    /// The file.
    public let path: String

    /// The store at `path` (default: ``defaultPath``).
    public init(path: String = CredentialStore.defaultPath) {
        self.path = path
    }

    /// `$XDG_CONFIG_HOME/photolib/credentials`, else `$HOME/.config/photolib/credentials`.
    public static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return base + "/photolib/credentials"
    }

    /// The grant stored for `server` (`HOST:PORT`), if any.
    public func grant(for server: String) throws -> ClientGrant? {
        try load()[server]
    }

    /// Stores `grant` for `server`, replacing an earlier one.
    public func save(_ grant: ClientGrant, for server: String) throws {
        var all = try load()
        all[server] = grant
        try write(all)
    }

    /// Forgets the grant for `server`.
    public func remove(server: String) throws {
        var all = try load()
        guard all.removeValue(forKey: server) != nil else { return }
        try write(all)
    }

    private func load() throws -> [String: ClientGrant] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        do {
            return try JSONDecoder().decode([String: ClientGrant].self, from: data)
        } catch {
            throw PhotoLibError(.dataLoss, "\(path) is not a credentials file PhotoLib can read (\(error.localizedDescription)); remove it and ask again")
        }
    }

    private func write(_ all: [String: ClientGrant]) throws {
        try Self.writePrivately(all, to: path)
    }

    /// Writes `value` as JSON to `path` (mode 0600, in a directory of mode 0700), through a
    /// private temporary file renamed into place.
    static func writePrivately(_ value: some Encodable, to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data = try encoder.encode(value)
        // A private temporary file renamed into place: the tokens are never readable by others.
        let temporary = path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw PhotoLibError(.failedPrecondition, "cannot write \(temporary); check the permissions of \(directory)")
        }
        _ = chmod(temporary, 0o600)
        guard rename(temporary, path) == 0 else {
            let code = errno
            _ = unlink(temporary)
            throw SystemError(errno: code, action: "replace \(path)").photoLibError
        }
    }
}
