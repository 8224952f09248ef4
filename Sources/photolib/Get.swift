import ArgumentParser
import Foundation
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib get`: an image of an asset at a size, written to a file.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Fetch an asset's image at a size and write the JPEG to a file.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The asset's identifier (from 'photolib ls').")
        var identifier: String

        @Option(name: .long, help: "Target size WIDTHxHEIGHT, e.g. 256x256.")
        var size: String

        @Option(name: .long, help: "fit (inside the target) or fill (covers the target, not cropped).")
        var mode: Mode = .fit

        @Option(name: .shortAndLong, help: "The file to write.")
        var output: String

        enum Mode: String, ExpressibleByArgument, CaseIterable {
            case fit, fill
        }

        func validate() throws {
            do { _ = try PixelSize(parsing: size) } catch { throw ValidationError(error.message) }
        }

        func run() async throws {
            let target = try PixelSize(parsing: size)
            let bar = Output.stderrIsTerminal && !connection.json ? ProgressBar(label: "downloading") : nil
            let image = try await connection.withLibrary { library in
                try await library.imageManager.image(
                    forAssetIdentifier: identifier, targetSize: target, contentMode: mode == .fill ? .aspectFill : .aspectFit,
                    options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact)
                ) { progress in
                    if case .receiving(let received, let total) = progress { bar?.update(received, of: total) }
                }
            }
            bar?.finish()
            do {
                try Data(image.data).write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                throw CLIError("cannot write \(output): \(error.localizedDescription)")
            }
            if connection.json {
                struct ImageJSON: Encodable {
                    var localIdentifier: String
                    var file: String
                    var width: Int
                    var height: Int
                    var bytes: Int
                    var degraded: Bool
                }
                try Output.json(ImageJSON(localIdentifier: identifier, file: output, width: image.width, height: image.height, bytes: image.data.count, degraded: image.isDegraded))
            } else {
                print("wrote \(output): \(image.width)x\(image.height) JPEG, \(image.data.count) bytes")
            }
        }
    }
}
