import ArgumentParser
import Foundation
import PhotoLibClient
import PhotoLibCore

extension PhotoLibCommand {
    /// `photolib upload PATH… [--album ID]`.
    struct UploadCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "upload",
            abstract: "Upload photos, videos and Live Photos (files and folders); reports each as new, paired or already present.",
            discussion: """
                Folders are walked recursively for photo (.jpg .jpeg .jpe .heic .heif .png .webp) and \
                video (.mov .mp4 .m4v .qt) files. Each file is its own transaction, except a still and \
                a movie with the same base name in one folder (IMG_0001.HEIC + IMG_0001.MOV): they \
                are created together and become one Live Photo (the server also pairs files whose \
                Apple content identifiers match, in any order). A refused file does not stop the \
                others, and the exit status is 1 when any was refused. Files are read and sent a \
                piece at a time; the server takes photos up to 256 MiB and videos up to 16 GiB.
                """)

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
            let (files, unusable) = PhotoFiles.expand(paths)
            let groups = PhotoFiles.livePhotoGroups(files)
            let showProgress = Output.stderrIsTerminal && !connection.json
            let reports: [FileReport] = try await connection.withLibrary { library in
                var reports: [FileReport] = []
                for group in groups {
                    do {
                        var uploads: [(file: String, upload: Upload)] = []
                        for file in group {
                            let bar = showProgress ? ProgressBar(label: (file as NSString).lastPathComponent) : nil
                            // Read a piece at a time: a large video is never held in memory.
                            let upload = try await library.upload(fileAt: file) { sent, total in bar?.update(sent, of: total) }
                            bar?.finish()
                            uploads.append((file, upload))
                        }
                        // One batch: the still and the movie of a Live Photo pair by name in it.
                        var placeholders: [ObjectPlaceholder] = []
                        let result = try await library.performChanges { batch in
                            placeholders = uploads.map { batch.createAsset(from: $0.upload) }
                            if let album { batch.addAssets(placeholders.map(\.localIdentifier), to: album) }
                        }
                        let identifiers = placeholders.map { result.localIdentifier(for: $0) }
                        for (index, (file, upload)) in uploads.enumerated() {
                            let identifier = upload.existingAssetIdentifier ?? identifiers[index]
                            // An add-only client is not told which asset already holds the
                            // bytes: its placeholder stays unresolved.
                            let status = upload.existingAssetIdentifier != nil || identifier == nil
                                ? "alreadyPresent" : index > 0 && identifier == identifiers[0] ? "paired" : "new"
                            if !connection.json { print("\(status == "alreadyPresent" ? "already present" : status) \(identifier ?? "?") \(file)") }
                            reports.append(FileReport(path: file, status: status, localIdentifier: identifier, error: nil))
                        }
                    } catch let error as PhotoLibError where error.code == .unavailable || error.code == .unauthenticated {
                        // The connection is gone: the rest cannot be sent. Say where it stopped;
                        // what was sent before is in the library (a new run reports it present).
                        throw PhotoLibError(
                            error.code,
                            "\(error.message) while uploading \(group.joined(separator: " and ")): run the upload again; \(reports.count) file\(reports.count == 1 ? "" : "s") before it were done and will be reported as already present",
                            reason: error.reason)
                    } catch {
                        var message = (error as? PhotoLibError)?.message ?? "\(error)"
                        if let album, let error = error as? PhotoLibError, error.code == .permissionDenied, error.failedRequestIndex == group.count {
                            // The batch's album request, after one create per file, is what was
                            // refused: an add-only client may only create assets.
                            message = "an add-only client may add photos but not put them in albums: upload without --album \(album) (nothing was added)"
                        }
                        for file in group {
                            if !connection.json { FileHandle.standardError.write(Data("refused \(file): \(message)\n".utf8)) }
                            reports.append(FileReport(path: file, status: "refused", localIdentifier: nil, error: message))
                        }
                    }
                }
                return reports
            } + unusable.map { path, message in
                if !connection.json { FileHandle.standardError.write(Data("refused \(path): \(message)\n".utf8)) }
                return FileReport(path: path, status: "refused", localIdentifier: nil, error: message)
            }
            if connection.json {
                try Output.json(reports)
            } else {
                // One line for the whole run, as `photolibd import` prints.
                func count(_ status: String) -> Int { reports.filter { $0.status == status }.count }
                print("uploaded \(count("new")), paired \(count("paired")), already present \(count("alreadyPresent")), refused \(count("refused"))")
            }
            if reports.contains(where: { $0.status == "refused" }) { throw ExitCode(1) }
        }
    }
}

/// Expands files and folders into the photo and video files to send.
enum PhotoFiles {
    /// `files` in groups sent together: a still and a movie with the same base name in one
    /// folder (the two halves of a Live Photo: still first), every other file alone; in the
    /// order the files came.
    static func livePhotoGroups(_ files: [String]) -> [[String]] {
        func isMovie(_ file: String) -> Bool { OriginalFileType(path: file)?.isVideo ?? false }
        var stills: [String: String] = [:], movies: [String: String] = [:]
        for file in files {
            let key = OriginalFileType.livePhotoKey(file)
            if isMovie(file) { movies[key] = movies[key] ?? file } else { stills[key] = stills[key] ?? file }
        }
        var groups: [[String]] = []
        var done = Set<String>()
        for file in files where !done.contains(file) {
            let key = OriginalFileType.livePhotoKey(file)
            if let still = stills[key], let movie = movies[key], still != movie {
                groups.append([still, movie])
                done.formUnion([still, movie])
            } else {
                groups.append([file])
                done.insert(file)
            }
        }
        return groups
    }

    /// The files to upload: each path that is a file as it is, then each folder's photos and
    /// videos, sorted; and the paths refused with why (one that does not exist, a folder with
    /// nothing to upload): like a file the server refuses, they do not stop the others.
    static func expand(_ paths: [String]) -> (files: [String], refused: [(path: String, message: String)]) {
        var files: [String] = []
        var refused: [(path: String, message: String)] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                refused.append((path, "no such file or folder"))
                continue
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let walker = FileManager.default.enumerator(atPath: path)
            var found: [String] = []
            while let relative = walker?.nextObject() as? String {
                let name = (relative as NSString).lastPathComponent
                guard !name.hasPrefix("."), OriginalFileType(path: name) != nil else { continue }
                found.append((path as NSString).appendingPathComponent(relative))
            }
            if found.isEmpty { refused.append((path, "no photos or videos in it (looked for \(extensions))")) }
            files += found.sorted()
        }
        return (files, refused)
    }

    /// The file name extensions a folder is searched for, for messages.
    static var extensions: String {
        OriginalFileType.allCases.flatMap { $0.fileExtensions.sorted() }.joined(separator: ", ")
    }
}
