import ArgumentParser
import Foundation
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib edit`: PhotoKit's editing round trip from the command line.
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Edit a photo non-destructively: filters, exposure, crop, rotation; or commit another editor's result.",
            discussion: """
                With --filter/--exposure/--contrast/--saturation/--crop/--rotate/--mirror, the edit is PhotoLib's own \
                format (org.photolib.filter 1): the input is requested handling that format, so a re-edit starts from \
                the original with the earlier recipe applied first (unless --replace), and the result is rendered here \
                with the same code as the server and committed with its recipe. --server-render commits the recipe alone \
                and lets the server render it. With --adjustment FORMAT:VERSION --data FILE --rendered FILE.jpg, the \
                recipe and full-size render an external editor made are committed as they are. The original is never \
                modified; 'photolib revert' undoes the edit.
                """)

        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The asset's identifier.") var identifier: String
        @Option(name: .long, help: "A filter NAME[:INTENSITY] (noir, mono, tonal, sepia, chrome, fade, instant, process, transfer; intensity 0…1, default 1). Repeatable.")
        var filter: [String] = []
        // `.unconditional`: the value may be negative (`--exposure -1`), which would else read as an option.
        @Option(name: .long, parsing: .unconditional, help: "Exposure in EV, −4…4.") var exposure: Double?
        @Option(name: .long, parsing: .unconditional, help: "Contrast, −1…1.") var contrast: Double?
        @Option(name: .long, parsing: .unconditional, help: "Saturation, −1…1 (−1: gray).") var saturation: Double?
        @Option(name: .long, help: "Crop X,Y,W,H in unit coordinates of the upright image.") var crop: String?
        @Option(name: .long, help: "Rotate clockwise: 90, 180 or 270.") var rotate: Int?
        @Flag(name: .long, help: "Mirror left to right.") var mirror = false
        @Flag(name: .long, help: "Start from the original, dropping the earlier recipe.") var replace = false
        @Flag(name: .long, help: "Commit the recipe only; the server renders it.") var serverRender = false
        @Option(name: .long, help: "Another editor's adjustment format, FORMAT:VERSION.") var adjustment: String?
        @Option(name: .long, help: "With --adjustment: the file holding the adjustment data (≤ 64 KiB).") var data: String?
        @Option(name: .long, help: "With --adjustment: the full-size rendered JPEG.") var rendered: String?

        struct EditJSON: Encodable {
            var localIdentifier: String
            var formatIdentifier: String
            var formatVersion: String
            var operations: Int?
            var renderedBy: String
            var changeToken: String
        }

        /// The recipe the options ask for (without an earlier one).
        func requestedOperations() throws -> [FilterRecipe.Operation] {
            var operations: [FilterRecipe.Operation] = []
            for text in filter {
                let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
                guard let name = FilterName(name: parts[0]) else {
                    throw ValidationError("unknown filter '\(parts[0])'; filters are: \(FilterName.allCases.map(\.description).joined(separator: ", "))")
                }
                let intensity = parts.count == 2 ? Double(parts[1]) : 1
                guard let intensity, (0...1).contains(intensity) else { throw ValidationError("--filter \(text): the intensity must be 0…1") }
                operations.append(.filter(name, intensity: intensity))
            }
            if let exposure { operations.append(.exposure(exposure)) }
            if let contrast { operations.append(.contrast(contrast)) }
            if let saturation { operations.append(.saturation(saturation)) }
            if let crop { operations.append(.crop(try Get.cropRect(crop))) }
            if let rotate {
                guard [90, 180, 270].contains(rotate) else { throw ValidationError("--rotate must be 90, 180 or 270") }
                operations.append(.rotate(quarterTurns: rotate / 90))
            }
            if mirror { operations.append(.mirror) }
            do { _ = try FilterRecipe(operations).validated() } catch { throw ValidationError(error.message) }
            return operations
        }

        func validate() throws {
            let operations = try requestedOperations()
            if adjustment != nil {
                guard operations.isEmpty, !serverRender, !replace else {
                    throw ValidationError("--adjustment commits another editor's result: it takes --data and --rendered, not filters")
                }
                guard data != nil, rendered != nil else { throw ValidationError("--adjustment needs --data FILE and --rendered FILE.jpg") }
                guard let adjustment, adjustment.split(separator: ":", maxSplits: 1).count == 2 else {
                    throw ValidationError("--adjustment must be FORMAT:VERSION, e.g. com.example.editor:1.0")
                }
            } else if operations.isEmpty {
                throw ValidationError("nothing to do: give --filter, --exposure, --contrast, --saturation, --crop, --rotate or --mirror, or --adjustment")
            }
        }

        func run() async throws {
            try await connection.withLibrary { library in
                let (output, renderedBy, operations) = try await adjustment == nil ? ownEdit(library) : externalEdit(library)
                let result = try await changeWithUnknownOutcome(
                    "the edit of \(identifier)", check: "see whether it was (photolib show \(identifier): its adjustment and modification date)"
                ) { try await library.commitContentEdit(output) }
                let adjustmentData = output.adjustmentData!
                if connection.json {
                    try Output.json(EditJSON(
                        localIdentifier: identifier, formatIdentifier: adjustmentData.formatIdentifier, formatVersion: adjustmentData.formatVersion,
                        operations: operations, renderedBy: renderedBy, changeToken: result.changeToken))
                } else {
                    print("edited \(identifier): \(adjustmentData.formatIdentifier) \(adjustmentData.formatVersion)\(operations.map { ", \($0) operations" } ?? ""), rendered by the \(renderedBy)")
                }
            }
        }

        /// PhotoLib's own format: earlier recipe + the new steps, rendered here or on the server.
        private func ownEdit(_ library: PhotoLibrary) async throws -> (ContentEditingOutput, String, Int?) {
            let ours = AdjustmentFormat(formatIdentifier: FilterRecipe.formatIdentifier, formatVersion: FilterRecipe.formatVersion)
            let input = try await library.requestContentEditingInput(for: identifier, canHandle: [ours])
            var operations = try requestedOperations()
            if !replace, let earlier = input.input.adjustmentData {
                operations = try FilterRecipe(adjustmentData: earlier).operations + operations
            }
            if input.input.base == .current && input.input.asset.hasAdjustments && !replace {
                // Another editor's render: ours goes on top of it, so it is rendered here.
                guard !serverRender else {
                    throw CLIError("\(identifier) carries an edit in another format; the server renders recipes on the original — drop --server-render to edit on top of it, or add --replace")
                }
            }
            let recipe = FilterRecipe(operations)
            var output = ContentEditingOutput(input: input.input)
            output.adjustmentData = recipe.adjustmentData
            if !serverRender {
                output.renderedJPEGData = try recipe.renderedJPEG(from: input.fullSizeImage)
            }
            return (output, serverRender ? "server" : "client", operations.count)
        }

        /// Another editor's recipe and render, committed as they are.
        private func externalEdit(_ library: PhotoLibrary) async throws -> (ContentEditingOutput, String, Int?) {
            let parts = adjustment!.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw CLIError("--adjustment must be FORMAT:VERSION, e.g. com.example.editor:1.0") }
            func read(_ path: String) throws -> [UInt8] {
                guard let data = FileManager.default.contents(atPath: path) else { throw CLIError("cannot read \(path)") }
                return [UInt8](data)
            }
            let input = try await library.requestContentEditingInput(for: identifier)
            var output = ContentEditingOutput(input: input.input)
            output.adjustmentData = AdjustmentData(formatIdentifier: parts[0], formatVersion: parts[1], data: try read(data!))
            output.renderedJPEGData = try read(rendered!)
            return (output, "editor", nil)
        }
    }

    /// `photolib edit-input`: what an editor would start from.
    struct EditInput: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit-input",
            abstract: "Write the image an edit starts from, and say whether it is the original (with the recipe to apply) or the render.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The asset's identifier.") var identifier: String
        @Option(name: .customLong("can-handle"), help: "An adjustment format this editor applies, FORMAT:VERSION (VERSION may end in *). Repeatable.")
        var canHandle: [String] = []
        @Option(name: .shortAndLong, help: "The file to write the full-size image to.") var output: String
        @Option(name: .long, help: "Also write the image scaled to fit this many pixels (64…4096) to --display-output.") var displaySize: Int?
        @Option(name: .long, help: "Where to write the display-size image.") var displayOutput: String?

        func validate() throws {
            guard (displaySize == nil) == (displayOutput == nil) else {
                throw ValidationError("--display-size and --display-output go together")
            }
            for text in canHandle where text.split(separator: ":", maxSplits: 1).count != 2 {
                throw ValidationError("--can-handle '\(text)' must be FORMAT:VERSION, e.g. com.example.editor:1.*")
            }
            if let displaySize, !(64...4096).contains(displaySize) {
                throw ValidationError("--display-size must be within 64…4096 pixels")
            }
        }

        struct InputJSON: Encodable {
            var localIdentifier: String
            var base: String
            var file: String
            var bytes: Int
            var orientation: Int
            var editingSessionID: String
            var adjustmentFormat: String?
            var adjustmentVersion: String?
            var adjustmentData: String?
        }

        func run() async throws {
            try FileOutput.check(output)
            if let displayOutput { try FileOutput.check(displayOutput) }
            let formats = canHandle.map { text -> AdjustmentFormat in
                let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
                return AdjustmentFormat(formatIdentifier: parts[0], formatVersion: parts[1])
            }
            try await connection.withLibrary { library in
                let input = try await library.requestContentEditingInput(for: identifier, canHandle: formats, displaySize: displaySize)
                var files = [(output, input.fullSizeImage)]
                if let displayOutput, let display = input.displaySizeImage { files.append((displayOutput, display)) }
                for (path, bytes) in files {
                    try FileOutput.write(bytes, to: path)
                }
                let base = input.input.base == .original ? "original" : "render"
                let adjustment = input.input.adjustmentData
                if connection.json {
                    try Output.json(InputJSON(
                        localIdentifier: identifier, base: base, file: output, bytes: input.fullSizeImage.count,
                        orientation: input.input.fullSizeImageOrientation, editingSessionID: input.input.editingSessionID,
                        adjustmentFormat: adjustment?.formatIdentifier, adjustmentVersion: adjustment?.formatVersion,
                        adjustmentData: adjustment.map { Data($0.data).base64EncodedString() }))
                } else {
                    print("wrote \(output): the \(base), \(input.fullSizeImage.count) bytes, orientation \(input.input.fullSizeImageOrientation)")
                    if let adjustment {
                        print("apply first: \(adjustment.formatIdentifier) \(adjustment.formatVersion), \(adjustment.data.count) bytes")
                    }
                }
            }
        }
    }

    /// `photolib revert`: `revertAssetContentToOriginal()`.
    struct Revert: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove assets' edits: back to the original (a no-op for unedited ones).")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Asset identifiers.") var identifiers: [String]

        func run() async throws {
            try await connection.withLibrary { library in
                let result = try await library.revertAssetContentToOriginal(identifiers)
                if connection.json {
                    try Output.json(["changeToken": result.changeToken])
                } else {
                    print("reverted \(identifiers.count) asset\(identifiers.count == 1 ? "" : "s")")
                }
            }
        }
    }
}
