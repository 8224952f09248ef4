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
        version: "0.1.0",
        subcommands: [
            Info.self, Albums.self, List.self, UploadCommand.self, Favorite.self, Hide.self, Delete.self, Restore.self,
            Purge.self, SetDate.self, SetLocation.self, Album.self, Folder.self, Apply.self, Show.self, Token.self, Changes.self, Watch.self,
            Edit.self, EditInput.self, Revert.self, FilterPreview.self, Auth.self, Clients.self, TLSPins.self,
        ] + ImageCommands.all)
}
