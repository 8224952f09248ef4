import ArgumentParser
import Foundation
import PhotoLibClient

extension AccessLevel: ExpressibleByArgument {
    /// `read-write` or `add-only`.
    public init?(argument: String) {
        guard let level = Self.allCases.first(where: { $0.name == argument }) else { return nil }
        self = level
    }

    /// What `--help` and errors list: the names, not the raw numbers.
    public static var allValueStrings: [String] { allCases.map(\.name) }

    /// What `--help` shows as a default.
    public var defaultValueDescription: String { name }

    /// What `--help` says of each value (by default keyed by the raw numbers, which printed
    /// each name with an empty description).
    public static var allValueDescriptions: [String: String] {
        [
            AccessLevel.readWrite.name: "browse, fetch and change the library (PhotoKit's .readWrite)",
            AccessLevel.addOnly.name: "upload new photos and videos only (PhotoKit's .addOnly)",
        ]
    }
}

/// The level an owner's decision is about: `--access` when given, else the level `client`
/// asked for (what `photolib clients approve CLIENT` must not widen).
private func decisionLevel(_ access: AccessLevel?, client: String, library: PhotoLibrary) async throws -> AccessLevel {
    if let access { return access }
    let clients: [ClientRecord]
    do {
        clients = try await library.clients()
    } catch let error as PhotoLibError where error.code == .permissionDenied {
        // Not "ListClients is for the library's owner only": the command is what was refused.
        throw CLIError("only the library's owner decides on clients (this connection's token is a client's)", code: .permissionDenied)
    }
    guard let record = clients.first(where: { $0.clientIdentifier == client }) else {
        throw CLIError("no client \(client) (photolib clients list)")
    }
    guard let level = record.requestedLevel else {
        throw CLIError("the library does not know which access \(client) asked for: pass --access read-write or --access add-only")
    }
    return level
}

extension PhotoLibCommand {
    /// `photolib auth`: this program as a client of the library (PhotoKit's requestAuthorization).
    struct Auth: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask the library's owner for access, and see what was decided.",
            subcommands: [Request.self, Status.self, AuthMore.self])

        /// `photolib auth request --name NAME --access read-write|add-only [--wait]`.
        struct Request: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Register as a client of the server and wait for the owner's decision; the token is printed once and stored.",
                discussion: "The token is stored in ~/.config/photolib/credentials (mode 0600) for $PHOTOLIB_SERVER, so later commands use it without PHOTOLIB_TOKEN. Over TLS with a pin (--fingerprint, PHOTOLIB_FINGERPRINT), the pin is stored for the server too (as 'photolib tls pin' does), so later commands use TLS with it.")

            @OptionGroup var connection: ConnectionOptions
            @Option(name: .long, help: "The name the owner sees, e.g. 'Kitchen frame'.") var name: String
            @Option(name: .long, help: "read-write or add-only.") var access: AccessLevel
            @Flag(name: .long, help: "Wait until the owner decides (at most --timeout seconds).") var wait = false
            @Option(name: .long, help: "Seconds to wait with --wait.") var timeout: Double = 600

            func run() async throws {
                let server = connection.resolvedServer
                let grant: ClientGrant
                let pinned: TLSFingerprint?
                do {
                    let configuration = try connection.clientConfiguration()
                    grant = try await PhotoLibrary.requestAuthorization(
                        for: access, name: name, server: server, configuration: configuration)
                    // A pin given for this command (PHOTOLIB_FINGERPRINT, --fingerprint) is kept
                    // with the token: later commands then use TLS before sending it.
                    pinned = try CredentialStore().save(grant, for: server, verifiedBy: configuration.tls)
                } catch let error as PhotoLibError {
                    throw CLIError(error.message, code: error.code)
                }
                var status = grant.status
                if wait && status == .notDetermined {
                    if !connection.json {
                        print("client \(grant.clientIdentifier): waiting for the owner's decision (photolib clients approve \(grant.clientIdentifier))")
                        fflush(nil)
                    }
                    do {
                        let library = try await PhotoLibrary.connect(
                            to: server, token: grant.token, clientName: name, configuration: try connection.clientConfiguration())
                        defer { library.close() }
                        status = try await library.authorizationStatus(for: access, waitingForDecision: true, timeout: timeout)
                    } catch let error as PhotoLibError {
                        throw CLIError(error.message, code: error.code)
                    }
                }
                if connection.json {
                    struct GrantJSON: Encodable {
                        var clientIdentifier: String
                        var status: String
                        var accessLevel: String
                        var token: String
                        var pinnedFingerprint: String?
                    }
                    try Output.json(GrantJSON(
                        clientIdentifier: grant.clientIdentifier, status: status.name, accessLevel: access.name, token: grant.token,
                        pinnedFingerprint: pinned?.description))
                } else {
                    print("client  \(grant.clientIdentifier)")
                    print("access  \(access.name): \(status.name)")
                    print("token   \(grant.token)   (shown once; stored in \(CredentialStore.defaultPath))")
                    if let pinned { print("tls     \(pinned) pinned for \(server) (in \(CredentialStore().knownServersPath))") }
                }
                // Access that cannot be had exits non-zero (PhotoKit's .restricted: the server's
                // policy refuses that level; .denied: the owner said no).
                switch status {
                case .restricted:
                    throw CLIError("the server refuses \(access.name) access by policy (restricted): no owner's decision can grant it", code: .permissionDenied)
                case .denied:
                    throw CLIError("the library's owner denied \(access.name) access", code: .permissionDenied)
                default:
                    break
                }
            }
        }

        /// `photolib auth status`.
        struct Status: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "This client's status for each access level.")

            @OptionGroup var connection: ConnectionOptions

            func run() async throws {
                let (readWrite, addOnly, isOwner) = try await connection.withLibrary { library in
                    (try await library.authorizationStatus(for: .readWrite), try await library.authorizationStatus(for: .addOnly), library.isOwner)
                }
                if connection.json {
                    struct StatusJSON: Encodable {
                        var owner: Bool
                        var readWrite: String
                        var addOnly: String
                    }
                    try Output.json(StatusJSON(owner: isOwner, readWrite: readWrite.name, addOnly: addOnly.name))
                } else {
                    if isOwner { print("the library's owner") }
                    print("read-write  \(readWrite.name)")
                    print("add-only    \(addOnly.name)")
                }
            }
        }
    }

    /// `photolib auth more`: a limited client asks for more assets (PhotoKit's
    /// presentLimitedLibraryPicker) and prints the ones the owner adds.
    struct AuthMore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "more",
            abstract: "Ask the owner for more photos (a client with limited access); prints the newly selected identifiers.",
            discussion: "Waits until the owner answers (photolib clients answer REQUEST --pick ID…), at most --timeout seconds.")
        @OptionGroup var connection: ConnectionOptions
        @Option(name: .long, help: "Seconds to wait for the owner.") var timeout: Double = 600

        func run() async throws {
            let added = try await connection.withLibrary { try await $0.presentLimitedLibraryPicker(timeout: timeout) }
            if connection.json {
                try Output.json(["newlySelectedIdentifiers": added])
            } else if added.isEmpty {
                print("the owner added nothing")
            } else {
                for identifier in added { print(identifier) }
            }
        }
    }

    /// `photolib clients`: the owner's view of the library's clients, and decisions.
    struct Clients: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the library's clients (owner only), and approve, deny or revoke them.",
            subcommands: [ListClients.self, Approve.self, Limit.self, Select.self, Deny.self, Revoke.self, Pending.self, Answer.self, Policy.self, Log.self],
            defaultSubcommand: ListClients.self)

        /// `photolib clients list`.
        struct ListClients: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "Every client, with its status per access level.")
            @OptionGroup var connection: ConnectionOptions

            func run() async throws {
                let clients = try await connection.withLibrary { try await $0.clients() }
                if connection.json {
                    struct ClientJSON: Encodable {
                        var clientIdentifier: String
                        var name: String
                        var readWrite: String
                        var addOnly: String
                        var revoked: Bool
                        var requestedAt: Date
                        var selectedAssetCount: Int
                        var requested: String?
                    }
                    try Output.json(clients.map {
                        ClientJSON(
                            clientIdentifier: $0.clientIdentifier, name: $0.name, readWrite: $0.readWrite.name, addOnly: $0.addOnly.name, revoked: $0.isRevoked,
                            requestedAt: $0.requestedAt, selectedAssetCount: $0.selectedAssetCount, requested: $0.requestedLevel?.name)
                    })
                } else if clients.isEmpty {
                    print("no clients")
                } else {
                    for client in clients {
                        let selection = client.isLimited ? " (\(client.selectedAssetCount) selected)" : ""
                        let asked = client.requestedLevel.map { "  asked for \($0.name)" } ?? ""
                        print("\(client.clientIdentifier)  \(client.name)  read-write: \(client.readWrite.name)\(selection)  add-only: \(client.addOnly.name)\(asked)\(client.isRevoked ? "  (revoked)" : "")")
                    }
                }
            }
        }

        /// `photolib clients approve CLIENT [--access …]`.
        struct Approve: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Authorize a client for an access level.")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "The client's identifier (photolib clients).") var client: String
            @Option(name: .long, help: "read-write or add-only (default: the access the client asked for).") var access: AccessLevel?

            func run() async throws {
                let level = try await connection.withLibrary { library in
                    let level = try await decisionLevel(access, client: client, library: library)
                    try await library.setAuthorization(.authorized, for: level, client: client)
                    return level
                }
                if !connection.json { print("\(client): \(level.name) authorized") }
            }
        }

        /// `photolib clients limit CLIENT ID…`.
        struct Limit: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Give a client read-write access to these assets only (replaces its selection); it sees nothing else.")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "The client's identifier.") var client: String
            @Argument(help: "The assets it may see (photolib ls).") var assets: [String] = []

            func run() async throws {
                try await connection.withLibrary { try await $0.limit(client: client, to: assets) }
                if !connection.json { print("\(client): limited to \(assets.count) asset\(assets.count == 1 ? "" : "s")") }
            }
        }

        /// `photolib clients select CLIENT --add ID… --remove ID…`.
        struct Select: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Add assets to or remove them from a limited client's selection; its open watches see them come and go.")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "The client's identifier.") var client: String
            @Option(name: .long, parsing: .upToNextOption, help: "Assets to add.") var add: [String] = []
            @Option(name: .long, parsing: .upToNextOption, help: "Assets to remove.") var remove: [String] = []

            func validate() throws {
                guard !add.isEmpty || !remove.isEmpty else { throw ValidationError("pass --add ID… and/or --remove ID…") }
            }

            func run() async throws {
                try await connection.withLibrary { try await $0.editSelection(client: client, adding: add, removing: remove) }
                if !connection.json { print("\(client): \(add.count) added, \(remove.count) removed") }
            }
        }

        /// `photolib clients deny CLIENT [--access …]`.
        struct Deny: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Deny a client an access level (its open connections end at once).")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "The client's identifier.") var client: String
            @Option(name: .long, help: "read-write or add-only (default: the access the client asked for).") var access: AccessLevel?

            func run() async throws {
                let level = try await connection.withLibrary { library in
                    let level = try await decisionLevel(access, client: client, library: library)
                    try await library.setAuthorization(.denied, for: level, client: client)
                    return level
                }
                if !connection.json { print("\(client): \(level.name) denied") }
            }
        }

        /// `photolib clients revoke CLIENT`.
        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Revoke a client: every level denied, its token void, its connections ended.")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "The client's identifier.") var client: String

            func run() async throws {
                try await connection.withLibrary { try await $0.revoke(client: client) }
                if !connection.json { print("\(client): revoked") }
            }
        }

        /// `photolib clients pending`.
        struct Pending: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "What clients wait for: access decisions and changes to confirm.")
            @OptionGroup var connection: ConnectionOptions

            func run() async throws {
                let requests = try await connection.withLibrary { try await $0.pendingRequests() }
                if connection.json {
                    struct RequestJSON: Encodable {
                        var request: String
                        var clientIdentifier: String
                        var clientName: String
                        var kind: String
                        var summary: String
                    }
                    try Output.json(requests.map {
                        RequestJSON(request: $0.requestIdentifier, clientIdentifier: $0.clientIdentifier, clientName: $0.clientName,
                                    kind: Self.kindName($0.kind), summary: $0.summary)
                    })
                } else if requests.isEmpty {
                    print("nothing waits")
                } else {
                    for request in requests { print("\(request.requestIdentifier)  \(request.clientName)  \(request.summary)") }
                }
            }

            static func kindName(_ kind: PendingRequest.Kind) -> String {
                switch kind {
                case .authorization: return "authorization"
                case .editConfirmation: return "edit-confirmation"
                case .limitedPicker: return "more-assets"
                }
            }
        }

        /// `photolib clients answer REQUEST --confirm|--decline|--pick ID…`.
        struct Answer: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Confirm or decline a client's changes, or answer a limited client's request for more assets with --pick.")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "The request (photolib clients pending).") var request: String
            @Flag(name: .long, help: "Let the changes be applied.") var confirm = false
            @Flag(name: .long, help: "Refuse them: nothing is applied.") var decline = false
            @Option(name: .long, parsing: .upToNextOption, help: "The assets a limited client asked for more gets (none: nothing).") var pick: [String] = []
            @Flag(name: .long, help: "Answer a request for more assets with none.") var pickNone = false

            func validate() throws {
                let picking = !pick.isEmpty || pickNone
                guard [confirm, decline, picking].filter({ $0 }).count == 1 else {
                    throw ValidationError("pass exactly one of --confirm, --decline (changes) and --pick ID… / --pick-none (more assets)")
                }
                // A request for more assets (`more-…`) is answered with picks; a change with a
                // decision (--confirm on a request for more assets picked nothing, and said
                // "confirmed").
                if request.hasPrefix("more-") && !picking {
                    throw ValidationError("\(request) asks for more assets: answer it with --pick ID… or --pick-none")
                }
                if !request.hasPrefix("more-") && picking {
                    throw ValidationError("\(request) is not a request for more assets: answer it with --confirm or --decline")
                }
            }

            func run() async throws {
                if !pick.isEmpty || pickNone {
                    try await connection.withLibrary { try await $0.answer(request, picking: pick) }
                    if !connection.json { print("\(request): \(pick.count) asset\(pick.count == 1 ? "" : "s") picked") }
                    return
                }
                try await connection.withLibrary { try await $0.answer(request, confirm: confirm) }
                if !connection.json { print("\(request): \(confirm ? "confirmed" : "declined")") }
            }
        }

        /// `photolib clients policy CLIENT --confirm-edits on|off`.
        struct Policy: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Whether a client's changes wait for your confirmation.")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "The client's identifier.") var client: String
            @Option(name: .long, help: "on or off.") var confirmEdits: String

            func validate() throws {
                guard confirmEdits == "on" || confirmEdits == "off" else { throw ValidationError("--confirm-edits takes on or off") }
            }

            func run() async throws {
                try await connection.withLibrary { try await $0.setConfirmsEdits(confirmEdits == "on", client: client) }
                if !connection.json { print("\(client): changes \(confirmEdits == "on" ? "wait for your confirmation" : "apply without confirmation")") }
            }
        }

        /// `photolib clients log`.
        struct Log: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "The audit log: every request, decision and refused call.")
            @OptionGroup var connection: ConnectionOptions
            @Option(name: .long, help: "The newest this many entries.") var limit: Int = 100

            func run() async throws {
                let entries = try await connection.withLibrary { try await $0.auditLog(limit: limit) }
                if connection.json {
                    struct EntryJSON: Encodable {
                        var date: Date
                        var clientIdentifier: String
                        var event: String
                        var detail: String
                    }
                    try Output.json(entries.map { EntryJSON(date: $0.date, clientIdentifier: $0.clientIdentifier, event: $0.event, detail: $0.detail) })
                } else {
                    for entry in entries { print("\(Output.date(entry.date))  \(entry.clientIdentifier)  \(entry.event)  \(entry.detail)") }
                }
            }
        }
    }
}
