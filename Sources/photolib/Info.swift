import ArgumentParser
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib info`: the library's identity and counts.
    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the library's identifier, server and counts.")

        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            let info = try await connection.withLibrary { try await $0.libraryInfo() }
            if connection.json {
                struct InfoJSON: Encodable {
                    var libraryIdentifier: String
                    var serverName: String
                    var assetCount: Int
                    var albumCount: Int
                }
                try Output.json(InfoJSON(libraryIdentifier: info.libraryIdentifier, serverName: info.serverName, assetCount: info.assetCount, albumCount: info.albumCount))
            } else {
                print("library  \(info.libraryIdentifier)")
                print("server   \(info.serverName)")
                print("assets   \(info.assetCount)")
                print("albums   \(info.albumCount)")
            }
        }
    }
}
