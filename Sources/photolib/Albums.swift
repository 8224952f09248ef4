import ArgumentParser
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib albums`: smart albums and user albums with their counts.
    struct Albums: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the smart albums (All Photos first) and the user albums, with counts.")

        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            let collections = try await connection.withLibrary { library in
                try await library.fetchAssetCollections().allObjects()
            }
            if connection.json {
                struct AlbumJSON: Encodable {
                    var localIdentifier: String
                    var title: String
                    var type: String
                    var subtype: String
                    var count: Int
                }
                try Output.json(collections.map {
                    AlbumJSON(localIdentifier: $0.localIdentifier, title: $0.title, type: $0.type.name, subtype: $0.subtype.name, count: $0.estimatedAssetCount)
                })
            } else {
                Output.table(["ID", "TYPE", "COUNT", "TITLE"], collections.map {
                    [$0.localIdentifier, $0.type.name, String($0.estimatedAssetCount), $0.title]
                })
            }
        }
    }
}
