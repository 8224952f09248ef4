import ArgumentParser
import Foundation
import PhotoLibClient
import PhotoLibCore

extension PhotoLibCommand {
    /// `photolib get`: an image of an asset with every PhotoKit request option, written to a file.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch an asset's image and write it to a file (a JPEG, or the original file as it is).",
            discussion: """
                Every PhotoKit option: --size (or 'max'), --mode, --resize, --delivery, --version, --crop. \
                With --delivery opportunistic a degraded image arrives first and then the final one; each \
                is written to FILE in turn (the final one stays), and --json prints one JSON line per image.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The asset's identifier (from 'photolib ls').")
        var identifier: String

        @Option(name: .long, help: "Target size WIDTHxHEIGHT, e.g. 256x256, or 'max' for the full size.")
        var size: String = "max"

        @Option(name: .long, help: "fit (inside the target) or fill (covers the target, not cropped).")
        var mode: Mode = .fit

        @Option(name: .long, help: "none (stored size), fast (close to the target, maybe up to 2x larger), exact.")
        var resize: Resize = .exact

        @Option(name: .long, help: "opportunistic (degraded first, then final), high (final only), fast (one, maybe degraded).")
        var delivery: Delivery = .high

        @Option(name: .long, help: "current, unadjusted or original (original + max + --resize none: the original file's bytes).")
        var version: Version = .current

        @Option(name: .long, help: "Crop X,Y,W,H in unit coordinates of the upright image, e.g. 0.25,0.25,0.5,0.5.")
        var crop: String?

        @Flag(name: .long, help: "Bypass every server cache (library owner only).")
        var noCache = false

        @Option(name: .shortAndLong, help: "The file to write.")
        var output: String

        enum Mode: String, ExpressibleByArgument, CaseIterable { case fit, fill }
        enum Resize: String, ExpressibleByArgument, CaseIterable { case none, fast, exact }
        enum Delivery: String, ExpressibleByArgument, CaseIterable { case opportunistic, high, fast }
        enum Version: String, ExpressibleByArgument, CaseIterable { case current, unadjusted, original }

        /// `--size`, with `max` as PhotoKit's maximum size.
        static func targetSize(_ text: String) throws(PhotoLibError) -> PixelSize {
            try PixelSize(parsing: text)
        }

        /// `--crop X,Y,W,H`.
        static func cropRect(_ text: String) throws -> NormalizedRect {
            let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3],
                x >= 0, y >= 0, w > 0, h > 0, x + w <= 1 + 1e-9, y + h <= 1 + 1e-9
            else {
                throw ValidationError("--crop must be X,Y,W,H in 0…1 with W, H > 0 and X+W, Y+H ≤ 1, e.g. 0.25,0.25,0.5,0.5")
            }
            return NormalizedRect(x: x, y: y, width: w, height: h)
        }

        func validate() throws {
            do { _ = try Self.targetSize(size) } catch { throw ValidationError(error.message) }
            if let crop { _ = try Self.cropRect(crop) }
        }

        var options: ImageRequestOptions {
            get throws {
                ImageRequestOptions(
                    deliveryMode: [.opportunistic: .opportunistic, .high: .highQualityFormat, .fast: .fastFormat][delivery]!,
                    resizeMode: [.none: .none, .fast: .fast, .exact: .exact][resize]!,
                    version: [.current: .current, .unadjusted: .unadjusted, .original: .original][version]!,
                    normalizedCropRect: try crop.map(Self.cropRect))
            }
        }

        func run() async throws {
            // A directory or a missing folder is refused before the image is fetched.
            try FileOutput.check(output)
            let target = try Self.targetSize(size)
            let options = try options
            let bar = Output.stderrIsTerminal && !connection.json ? ProgressBar(label: "downloading") : nil
            try await connection.withLibrary { library in
                var manager = library.imageManager
                manager.bypassCache = noCache
                let images = try await manager.requestImage(
                    forAssetIdentifier: identifier, targetSize: target, contentMode: mode == .fill ? .aspectFill : .aspectFit,
                    options: options
                ) { progress in
                    if case .receiving(let received, let total) = progress { bar?.update(received, of: total) }
                }
                var delivered = 0
                for try await image in images {
                    delivered += 1
                    try FileOutput.write(image.data, to: output)
                    if connection.json {
                        try Output.jsonLine(ImageJSON(
                            localIdentifier: identifier, file: output, width: image.width, height: image.height,
                            bytes: image.data.count, uniformTypeIdentifier: image.uniformTypeIdentifier,
                            degraded: image.isDegraded, final: image.isFinal))
                    } else {
                        bar?.finish()
                        print("wrote \(output): \(image.width)x\(image.height) \(PhotoLibCommand.imageTypeName(image.uniformTypeIdentifier)), \(image.data.count) bytes\(image.isDegraded ? " (degraded)" : "")")
                    }
                }
                guard delivered > 0 else { throw CLIError("the server ended the request without an image") }
            }
        }
    }

    /// A short name for a delivered image's type, as `photolib get` prints it.
    static func imageTypeName(_ uniformTypeIdentifier: String) -> String {
        OriginalFileType(uniformTypeIdentifier: uniformTypeIdentifier)?.displayName ?? uniformTypeIdentifier
    }

    /// One delivered image in `photolib get --json` (one line each).
    struct ImageJSON: Encodable {
        var localIdentifier: String
        var file: String
        var width: Int
        var height: Int
        var bytes: Int
        /// The type of the bytes written: `public.jpeg`, or the original file's type.
        var uniformTypeIdentifier: String
        var degraded: Bool
        var final: Bool
    }
}

extension Output {
    /// Prints `value` as one compact JSON line (for streams of results, e.g. `get --json`).
    static func jsonLine(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        data.append(contentsOf: Array("\n".utf8))
        FileHandle.standardOutput.write(data)
    }
}
