import ArgumentParser
import Foundation
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib tls`: which certificate a server presents, and the pins this user keeps for
    /// servers (like SSH's `known_hosts`, in `known_servers` beside the credentials).
    struct TLSPins: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tls",
            abstract: "Pin servers' TLS certificates, as SSH's known_hosts pins host keys.",
            discussion: """
                'photolibd serve --tls' prints 'TLS fingerprint SHA256:…' when it starts. Pin that \
                fingerprint once ('photolib tls pin SHA256:…'); later commands to that server then \
                connect with TLS and refuse any other certificate. PHOTOLIB_FINGERPRINT or \
                --fingerprint pin for one command instead.
                """,
            subcommands: [Show.self, Pin.self, Forget.self])

        /// `photolib tls show`: the fingerprint the server presents, and the pin kept for it.
        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Print the fingerprint of the certificate the server presents (trusting nothing) and the pin kept for it.")

            @OptionGroup var connection: ConnectionOptions

            func run() async throws {
                let server = connection.resolvedServer
                let presented = try await fingerprint(of: server)
                let pinned = try pin(for: server)
                if connection.json {
                    struct ShowJSON: Encodable {
                        var server: String
                        var presented: String
                        var pinned: String?
                        var matches: Bool
                    }
                    try Output.json(ShowJSON(server: server, presented: presented.description, pinned: pinned?.description, matches: pinned == presented))
                    return
                }
                print("server     \(server)")
                print("presents   \(presented)")
                switch pinned {
                case nil: print("pinned     nothing (photolib tls pin \(presented), after comparing it with what photolibd printed)")
                case presented?: print("pinned     \(presented) (matches)")
                case let other?: print("pinned     \(other) (DIFFERENT: connections are refused)")
                }
            }
        }

        /// `photolib tls pin [FINGERPRINT] [--trust-on-first-use]`.
        struct Pin: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Pin the server's certificate fingerprint for later connections.",
                discussion: """
                    With FINGERPRINT (as photolibd printed it), the server is asked which certificate it \
                    presents and the pin is stored only if they match. With --trust-on-first-use, what the \
                    server presents now is stored: compare the printed fingerprint with the server's own \
                    output, since whoever answers first is believed.
                    """)

            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "SHA256:… as 'photolibd serve --tls' printed it (or OpenSSL's hexadecimal).")
            var expected: String?
            @Flag(name: .long, help: "Pin whatever certificate the server presents now (SSH's first-connection prompt, answered yes).")
            var trustOnFirstUse = false

            func validate() throws {
                if expected == nil && !trustOnFirstUse {
                    throw ValidationError("give the fingerprint 'photolibd serve --tls' printed (photolib tls pin SHA256:…), or --trust-on-first-use to pin what the server presents now")
                }
                if expected != nil && trustOnFirstUse {
                    throw ValidationError("give either a FINGERPRINT or --trust-on-first-use, not both")
                }
            }

            func run() async throws {
                let server = connection.resolvedServer
                let store = CredentialStore()
                let previous = try pin(for: server)
                let presented = try await fingerprint(of: server)
                if let expected {
                    let wanted: TLSFingerprint
                    do {
                        wanted = try TLSFingerprint(parsing: expected)
                    } catch {
                        throw CLIError(error.message)
                    }
                    guard wanted == presented else {
                        throw CLIError("\(server) presents \(presented), not \(wanted): nothing was pinned. Check that the fingerprint was copied from this server's 'photolibd serve' output; if it was, someone may be intercepting the connection")
                    }
                } else if let previous, previous != presented {
                    throw CLIError("\(previous) is pinned for \(server), but it now presents \(presented): not replaced on first use. If the server's certificate changed on purpose, pin the new one explicitly: photolib tls pin \(presented)")
                }
                do {
                    try store.pin(presented, for: server)
                } catch let error as PhotoLibError {
                    throw CLIError(error.message, code: error.code)
                }
                if connection.json {
                    struct PinJSON: Encodable {
                        var server: String
                        var pinned: String
                        var replaced: String?
                    }
                    try Output.json(PinJSON(server: server, pinned: presented.description, replaced: previous == presented ? nil : previous?.description))
                    return
                }
                print("pinned \(presented) for \(server) (in \(store.knownServersPath))")
                if let previous, previous != presented { print("replaced \(previous)") }
                if trustOnFirstUse {
                    print("compare it with the 'TLS fingerprint' line photolibd printed on the server; if they differ, run 'photolib tls forget' at once")
                }
            }
        }

        /// `photolib tls forget`.
        struct Forget: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Forget the fingerprint pinned for the server.")

            @OptionGroup var connection: ConnectionOptions

            func run() async throws {
                let server = connection.resolvedServer
                let removed: Bool
                do {
                    removed = try CredentialStore().forgetPin(for: server)
                } catch let error as PhotoLibError {
                    throw CLIError(error.message, code: error.code)
                }
                if connection.json {
                    struct ForgetJSON: Encodable {
                        var server: String
                        var removed: Bool
                    }
                    try Output.json(ForgetJSON(server: server, removed: removed))
                } else {
                    print(removed ? "forgot the pin for \(server)" : "no pin was kept for \(server)")
                }
            }
        }
    }
}

/// The fingerprint `server` presents, or a CLI error.
private func fingerprint(of server: String) async throws -> TLSFingerprint {
    do {
        return try await PhotoLibrary.serverFingerprint(of: server)
    } catch let error as PhotoLibError {
        throw CLIError(error.message, code: error.code)
    }
}

/// The pin kept for `server`, or a CLI error.
private func pin(for server: String) throws -> TLSFingerprint? {
    do {
        return try CredentialStore().pinnedFingerprint(for: server)
    } catch let error as PhotoLibError {
        throw CLIError(error.message, code: error.code)
    }
}
