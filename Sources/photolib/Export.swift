import ArgumentParser
import Foundation
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib export`: a resource's exact bytes to a file, resumable.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write an asset's resource (the original photo by default) to a file, byte for byte.",
            discussion: """
                Bytes go to FILE.partial first; an interrupted export resumes from there when run again. \
                The finished file's SHA-256 is checked against the library's before it is renamed to FILE.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The asset's identifier (from 'photolib ls').")
        var identifier: String

        @Option(name: .long, help: "Resource type: photo, fullSizePhoto, adjustmentData, adjustmentBasePhoto, video, pairedVideo… (default: the original, photo or video)")
        var resource: String?

        @Option(name: .shortAndLong, help: "The file to write.")
        var output: String

        func validate() throws {
            guard resource.map({ AssetResourceType(name: $0) != nil }) ?? true else {
                throw ValidationError("--resource must be one of \(AssetResourceType.allCases.map(\.name).joined(separator: ", "))")
            }
        }

        func run() async throws {
            let bar = Output.stderrIsTerminal && !connection.json ? ProgressBar(label: "exporting") : nil
            let resumedFrom = ((try? FileManager.default.attributesOfItem(atPath: output + ".partial")[.size]) as? Int) ?? 0
            let written = try await connection.withLibrary(bulk: true) { library in
                // No --resource: the original, the photo of an image (or Live Photo), the video of a video.
                try await AssetResourceManager(library: library).writeData(
                    for: identifier, type: resource.flatMap(AssetResourceType.init(name:)), toFile: output
                ) { done, total in
                    bar?.update(done, of: total)
                }
            }
            let type = written.type
            bar?.finish()
            if connection.json {
                struct ExportJSON: Encodable {
                    var localIdentifier: String
                    var file: String
                    var type: String
                    var bytes: Int
                    var sha256: String
                    var resumedFrom: Int
                }
                try Output.json(ExportJSON(localIdentifier: identifier, file: output, type: type.name, bytes: written.size, sha256: written.sha256, resumedFrom: resumedFrom))
            } else {
                print("wrote \(output): \(written.size) bytes (\(written.originalFilename), sha256 \(written.sha256))\(resumedFrom > 0 ? ", resumed at byte \(resumedFrom)" : "")")
            }
        }
    }
}
