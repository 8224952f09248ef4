import ArgumentParser
import Foundation
import Logging
import PhotoLibNet
import PhotoLibServer

/// `photolibd serve`'s TLS options: `--tls` with the library's own self-signed identity, or
/// `--tls-cert FILE --tls-key FILE` with a CA-signed one.
struct TLSOptions: ParsableArguments {
    @Flag(name: .long, help: "Serve TLS 1.3 only. The first start generates a key and a self-signed certificate in LIBRARY/tls (0600) and prints its fingerprint, which clients pin.")
    var tls = false

    @Option(name: .customLong("tls-cert"), help: "A PEM certificate chain (leaf first) to present instead of the library's own, e.g. one signed by a CA; needs --tls-key, implies --tls.")
    var certificateFile: String?

    @Option(name: .customLong("tls-key"), help: "The PEM private key of --tls-cert.")
    var keyFile: String?

    /// Whether TLS is on.
    var enabled: Bool { tls || certificateFile != nil }

    func validate() throws {
        guard (certificateFile == nil) == (keyFile == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together: the certificate chain and its private key")
        }
    }

    /// The server context for `library`, or `nil` without TLS. Loads (or on first use
    /// generates) the identity; prints `TLS fingerprint SHA256:…` on stdout after the
    /// caller's `listening on` line (see ``announce(_:)``).
    func context(library: String, logger: Logger) throws -> TLSContext? {
        guard enabled else { return nil }
        let identity: TLSIdentity
        do throws(TLSError) {
            if let certificateFile, let keyFile {
                identity = try TLSIdentity.load(certificateFile: certificateFile, keyFile: keyFile)
                logger.info("TLS with the given certificate", metadata: ["tls.certificate": "\(certificateFile)"])
            } else {
                let directory = (library as NSString).appendingPathComponent("tls")
                let (loaded, created) = try TLSIdentity.loadOrCreate(directory: directory)
                identity = loaded
                if created {
                    logger.notice("generated a TLS key and self-signed certificate; clients must pin its fingerprint", metadata: [
                        "tls.directory": "\(directory)", "tls.fingerprint": "\(loaded.fingerprint)",
                    ])
                }
            }
            Self.warnAboutDates(identity, logger: logger)
            return try TLSContext.server(identity: identity)
        } catch {
            throw Failure.exit("photolibd: cannot set up TLS: \(error.message)")
        }
    }

    /// Warns (stderr and the log) when the certificate has expired or is not valid yet, and
    /// notes when it expires within 14 days. Serving goes on: the operator decides (clients
    /// that pinned the certificate ignore its dates).
    static func warnAboutDates(_ identity: TLSIdentity, logger: Logger) {
        guard let problem = identity.validityProblem() else { return }
        let metadata: Logger.Metadata = [
            "tls.not.before": "\(identity.notBefore)", "tls.not.after": "\(identity.notAfter)",
        ]
        if problem.refusedNow {
            FileHandle.standardError.write(Data("WARNING: photolibd: \(problem)\n".utf8))
            logger.warning("\(problem)", metadata: metadata)
        } else {
            logger.notice("\(problem)", metadata: metadata)
        }
    }

    /// Prints the fingerprint clients pin, as the second line on stdout.
    static func announce(_ context: TLSContext?) {
        guard let fingerprint = context?.fingerprint else { return }
        FileHandle.standardOutput.write(Data("TLS fingerprint \(fingerprint)\n".utf8))
    }

    /// Warns loudly (stderr and the log) when plain TCP is served beyond loopback: tokens
    /// and photos would cross the network unencrypted.
    static func warnIfPlaintext(_ context: TLSContext?, listening endpoint: String, host: String, logger: Logger) {
        guard context == nil, !ServerTLS.isLoopback(host) else { return }
        let banner = """
            ************************************************************************
            WARNING: photolibd serves PLAIN TCP on \(endpoint), beyond loopback.
            Access tokens, photos and every change cross the network UNENCRYPTED,
            readable and alterable by anyone on the path. Serve with --tls (clients
            pin the printed fingerprint) or --tls-cert/--tls-key, or listen on
            127.0.0.1 and reach it through an SSH tunnel or a VPN.
            ************************************************************************

            """
        FileHandle.standardError.write(Data(banner.utf8))
        logger.warning("serving plain TCP beyond loopback: use --tls", metadata: ["endpoint": "\(endpoint)"])
    }
}
