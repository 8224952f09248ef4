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
                Every export checks that each chunk continues the file exactly and that the file ends up \
                exactly the resource's size before it is renamed to FILE. The whole file's SHA-256 is \
                checked against the one the library recorded when the export resumed a FILE.partial, \
                and with --verify (which also catches a library file damaged on the server; hashing \
                costs about 0.15 s of CPU per 230 MB).
                """)

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The asset's identifier (from 'photolib ls').")
        var identifier: String

        @Option(name: .long, help: "Resource type: photo, fullSizePhoto, adjustmentData, adjustmentBasePhoto, video, pairedVideo… (default: the original, photo or video)")
        var resource: String?

        @Option(name: .shortAndLong, help: "The file to write.")
        var output: String

        @Flag(name: .long, help: "Check the whole file's SHA-256 against the library's even when nothing is resumed.")
        var verify = false

        func validate() throws {
            guard resource.map({ AssetResourceType(name: $0) != nil }) ?? true else {
                throw ValidationError("--resource must be one of \(AssetResourceType.allCases.map(\.name).joined(separator: ", "))")
            }
        }

        func run() async throws {
            let bar = Output.stderrIsTerminal && !connection.json ? ProgressBar(label: "exporting") : nil
            let partialSize = ((try? FileManager.default.attributesOfItem(atPath: output + ".partial")[.size]) as? Int) ?? 0
            let written = try await connection.withLibrary(bulk: true) { library in
                // No --resource: the original, the photo of an image (or Live Photo), the video of a video.
                try await AssetResourceManager(library: library).writeData(
                    for: identifier, type: resource.flatMap(AssetResourceType.init(name:)), toFile: output, verify: verify
                ) { done, total in
                    bar?.update(done, of: total)
                }
            }
            let type = written.type
            // A partial file longer than the resource was discarded, not resumed.
            let resumedFrom = partialSize <= written.size ? partialSize : 0
            // writeData checks the digest when asked, and always when it resumed a partial file.
            let verified = verify || resumedFrom > 0
            bar?.finish()
            if connection.json {
                struct ExportJSON: Encodable {
                    var localIdentifier: String
                    var file: String
                    var type: String
                    var bytes: Int
                    var sha256: String
                    /// Whether the file's SHA-256 was checked against `sha256`.
                    var verified: Bool
                    var resumedFrom: Int
                }
                try Output.json(ExportJSON(
                    localIdentifier: identifier, file: output, type: type.name, bytes: written.size, sha256: written.sha256,
                    verified: verified, resumedFrom: resumedFrom))
            } else {
                let digest = "sha256 \(written.sha256)\(verified ? ", verified" : "")"
                print("wrote \(output): \(written.size) bytes (\(written.originalFilename), \(digest))\(resumedFrom > 0 ? ", resumed at byte \(resumedFrom)" : "")")
            }
        }
    }
}
