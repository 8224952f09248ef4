import Foundation
import PhotoLibCore
import PhotoLibServer
import PhotoLibStore

/// Walks files and folders and adds each photo and video to a library, reporting one line
/// per file. In a folder, a movie and a still with the same base name (`IMG_0001.HEIC`,
/// `IMG_0001.MOV`) become one Live Photo; a still is imported right before its movie, which
/// finds it.
struct PhotoImporter {
    /// Counts of what happened.
    struct Summary {
        var added = 0
        var alreadyPresent = 0
        var refused = 0
    }

    /// The asset of each still imported from a folder, by folder and lower-cased base name.
    /// Only the current folder's: a file pairs with a file of its own folder, and the map
    /// stays the size of one folder however many are imported.
    private var stillsByBaseName: [String: String] = [:]
    private var stillsFolder: String?
    let intake: PhotoIntake
    private(set) var summary = Summary()

    init(library: PhotoLibrary) {
        self.intake = PhotoIntake(library: library)
    }

    /// Imports a file, or every photo under a folder (sorted, recursively).
    mutating func importPath(_ path: String) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            refuse(path, "no such file or folder")
            return
        }
        guard isDirectory.boolValue else {
            importFile(path)
            return
        }
        guard let walker = FileManager.default.enumerator(atPath: path) else {
            refuse(path, "cannot list the folder")
            return
        }
        var files: [String] = []
        while let relative = walker.nextObject() as? String {
            let full = (path as NSString).appendingPathComponent(relative)
            var nested: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &nested), !nested.boolValue else { continue }
            let name = (relative as NSString).lastPathComponent
            guard !name.hasPrefix("."), OriginalFileType(path: name) != nil else { continue }
            files.append(full)
        }
        // Folder by folder, by base name, a still right before the movie of the same name:
        // each Live Photo's halves are imported one after the other, so an import stopped
        // half-way leaves at most the last pair with one half (stills first and movies after
        // left every pair of the folder so); a new run completes it.
        let ordered = files.sorted { a, b in
            let (folderA, folderB) = ((a as NSString).deletingLastPathComponent, (b as NSString).deletingLastPathComponent)
            if folderA != folderB { return folderA < folderB }
            let (keyA, keyB) = (OriginalFileType.livePhotoKey(a), OriginalFileType.livePhotoKey(b))
            if keyA != keyB { return keyA < keyB }
            let (movieA, movieB) = (Self.isMovie(a), Self.isMovie(b))
            if movieA != movieB { return !movieA }
            return a < b
        }
        for file in ordered { importFile(file) }
    }

    private static func isMovie(_ path: String) -> Bool {
        OriginalFileType(path: path)?.isVideo ?? false
    }


    private mutating func importFile(_ path: String) {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let modified = (attributes?[.modificationDate] as? Date) ?? Date()
        do {
            let key = OriginalFileType.livePhotoKey(path)
            let folder = (path as NSString).deletingLastPathComponent
            if folder != stillsFolder {
                stillsByBaseName.removeAll()
                stillsFolder = folder
            }
            let partner = Self.isMovie(path) ? stillsByBaseName[key] : nil
            // A video is copied in a bounded buffer, never read whole; a photo is read whole.
            let outcome = try intake.add(fileAt: path, filename: (path as NSString).lastPathComponent, fallbackDate: modified, pairingWith: partner)
            if !Self.isMovie(path) { stillsByBaseName[key] = outcome.asset.localIdentifier }
            switch outcome {
            case .added(let asset):
                summary.added += 1
                // A file that completed a Live Photo joined an asset rather than making one.
                report("\(asset.mediaSubtypes.contains(.photoLive) ? "paired" : "added") \(asset.localIdentifier) \(path)")
            case .alreadyPresent(let asset):
                summary.alreadyPresent += 1
                report("already present \(asset.localIdentifier) \(path)")
            }
        } catch {
            refuse(path, error.message)
        }
    }

    /// One line on stdout, unbuffered: a line printed is a photo committed, even if the
    /// process is killed right after.
    private func report(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// One line on stderr per refused file, whatever the reason holds: a C library's message
    /// may span lines (libheif's do), and a script reads one refusal per line.
    private mutating func refuse(_ path: String, _ reason: String) {
        summary.refused += 1
        let oneLine = reason.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        FileHandle.standardError.write(Data("refused \(path): \(oneLine)\n".utf8))
    }
}
