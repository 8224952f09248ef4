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
            and then prints one JSON document on stdout with PhotoKit's names. \
            photolib --version prints the program's version.

            TLS (needed beyond loopback, where photolib warns that the token would travel in plain \
            text): --fingerprint SHA256:… (or PHOTOLIB_FINGERPRINT, or a pin stored by 'photolib tls \
            pin') for the self-signed certificate 'photolibd serve --tls' prints; --tls for a \
            certificate an authority signed. An authority this machine does not trust (a private \
            CA) is trusted by adding its certificate to the system trust store \
            (/usr/local/share/ca-certificates, then update-ca-certificates) or with \
            SSL_CERT_FILE=CA.pem (OpenSSL's variable: a PEM file of trusted authorities, read in place of the system's bundle).
            """,
        subcommands: [
            Info.self, Albums.self, List.self, UploadCommand.self, Favorite.self, Hide.self, Delete.self, Restore.self,
            Purge.self, SetDate.self, SetLocation.self, Album.self, Folder.self, Apply.self, Show.self, Token.self, Changes.self, Watch.self,
            Edit.self, EditInput.self, Revert.self, FilterPreview.self, Auth.self, Clients.self, TLSPins.self,
        ] + ImageCommands.all)

    /// The program's version, as `photolib --version` prints it.
    static let version = "0.1.0"

    /// `photolib --version` alone prints the version; everything else is parsed as usual.
    /// Not the configuration's `version`, which gives every subcommand a `--version` flag
    /// (`get --help` listed it beside get's own `--version`, the image version), nor a flag of
    /// this command, which ArgumentParser also matches after a subcommand's name (`get ID
    /// --version original` failed: the flag took `--version` and left `original`).
    static func main() async {
        if Array(CommandLine.arguments.dropFirst()) == ["--version"] {
            print(version)
            return
        }
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
