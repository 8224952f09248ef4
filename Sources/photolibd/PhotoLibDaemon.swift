import ArgumentParser

/// `photolibd`: owns a photo library and serves it over the PhotoLib protocol.
@main
struct PhotoLibDaemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photolibd",
        abstract: "Serve a PhotoLib photo library over the network.",
        discussion: """
            A library is a directory: library.sqlite (metadata), originals/ (the imported files) \
            and owner.token (the owner's credential, mode 0600). A new or empty directory becomes \
            a new library.
            """,
        version: "0.1.0",
        subcommands: [Serve.self, Import.self, Stats.self, EditBase.self, Synthesize.self])
}
