import ArgumentParser
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib ls`: assets of the library or of an album.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "List assets, oldest first unless sorted otherwise.")

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "Only assets in this album or smart album: an ID from 'photolib albums', or a smart album's name (\(SmartAlbumName.shortNames)).")
        var album: String?

        @Option(name: .long, help: "A predicate, e.g. 'mediaType == image AND isFavorite == true' (see docs/PREDICATES.md).")
        var `where`: String?

        @Option(name: .long, help: "Sort by KEY[:asc|desc][,KEY…]: creationDate, modificationDate, pixelWidth, pixelHeight, duration, isFavorite, isHidden, mediaType, localIdentifier.")
        var sort: String?

        @Flag(name: .long, help: "Include hidden assets.")
        var includeHidden = false

        @Option(name: .long, help: "At most N assets.")
        var limit: Int?

        private func sortDescriptors() throws(PhotoLibError) -> [AssetSortDescriptor] {
            guard let sort else { return [] }
            var descriptors: [AssetSortDescriptor] = []
            for part in sort.split(separator: ",") { descriptors.append(try AssetSortDescriptor(parsing: String(part))) }
            return descriptors
        }

        func validate() throws {
            if let limit, limit <= 0 { throw ValidationError("--limit must be a positive number") }
            do { _ = try sortDescriptors() } catch { throw ValidationError(error.message) }
        }

        func run() async throws {
            let options = FetchOptions(predicate: `where`, sortDescriptors: try sortDescriptors(), fetchLimit: limit ?? 0, includeHiddenAssets: includeHidden)
            let assets = try await connection.withLibrary { library in
                if let album {
                    return try await library.fetchAssets(in: SmartAlbumName.resolve(album), options: options).allObjects()
                }
                return try await library.fetchAssets(with: options).allObjects()
            }
            if connection.json {
                try Output.json(assets.map(AssetJSON.init))
            } else {
                Output.table(["ID", "TYPE", "SIZE", "CREATED", "FAVORITE", "HIDDEN", "KIND"], assets.map {
                    [$0.localIdentifier, $0.mediaType.name, "\($0.pixelWidth)x\($0.pixelHeight)", Output.date($0.creationDate), $0.isFavorite ? "yes" : "-", $0.isHidden ? "yes" : "-",
                     Output.kind($0)]
                })
            }
        }
    }
}
