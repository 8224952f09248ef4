import ArgumentParser
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib albums`: smart albums and user albums with their counts.
    struct Albums: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the smart albums (All Photos first), the user albums and the folders, with counts.")

        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            let (collections, folders) = try await connection.withLibrary { library in
                (try await library.fetchAssetCollections().allObjects(), try await library.fetchCollectionLists().allObjects())
            }
            if connection.json {
                struct AlbumJSON: Encodable {
                    var localIdentifier: String
                    var title: String
                    var type: String
                    var subtype: String
                    var count: Int
                    var folder: String?
                }
                struct FolderJSON: Encodable {
                    var localIdentifier: String
                    var title: String
                    var type = "folder"
                    var count: Int
                    var folder: String?
                }
                enum Row: Encodable {
                    case album(AlbumJSON)
                    case folder(FolderJSON)
                    func encode(to encoder: any Encoder) throws {
                        switch self {
                        case .album(let a): try a.encode(to: encoder)
                        case .folder(let f): try f.encode(to: encoder)
                        }
                    }
                }
                try Output.json(collections.map {
                    Row.album(AlbumJSON(localIdentifier: $0.localIdentifier, title: $0.title, type: $0.type.name, subtype: $0.subtype.name, count: $0.estimatedAssetCount, folder: $0.parentFolderIdentifier))
                } + folders.map {
                    Row.folder(FolderJSON(localIdentifier: $0.localIdentifier, title: $0.title, count: $0.childCount, folder: $0.parentFolderIdentifier))
                })
            } else {
                let titles = Dictionary(folders.map { ($0.localIdentifier, $0.title) }, uniquingKeysWith: { first, _ in first })
                func place(_ parent: String?) -> String { parent.flatMap { titles[$0] } ?? "" }
                Output.table(["ID", "TYPE", "COUNT", "TITLE", "FOLDER"], collections.map {
                    [$0.localIdentifier, $0.type.name, String($0.estimatedAssetCount), $0.title, place($0.parentFolderIdentifier)]
                } + folders.map {
                    [$0.localIdentifier, "folder", String($0.childCount), $0.title, place($0.parentFolderIdentifier)]
                })
            }
        }
    }
}
