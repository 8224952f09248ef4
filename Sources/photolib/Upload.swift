import ArgumentParser
import Foundation
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib upload PATH… [--album ID]`.
    struct UploadCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "upload",
            abstract: "Upload JPEG files and folders; reports each as new or already present.",
            discussion: "Folders are walked recursively for .jpg/.jpeg/.jpe files. Each file is its own transaction; a refused file does not stop the others, and the exit status is 1 when any was refused.")

        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Files or folders.") var paths: [String]
        @Option(name: .long, help: "Also add the photos to this album.") var album: String?

        struct FileReport: Encodable {
            var path: String
            var status: String
            var localIdentifier: String?
            var error: String?
        }

        func run() async throws {
            let files = try PhotoFiles.expand(paths)
            let showProgress = Output.stderrIsTerminal && !connection.json
            let reports: [FileReport] = try await connection.withLibrary { library in
                var reports: [FileReport] = []
                for file in files {
                    do {
                        guard let data = FileManager.default.contents(atPath: file) else { throw CLIError("cannot read the file") }
                        let bar = showProgress ? ProgressBar(label: (file as NSString).lastPathComponent) : nil
                        let upload = try await library.upload([UInt8](data), filename: (file as NSString).lastPathComponent) { sent, total in bar?.update(sent, of: total) }
                        bar?.finish()
                        var identifier = upload.existingAssetIdentifier
                        let result = try await library.performChanges { batch in
                            let created = batch.createAsset(from: upload)
                            if let album { batch.addAssets([created.localIdentifier], to: album) }
                        }
                        if identifier == nil { identifier = result.placeholders["$1"] }
                        let report = FileReport(path: file, status: upload.existingAssetIdentifier == nil ? "new" : "alreadyPresent", localIdentifier: identifier, error: nil)
                        if !connection.json { print("\(report.status == "new" ? "new" : "already present") \(identifier ?? "?") \(file)") }
                        reports.append(report)
                    } catch let error as PhotoLibError where error.code == .unavailable || error.code == .unauthenticated {
                        throw error
                    } catch {
                        let message = (error as? PhotoLibError)?.message ?? "\(error)"
                        if !connection.json { FileHandle.standardError.write(Data("refused \(file): \(message)\n".utf8)) }
                        reports.append(FileReport(path: file, status: "refused", localIdentifier: nil, error: message))
                    }
                }
                return reports
            }
            if connection.json { try Output.json(reports) }
            if reports.contains(where: { $0.status == "refused" }) { throw ExitCode(1) }
        }
    }
}

/// Expands files and folders into the photo files to send.
enum PhotoFiles {
    static let extensions: Set<String> = ["jpg", "jpeg", "jpe"]

    static func expand(_ paths: [String]) throws -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CLIError("\(path): no such file or folder")
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let walker = FileManager.default.enumerator(atPath: path)
            var found: [String] = []
            while let relative = walker?.nextObject() as? String {
                let name = (relative as NSString).lastPathComponent
                guard !name.hasPrefix("."), extensions.contains((name as NSString).pathExtension.lowercased()) else { continue }
                found.append((path as NSString).appendingPathComponent(relative))
            }
            files += found.sorted()
        }
        return files
    }
}
