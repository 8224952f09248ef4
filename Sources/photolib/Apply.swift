import ArgumentParser
import Foundation
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib apply FILE.json`: a documented JSON list of change requests, as one batch.
    struct Apply: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply a JSON list of change requests as one atomic batch (docs/APPLY.md).",
            discussion: "Files named by createAsset entries are uploaded first; then every request is applied in one transaction, all or nothing.")

        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The JSON file.") var file: String

        func run() async throws {
            let plan = try ApplyFile(contentsOf: file)
            let result: ChangeBatchResult = try await connection.withLibrary { library in
                var requests: [ChangeRequest] = []
                for entry in plan.entries {
                    switch entry {
                    case .request(let request):
                        requests.append(request)
                    case .createAsset(let path, let placeholder, let date, let location, let favorite, let hidden):
                        var isDirectory: ObjCBool = false
                        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                        guard exists, !isDirectory.boolValue, FileManager.default.isReadableFile(atPath: path) else {
                            let why = !exists ? "no such file" : isDirectory.boolValue ? "a folder, not a file" : "not readable"
                            throw CLIError("cannot read \(path) (\(why); a relative path is read from the apply file's folder); nothing was applied")
                        }
                        // Streamed a piece at a time (a video is never held in memory), dated by
                        // the file's modification time when it has no date of its own.
                        let upload = try await library.upload(fileAt: path)
                        requests.append(.createAsset(.init(uploadID: upload.uploadID, placeholder: placeholder, creationDate: date, location: location, isFavorite: favorite, isHidden: hidden)))
                    }
                }
                // Where the library stood before, for the check an unknown outcome asks for.
                let before = try await library.currentChangeToken()
                do {
                    return try await changeWithUnknownOutcome("the plan", check: "see what changed since (photolib changes --since \(before))") {
                        try await library.performChanges(requests)
                    }
                } catch let error as PhotoLibError {
                    if let index = error.failedRequestIndex { throw CLIError("nothing was applied: entry \(index) failed: \(error.message)", code: error.code) }
                    throw error
                }
            }
            if connection.json {
                struct Applied: Encodable {
                    var requests: Int
                    var changeToken: String
                    var placeholders: [String: String]
                }
                try Output.json(Applied(requests: plan.entries.count, changeToken: result.changeToken, placeholders: result.placeholders))
            } else {
                print("applied \(plan.entries.count) requests (change \(result.changeToken))")
                for (label, identifier) in result.placeholders.sorted(by: { $0.key < $1.key }) { print("  \(label) = \(identifier)") }
            }
        }
    }
}
