import ArgumentParser
import Foundation
import PhotoLibClient
import PhotoLibImaging

extension PhotoLibCommand {
    /// `photolib bench filter`: the cost of rendering a filter recipe on a full-size photo.
    struct BenchFilter: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "filter",
            abstract: "Time full-size renders of a filter recipe on a local JPEG (the code edits use), best of the repeats.",
            discussion: "Prints ms per image for the recipe and for an empty recipe (decode + encode alone). Scripts/bench-images sets these beside a plain libjpeg-turbo decode + encode.")

        @Argument(help: "A JPEG file.") var photo: String
        @Option(name: .long, help: "The filter (noir, mono, …).") var filter: String = "noir"
        @Option(name: .long, help: "Renders per measurement.") var `repeat`: Int = 5
        @Flag(name: .long, help: "Print JSON.") var json = false

        struct ResultJSON: Encodable {
            var filter: String
            var msPerImage: Double
            var plainMsPerImage: Double
            var width: Int
            var height: Int
        }

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: photo) else { throw CLIError("cannot read \(photo)") }
            guard let name = FilterName(name: filter) else { throw CLIError("unknown filter '\(filter)'") }
            guard (1...1000).contains(`repeat`) else { throw CLIError("--repeat must be 1…1000") }
            let bytes = [UInt8](data)
            func best(_ recipe: FilterRecipe) throws -> (ms: Double, jpeg: [UInt8]) {
                var fastest = Double.infinity
                var output: [UInt8] = []
                for _ in 0..<`repeat` {
                    let start = DispatchTime.now().uptimeNanoseconds
                    output = try recipe.renderedJPEG(from: bytes)
                    fastest = min(fastest, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                }
                return (fastest, output)
            }
            do {
                let plain = try best(FilterRecipe())
                let filtered = try best(FilterRecipe([.filter(name, intensity: 1)]))
                let info: JPEGInfo
                do { info = try JPEGInspector.inspect(filtered.jpeg) } catch { throw CLIError(error.message) }
                let size = PixelSize(width: info.pixelWidth, height: info.pixelHeight)
                if json {
                    try Output.json(ResultJSON(filter: name.description, msPerImage: filtered.ms, plainMsPerImage: plain.ms, width: size.width, height: size.height))
                } else {
                    print(String(format: "%@ on %dx%d: %.1f ms per image; decode + encode alone %.1f ms", name.description, size.width, size.height, filtered.ms, plain.ms))
                }
            } catch let error as PhotoLibError {
                throw CLIError(error.message, code: error.code)
            }
        }
    }
}
