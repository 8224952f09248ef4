import ArgumentParser
import Foundation
import PhotoLibClient
import PhotoLibImaging

extension PhotoLibCommand {
    /// `photolib filter-preview`: a photo through all nine filters, as one picture (offline).
    struct FilterPreview: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "filter-preview",
            abstract: "Render a local photo through the nine filters and write them as one contact sheet (no server needed).",
            discussion: """
                Cells in order: the photo unfiltered, then Noir, Mono, Tonal, Sepia, Chrome, Fade, Instant, Process, \
                Transfer, each at full intensity. The pictures in docs/FILTERS.md are made with it. A HEIC, PNG or WebP \
                photo is rendered from its editing base, the JPEG an edit of it starts from, which 'photolibd edit-base' \
                makes (photolib reads JPEG alone): photolibd must be beside photolib or on PATH.
                """)

        @Argument(help: "A JPEG, HEIC, PNG or WebP photo.") var photo: String
        @Option(name: .long, help: "Cell size in pixels (the longer side of each image).") var cell: Int = 320
        @Option(name: .long, help: "Images per row.") var columns: Int = 5
        @Option(name: .shortAndLong, help: "The JPEG to write.") var output: String

        func validate() throws {
            guard (32...2048).contains(cell) else { throw ValidationError("--cell must be 32…2048") }
            guard (1...10).contains(columns) else { throw ValidationError("--columns must be 1…10") }
        }

        func run() async throws {
            try FileOutput.check(output)
            var base = try FileInput.readWhole(photo, limit: ImagingLimits.default.maxInputBytes)
            switch ImageFormat.detect(base) {
            case .jpeg?: break
            case .some: base = try Self.editingBase(of: photo)
            case nil: throw CLIError("\(photo): \(ImageFormat.unsupportedError(for: base).message)")
            }
            // Each filter at full size (what an edit commits), scaled down by the sheet.
            let recipes = [FilterRecipe()] + FilterName.allCases.map { FilterRecipe([.filter($0, intensity: 1)]) }
            var cells: [[UInt8]] = []
            do {
                for recipe in recipes { cells.append(try recipe.renderedJPEG(from: base)) }
                let sheet = try ContactSheetComposer.compose(cells, columns: columns, cell: cell)
                try FileOutput.write(sheet.jpeg, to: output)
                print("wrote \(output): \(sheet.width)x\(sheet.height), \(recipes.count) images")
            } catch let error as PhotoLibError {
                throw CLIError(error.message, code: error.code)
            }
        }

        /// The editing base of a HEIC, PNG or WebP photo, as the server makes it: `photolibd
        /// edit-base`, run from beside this executable or from PATH (the decoders are the
        /// server's; the client neither links nor loads them).
        static func editingBase(of photo: String) throws -> [UInt8] {
            var candidates: [String] = []
            if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
                candidates.append(executable.deletingLastPathComponent().appendingPathComponent("photolibd").path)
            }
            for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") where !folder.isEmpty {
                candidates.append("\(folder)/photolibd")
            }
            guard let daemon = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
                throw CLIError("\(photo) is not a JPEG: photolib reads JPEG alone, and decodes HEIC, PNG and WebP photos with 'photolibd edit-base', but no photolibd is beside photolib or on PATH; install photolibd, or convert the photo to JPEG")
            }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: daemon)
            process.arguments = ["edit-base", "-o", "-", "--", photo]
            let output = Pipe(), errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            do {
                try process.run()
            } catch {
                throw CLIError("cannot run \(daemon): \(error.localizedDescription)")
            }
            // The JPEG first (it may be large); the error output is one line.
            let jpeg = output.fileHandleForReading.readDataToEndOfFile()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationReason == .exit, process.terminationStatus == 0 else {
                let reason = message.trimmingCharacters(in: .whitespacesAndNewlines)
                throw CLIError(reason.isEmpty ? "\(daemon) edit-base \(photo) failed (status \(process.terminationStatus))" : reason)
            }
            return [UInt8](jpeg)
        }
    }
}
