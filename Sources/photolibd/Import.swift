import ArgumentParser
import Foundation
import PhotoLibCore

import PhotoLibStore

extension PhotoLibDaemon {
    /// `photolibd import`: adds photo and video files and folders to a library.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import photos, videos and Live Photos (files and folders, recursively) into a library.",
            discussion: """
                Each photo is checked by decoding it fully, each video by reading its header and \
                decoding its poster frame; a file of another type, truncated or damaged is refused \
                with one line naming it and the reason, and the others are imported. Files already \
                in the library (same SHA-256) are reported and skipped. A still and a movie with the \
                same Apple content identifier, or the same base name in one folder (IMG_0001.HEIC + \
                IMG_0001.MOV), become one Live Photo ("paired"). In folders, only \
                .jpg/.jpeg/.jpe/.heic/.heif/.png/.webp/.mov/.mp4/.m4v/.qt files are considered. Works \
                while the server runs: its clients see the new assets. Exit status 1 when any file \
                was refused. A photo may have 256 MiB (it is read whole to be decoded); a video 16 GiB \
                (it is copied into the library 1 MiB at a time and inspected where it lies, never \
                held in memory), and the disk must have room for it beside the library's reserve.
                """)

        @Option(name: .long, help: "The library directory (created if missing).")
        var library: String

        @Argument(help: "Photo and video files (JPEG, HEIC, PNG, WebP, MOV, MP4, M4V) or folders.")
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
