import ArgumentParser
import Foundation
import PhotoLibCore

import PhotoLibStore

extension PhotoLibDaemon {
    /// `photolibd import`: adds JPEG files and folders to a library.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import JPEG files and folders (recursively) into a library.",
            discussion: """
                Each photo is checked by decoding it fully; a file that is not a JPEG, is truncated \
                or damaged is refused with one line naming it and the reason, and the others are \
                imported. Files already in the library (same SHA-256) are reported and skipped. In \
                folders, only .jpg/.jpeg/.jpe/.heic/.heif/.png/.webp files are considered. Works while the server runs: its \
                clients see the new assets. Exit status 1 when any file was refused.
                """)

        @Option(name: .long, help: "The library directory (created if missing).")
        var library: String

        @Argument(help: "JPEG files or folders.")
        var paths: [String]

        func run() throws {
            let photoLibrary: PhotoLibrary
            do {
                photoLibrary = try PhotoLibrary.open(at: library)
            } catch {
                throw Failure.exit("photolibd import: cannot open library \(library): \(error.message)")
            }
            var importer = PhotoImporter(library: photoLibrary)
            for path in paths { importer.importPath(path) }
            let summary = importer.summary
            print("imported \(summary.added), already present \(summary.alreadyPresent), refused \(summary.refused)")
            if summary.refused > 0 { throw ExitCode(1) }
        }
    }
}
