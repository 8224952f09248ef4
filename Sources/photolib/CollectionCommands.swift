import ArgumentParser
import Foundation
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib album …`: user albums.
    struct Album: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create, rename, fill, reorder and delete user albums.",
            subcommands: [Create.self, Rename.self, Add.self, Insert.self, Remove.self, Move.self, Delete.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Create an album, optionally in a folder.")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "Title.") var title: String
            @Option(name: .customLong("in"), help: "Folder identifier.") var folder: String?

            func run() async throws {
                try await connection.create("album", title: title) { $0.createAlbum(title: title, in: folder) }
            }
        }

        struct Rename: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Rename an album.")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "Album identifier.") var album: String
            @Argument(help: "New title.") var title: String

            func validate() throws { try CollectionKind.album.check(album, command: "rename") }

            func run() async throws {
                try await connection.apply("album rename", identifiers: [album]) { $0.rename(album, to: title) }
            }
        }

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Append assets to an album (ones already there keep their place).")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "Album identifier.") var album: String
            @Argument(help: "Asset identifiers.") var assets: [String]

            func run() async throws {
                try await connection.apply("album add", identifiers: assets) { $0.addAssets(assets, to: album) }
            }
        }

        struct Insert: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Insert assets into an album at an index (0 = first).")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "Album identifier.") var album: String
            @Argument(help: "Index.") var index: Int
            @Argument(help: "Asset identifiers.") var assets: [String]

            func validate() throws { if index < 0 { throw ValidationError("INDEX must not be negative") } }

            func run() async throws {
                try await connection.apply("album insert", identifiers: assets) { $0.insertAssets(assets, in: album, at: index) }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove assets from an album (they stay in the library).")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "Album identifier.") var album: String
            @Argument(help: "Asset identifiers.") var assets: [String]

            func run() async throws {
                try await connection.apply("album remove", identifiers: assets) { $0.removeAssets(assets, from: album) }
            }
        }

        struct Move: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Move the assets at indexes --from I[,J…] to index --to K.")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "Album identifier.") var album: String
            @Option(name: .long, help: "Indexes before the move, comma-separated.") var from: String
            @Option(name: .long, help: "Index after the move.") var to: Int

            private var indexes: [Int]? {
                let parts = from.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
                return parts.contains(nil) || parts.isEmpty ? nil : parts.compactMap { $0 }
            }

            func validate() throws {
                guard let indexes, indexes.allSatisfy({ $0 >= 0 }), to >= 0 else { throw ValidationError("--from takes indexes like 0,3,4 and --to an index, none negative") }
            }

            func run() async throws {
                let indexes = indexes ?? []
                let count = indexes.count
                try await connection.apply("album move", identifiers: [album], described: "\(count) \(count == 1 ? "asset" : "assets") in \(album)") {
                    $0.moveAssets(in: album, at: indexes, to: to)
                }
            }
        }

        struct Delete: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Delete an album (its assets stay in the library).")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "Album identifier.") var album: String

            func validate() throws { try CollectionKind.album.check(album, command: "delete") }

            func run() async throws {
                try await connection.apply("album delete", identifiers: [album]) { $0.deleteCollections([album]) }
            }
        }
    }

    /// `photolib folder …`: folders of albums.
    struct Folder: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create, rename and delete folders (collection lists).",
            subcommands: [Create.self, Rename.self, Delete.self, Move.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Create a folder, optionally in another folder.")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "Title.") var title: String
            @Option(name: .customLong("in"), help: "Parent folder identifier.") var folder: String?

            func run() async throws {
                try await connection.create("folder", title: title) { $0.createFolder(title: title, in: folder) }
            }
        }

        struct Rename: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Rename a folder.")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "Folder identifier.") var folder: String
            @Argument(help: "New title.") var title: String

            func validate() throws { try CollectionKind.folder.check(folder, command: "rename") }

            func run() async throws {
                try await connection.apply("folder rename", identifiers: [folder]) { $0.rename(folder, to: title) }
            }
        }

        struct Delete: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Delete a folder (what it holds moves to its parent).")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "Folder identifier.") var folder: String

            func validate() throws { try CollectionKind.folder.check(folder, command: "delete") }

            func run() async throws {
                try await connection.apply("folder delete", identifiers: [folder]) { $0.deleteCollections([folder]) }
            }
        }

        struct Move: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Move albums or folders into a folder (--to-top-level for the top).")
            @OptionGroup var connection: ConnectionOptions
            @Argument(help: "Album or folder identifiers.") var collections: [String]
            @Option(name: .long, help: "Destination folder.") var to: String?
            @Flag(name: .long, help: "Move to the top level.") var toTopLevel = false

            func validate() throws { guard (to != nil) != toTopLevel else { throw ValidationError("give either --to FOLDER or --to-top-level") } }

            func run() async throws {
                try await connection.apply("folder move", identifiers: collections) { $0.moveCollections(collections, to: to) }
            }
        }
    }
}

extension ConnectionOptions {
    /// Creates one album or folder and prints its identifier.
    func create(_ kind: String, title: String, _ build: @escaping (ChangeBatch) -> ObjectPlaceholder) async throws {
        var placeholder: ObjectPlaceholder?
        let result = try await withLibrary { library in
            try await changeWithUnknownOutcome("the new \(kind) \"\(title)\"", check: "look for it (photolib albums)") {
                try await library.performChanges { placeholder = build($0) }
            }
        }
        let identifier = placeholder.flatMap { result.localIdentifier(for: $0) } ?? ""
        if json {
            struct Created: Encodable {
                var localIdentifier: String
                var title: String
                var type: String
                var changeToken: String
            }
            try Output.json(Created(localIdentifier: identifier, title: title, type: kind, changeToken: result.changeToken))
        } else {
            print("created \(kind) \(identifier) \"\(title)\"")
        }
    }
}

/// Which kind of collection an `album …` or `folder …` command works on: the server's
/// `delete_collections` and `rename` take either, so `folder delete ALBUM` deleted the album.
enum CollectionKind {
    case album, folder

    /// Refuses `identifier` when it names the other kind (by its local identifier's suffix:
    /// folders end in `/L0/020`).
    func check(_ identifier: String, command: String) throws {
        let isFolder = identifier.hasSuffix(LocalIdentifier.folderSuffix)
        switch self {
        case .album where isFolder:
            throw ValidationError("\(identifier) is a folder, not an album: use photolib folder \(command)")
        case .folder where !isFolder:
            throw ValidationError("\(identifier) is not a folder (folder identifiers end in \(LocalIdentifier.folderSuffix)): for an album, use photolib album \(command)")
        default:
            break
        }
    }
}
