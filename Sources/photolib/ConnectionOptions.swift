import ArgumentParser
import Foundation
import PhotoLibClient

/// Options every command shares: where the server is, the credentials, the output format.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .long, help: "The server, HOST:PORT (default: $PHOTOLIB_SERVER or 127.0.0.1:7800).")
    var server: String?

    @Option(name: .long, help: "The access token (default: $PHOTOLIB_TOKEN).")
    var token: String?

    @Option(name: .long, help: "Read the access token from a file, e.g. LIBRARY/owner.token.")
    var tokenFile: String?

    @Option(name: .long, help: "Connect with TLS and pin the server's certificate: SHA256:… as 'photolibd serve --tls' prints it (default: $PHOTOLIB_FINGERPRINT, else the pin stored by 'photolib tls pin').")
    var fingerprint: String?

    @Flag(name: .long, help: "Connect with TLS to a server whose certificate a system-trusted authority signed for its name (no pin). A private authority is trusted by adding its certificate to the system trust store, or with SSL_CERT_FILE=CA.pem.")
    var tls = false

    @Flag(name: .long, help: "Print one JSON document on stdout.")
    var json = false

    /// The server to use.
    var resolvedServer: String {
        server ?? ProcessInfo.processInfo.environment["PHOTOLIB_SERVER"] ?? "127.0.0.1:7800"
    }

    /// The token to use, or a message saying how to give one.
    func resolvedToken() throws -> String {
        if let token { return token }
        if let tokenFile {
            guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                throw CLIError("cannot read the token file \(tokenFile)")
            }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let token = ProcessInfo.processInfo.environment["PHOTOLIB_TOKEN"], !token.isEmpty { return token }
        // The credential `photolib auth request` stored for this server.
        if let grant = try? CredentialStore().grant(for: resolvedServer) { return grant.token }
        throw CLIError("no token: pass --token TOKEN, --token-file LIBRARY/owner.token, set PHOTOLIB_TOKEN, or ask for access with 'photolib auth request --name NAME --access read-write'")
    }

    /// How to secure the connection, first match wins: `--fingerprint`, `$PHOTOLIB_FINGERPRINT`,
    /// the pin stored for the server (`photolib tls pin`, in `known_servers` beside the
    /// credentials), `--tls` (CA-signed certificate); otherwise plain TCP (`nil`).
    func resolvedTLS() throws -> ClientTLS? {
        let environment = ProcessInfo.processInfo.environment["PHOTOLIB_FINGERPRINT"].flatMap { $0.isEmpty ? nil : $0 }
        if let text = fingerprint ?? environment {
            do {
                return .pinned(try TLSFingerprint(parsing: text))
            } catch {
                throw CLIError("\(fingerprint != nil ? "--fingerprint" : "PHOTOLIB_FINGERPRINT"): \(error.message)")
            }
        }
        let store = CredentialStore()
        do {
            // A pin, or a server whose credential was obtained over CA-verified TLS.
            if let known = try store.knownServer(resolvedServer) { return known }
        } catch let error as PhotoLibError {
            throw CLIError(error.message, code: error.code)
        }
        return tls ? .certificateAuthority : nil
    }

    /// The client configuration these options ask for (TLS settings; default limits, or the
    /// larger windows of ``ClientConfiguration/bulkTransfer`` for `bulk` transfers).
    ///
    /// Without TLS to a server beyond loopback, warns once on stderr first: the token
    /// would cross the network in plain text.
    func clientConfiguration(bulk: Bool = false) throws -> ClientConfiguration {
        var configuration = bulk ? ClientConfiguration.bulkTransfer : ClientConfiguration()
        configuration.tls = try resolvedTLS()
        if configuration.tls == nil { Self.warnPlaintext(to: resolvedServer) }
        return configuration
    }

    /// Whether the plain-text warning was printed (once per process).
    nonisolated(unsafe) private static var warnedPlaintext = false

    /// One line on stderr (never stdout: `--json` stays clean) when `server` is not
    /// loopback: the credential would travel in plain text.
    private static func warnPlaintext(to server: String) {
        guard !warnedPlaintext, !PhotoLibrary.isLoopback(server: server) else { return }
        warnedPlaintext = true
        let line = "photolib: warning: connecting to \(server) without TLS: the access token and everything else cross the network in plain text; serve with 'photolibd serve --tls' and pin the fingerprint it prints (photolib tls pin SHA256:…, or PHOTOLIB_FINGERPRINT), or use --tls for a CA-signed certificate\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Connects, runs `body`, closes; turns errors into one clear line and exit status 1.
    /// `bulk`: the connection moves large resources (``clientConfiguration(bulk:)``).
    func withLibrary<T>(bulk: Bool = false, _ body: (PhotoLibrary) async throws -> T) async throws -> T {
        do {
            let library = try await PhotoLibrary.connect(
                to: resolvedServer, token: try resolvedToken(), clientName: "photolib/0.1.0", configuration: try clientConfiguration(bulk: bulk))
            defer { library.close() }
            return try await body(library)
        } catch let error as PhotoLibError {
            throw CLIError(error.message, code: error.code)
        }
    }
}

/// A failure reported as `photolib: message` with exit status 1.
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var code: StatusCode?

    init(_ message: String, code: StatusCode? = nil) {
        self.message = message
        self.code = code
    }

    var description: String {
        if let code { return "\(message) (\(code))" }
        return message
    }
}

/// Runs `body`, a change that is not safe to repeat blindly (an edit stacks on the one
/// before, an album is created twice). When the connection is lost while it runs
/// (`UNAVAILABLE`), the request may have been applied before the server went away: the error
/// says so, and what to `check` before running the command again, instead of reading like a
/// plain failure.
func changeWithUnknownOutcome<T>(_ what: String, check: String, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as PhotoLibError where error.code == .unavailable {
        throw CLIError(
            "\(error.message) while \(what) was being applied: it may have been applied before the connection was lost; \(check) before running the command again",
            code: error.code)
    }
}
