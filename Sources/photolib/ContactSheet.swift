import ArgumentParser
import Foundation
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib contact-sheet`: a grid picture of thumbnails.
    struct ContactSheet: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "contact-sheet",
            abstract: "Write a grid picture of the library's (or an album's) thumbnails.",
            discussion: "Thumbnails are fetched from the server (cell x cell, fit) and composed here.")

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "Only assets in this album or smart album: an ID from 'photolib albums', or a smart album's name (\(SmartAlbumName.shortNames)).")
        var album: String?

        @Option(name: .long, help: "Only assets matching this predicate, e.g. 'isFavorite == true AND pixelWidth > 3000' (see docs/PREDICATES.md).")
        var `where`: String?

        @Option(name: .long, help: "Thumbnails per row.")
        var columns: Int = 6

        @Option(name: .long, help: "Cell size in pixels (8…1024).")
        var cell: Int = 192

        @Option(name: .long, help: "At most N assets (default 200).")
        var limit: Int = 200

        @Option(name: .shortAndLong, help: "The JPEG file to write.")
        var output: String

        func validate() throws {
            guard (1...64).contains(columns) else { throw ValidationError("--columns must be within 1…64") }
            guard (8...1024).contains(cell) else { throw ValidationError("--cell must be within 8…1024 pixels") }
            guard (1...2000).contains(limit) else { throw ValidationError("--limit must be within 1…2000") }
        }

        func run() async throws {
            try FileOutput.check(output)
            let sheet = try await connection.withLibrary { library in
                let options = FetchOptions(predicate: `where`, fetchLimit: limit)
                let result = if let album { try await library.fetchAssets(in: SmartAlbumName.resolve(album), options: options) } else { try await library.fetchAssets(with: options) }
                let assets = try await result.allObjects()
                guard !assets.isEmpty else { throw CLIError("no assets to put on a contact sheet") }
                let manager = library.imageManager
                let options2 = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact)
                var thumbnails = [[UInt8]](repeating: [], count: assets.count)
                // A few requests in flight at once: the server renders in parallel.
                try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
                    var next = 0
                    func add() {
                        let index = next
                        next += 1
                        let identifier = assets[index].localIdentifier
                        group.addTask {
                            let image = try await manager.image(
                                forAssetIdentifier: identifier, targetSize: PixelSize(width: cell, height: cell), contentMode: .aspectFit, options: options2)
                            return (index, image.data)
                        }
                    }
                    for _ in 0..<min(4, assets.count) { add() }
                    while let (index, data) = try await group.next() {
                        thumbnails[index] = data
                        if next < assets.count { add() }
                    }
                }
                return try ContactSheetComposer.compose(thumbnails, columns: columns, cell: cell)
            }
            try FileOutput.write(sheet.jpeg, to: output)
            if connection.json {
                struct SheetJSON: Encodable {
                    var file: String
                    var width: Int
                    var height: Int
                    var bytes: Int
                }
                try Output.json(SheetJSON(file: output, width: sheet.width, height: sheet.height, bytes: sheet.jpeg.count))
            } else {
                print("wrote \(output): \(sheet.width)x\(sheet.height) contact sheet, \(sheet.jpeg.count) bytes")
            }
        }
    }
}
