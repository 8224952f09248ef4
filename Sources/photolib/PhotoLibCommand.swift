import ArgumentParser

/// `photolib`: a command-line client of a remote PhotoLib library.
@main
struct PhotoLibCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photolib",
        abstract: "Browse and fetch photos from a photolibd server.",
        discussion: """
            Connection: --server HOST:PORT (or PHOTOLIB_SERVER; default 127.0.0.1:7800) and \
            --token TOKEN (or PHOTOLIB_TOKEN, or --token-file FILE). Every command takes --json \
            and then prints one JSON document on stdout with PhotoKit's names.
            """,
        subcommands: [
            Info.self, Albums.self, List.self, UploadCommand.self, Favorite.self, Hide.self, Delete.self, Restore.self,
            Purge.self, SetDate.self, SetLocation.self, Album.self, Folder.self, Apply.self, Show.self, Token.self, Changes.self, Watch.self,
            Edit.self, EditInput.self, Revert.self, FilterPreview.self, Auth.self, Clients.self, TLSPins.self,
        ] + ImageCommands.all)

    /// The program's version, as `photolib --version` prints it.
    static let version = "0.1.0"

    /// `photolib --version`. Declared here rather than as the configuration's `version`,
    /// which would give every subcommand a `--version` flag too: `get` has its own
    /// `--version` option (PhotoKit's image version), and its help listed both.
    @Flag(name: .long, help: "Show the version.") var version = false

    func run() async throws {
        guard version else { throw CleanExit.helpRequest(self) }
        print(Self.version)
    }
}
