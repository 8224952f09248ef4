import ArgumentParser
import Foundation
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib show ID`: everything about one asset.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show an asset: all metadata, its resources and the albums holding it.")

        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Asset identifier.") var identifier: String

        func run() async throws {
            let (asset, isDeleted, albums, resources) = try await connection.withLibrary { library in
                let (asset, isDeleted) = try await Self.asset(identifier, in: library)
                let albums = try await library.fetchAssetCollectionsContaining(identifier).allObjects()
                let resources = try await AssetResourceManager(library: library).assetResources(for: identifier)
                return (asset, isDeleted, albums, resources)
            }
            if connection.json {
                struct AlbumRef: Encodable {
                    var localIdentifier: String
                    var title: String
                }
                struct ResourceRef: Encodable {
                    var type: String
                    var originalFilename: String
                    var uniformTypeIdentifier: String
                    var size: Int
                }
                struct ShowJSON: Encodable {
                    var asset: AssetJSON
                    var isInRecentlyDeleted: Bool
                    var hasAdjustments: Bool
                    var burstIdentifier: String?
                    var albums: [AlbumRef]
                    var resources: [ResourceRef]
                }
                try Output.json(ShowJSON(
                    asset: AssetJSON(asset), isInRecentlyDeleted: isDeleted, hasAdjustments: asset.hasAdjustments, burstIdentifier: asset.burstIdentifier,
                    albums: albums.map { AlbumRef(localIdentifier: $0.localIdentifier, title: $0.title) },
                    resources: resources.map { ResourceRef(type: $0.type.name, originalFilename: $0.originalFilename, uniformTypeIdentifier: $0.uniformTypeIdentifier, size: $0.size) }))
            } else {
                let rows: [(String, String)] = [
                    ("localIdentifier", asset.localIdentifier),
                    ("mediaType", asset.mediaType.name),
                    ("mediaSubtypes", asset.mediaSubtypes.isEmpty ? "-" : asset.mediaSubtypes.names.joined(separator: ", ")),
                    ("pixelSize", "\(asset.pixelWidth)x\(asset.pixelHeight)"),
                    ("creationDate", Output.date(asset.creationDate)),
                    ("modificationDate", Output.date(asset.modificationDate)),
                    ("isFavorite", asset.isFavorite ? "yes" : "no"),
                    ("isHidden", asset.isHidden ? "yes" : "no"),
                    ("duration", asset.mediaType == .video ? "\(Output.duration(asset.duration)) (\(asset.duration) s)" : "-"),
                    ("burstIdentifier", asset.burstIdentifier ?? "-"),
                    ("location", asset.location.map { Self.coordinates($0) } ?? "-"),
                    ("hasAdjustments", asset.hasAdjustments ? "yes" : "no"),
                    ("recentlyDeleted", isDeleted ? "yes (photolib restore \(asset.localIdentifier) brings it back)" : "no"),
                ]
                for (key, value) in rows { print(key.padding(toLength: 17, withPad: " ", startingAt: 0) + value) }
                print("resources")
                for resource in resources { print("  \(resource.type.name)  \(resource.originalFilename)  \(resource.size) bytes  \(resource.uniformTypeIdentifier)") }
                print("albums")
                for album in albums { print("  \(album.localIdentifier)  \(album.title)") }
            }
        }

        /// The asset, and whether it is in Recently Deleted: a deleted asset is not in a plain
        /// fetch (as in PhotoKit), but `ls --album` of Recently Deleted lists it and `get`
        /// still renders it, so `show` finds it there too.
        static func asset(_ identifier: String, in library: PhotoLibrary) async throws -> (Asset, Bool) {
            let options = FetchOptions(includeHiddenAssets: true)
            if let asset = try await library.fetchAssets(withLocalIdentifiers: [identifier], options: options).firstObject {
                return (asset, false)
            }
            guard let asset = try await RecentlyDeleted.assets([identifier], in: library)[identifier] else {
                throw CLIError("no asset has the identifier \(identifier)", code: .notFound)
            }
            return (asset, true)
        }

        /// `LAT,LON [ALTm]` to six decimals (about 0.1 m), trailing zeros dropped: a value
        /// read from EXIF degrees, minutes and seconds is not printed as 52.519999999999996.
        static func coordinates(_ location: Location) -> String {
            func decimal(_ value: Double) -> String {
                var text = String(format: "%.6f", value)
                while text.hasSuffix("0") { text.removeLast() }
                if text.hasSuffix(".") { text.removeLast() }
                return text == "-0" ? "0" : text
            }
            return "\(decimal(location.latitude)),\(decimal(location.longitude))" + (location.altitude.map { " \(decimal($0))m" } ?? "")
        }
    }
}
