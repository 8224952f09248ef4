import ArgumentParser
import Foundation
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib resources`: an asset's files.
    struct Resources: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an asset's resources: type, original filename, size, type identifier, SHA-256.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The asset's identifier (from 'photolib ls').")
        var identifier: String

        func run() async throws {
            let resources = try await connection.withLibrary { library in
                try await AssetResourceManager(library: library).assetResources(for: identifier)
            }
            if connection.json {
                struct ResourceJSON: Encodable {
                    var type: String
                    var originalFilename: String
                    var size: Int
                    var uniformTypeIdentifier: String
                    var sha256: String
                }
                try Output.json(resources.map {
                    ResourceJSON(type: $0.type.name, originalFilename: $0.originalFilename, size: $0.size, uniformTypeIdentifier: $0.uniformTypeIdentifier, sha256: $0.sha256)
                })
            } else {
                Output.table(["TYPE", "FILENAME", "SIZE", "UTI", "SHA256"], resources.map {
                    [$0.type.name, $0.originalFilename, String($0.size), $0.uniformTypeIdentifier, $0.sha256]
                })
            }
        }
    }
}
