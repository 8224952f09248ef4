import ArgumentParser
import Foundation
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib filter-preview`: a photo through all nine filters, as one picture (offline).
    struct FilterPreview: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "filter-preview",
            abstract: "Render a local JPEG through the nine filters and write them as one contact sheet (no server needed).",
            discussion: "Cells in order: the photo unfiltered, then Noir, Mono, Tonal, Sepia, Chrome, Fade, Instant, Process, Transfer, each at full intensity. The pictures in docs/FILTERS.md are made with it.")

        @Argument(help: "A JPEG file.") var photo: String
        @Option(name: .long, help: "Cell size in pixels (the longer side of each image).") var cell: Int = 320
        @Option(name: .long, help: "Images per row.") var columns: Int = 5
        @Option(name: .shortAndLong, help: "The JPEG to write.") var output: String

        func validate() throws {
            guard (32...2048).contains(cell) else { throw ValidationError("--cell must be 32…2048") }
            guard (1...10).contains(columns) else { throw ValidationError("--columns must be 1…10") }
        }

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: photo) else { throw CLIError("cannot read \(photo)") }
            // Each filter at full size (what an edit commits), scaled down by the sheet.
            let recipes = [FilterRecipe()] + FilterName.allCases.map { FilterRecipe([.filter($0, intensity: 1)]) }
            var cells: [[UInt8]] = []
            do {
                for recipe in recipes { cells.append(try recipe.renderedJPEG(from: [UInt8](data))) }
                let sheet = try ContactSheetComposer.compose(cells, columns: columns, cell: cell)
                try Data(sheet.jpeg).write(to: URL(fileURLWithPath: output), options: .atomic)
                print("wrote \(output): \(sheet.width)x\(sheet.height), \(recipes.count) images")
            } catch let error as PhotoLibError {
                throw CLIError(error.message, code: error.code)
            }
        }
    }
}
