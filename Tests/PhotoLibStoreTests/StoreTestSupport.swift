import Foundation
import PhotoLibCore
@testable import PhotoLibStore

#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under the system temp directory, removed by `cleanUp()`.
struct TemporaryDirectory {
    /// The directory's path.
    let path: String

    /// Creates a unique, empty directory.
    init() throws {
        var template = Array((NSTemporaryDirectory() + "/photolib-store-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw PhotoLibError(.internalError, "mkdtemp failed") }
        path = String(cString: made)
    }

    /// A library directory inside this one (not created: `open` creates it).
    var library: String { path + "/Library" }

    /// Removes the directory and everything in it.
    func cleanUp() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The sample JPEGs shipped with the repository, found relative to this file.
enum SamplePhotos {
    /// `Tests/PhotoLibStoreTests/` → the repository root.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every sample JPEG, sorted by path.
    static func paths() -> [String] {
        ["Samples/photos", "Tests/Fixtures/photos"].flatMap { folder -> [String] in
            let directory = root.appendingPathComponent(folder).path
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            return names.filter { $0.hasSuffix(".jpg") }.sorted().map { directory + "/" + $0 }
        }
    }

    /// The bytes of the sample at `index`.
    static func bytes(_ index: Int) throws -> [UInt8] {
        let all = paths()
        guard all.count > index else { throw PhotoLibError(.notFound, "only \(all.count) sample photos under \(root.path)") }
        return Array(try Data(contentsOf: URL(fileURLWithPath: all[index])))
    }

    /// Metadata for a sample, passed explicitly (the store does not parse images).
    static func metadata(_ name: String = "IMG_0001.JPG", date: TimeInterval = 1_600_000_000) -> ImportMetadata {
        ImportMetadata(
            originalFilename: name, pixelWidth: 5312, pixelHeight: 2988, creationDate: Date(timeIntervalSince1970: date),
            location: Location(latitude: 48.8566, longitude: 2.3522, altitude: 35))
    }
}

/// Regular files under `directory`, recursively, relative to it, sorted.
func regularFiles(under directory: String) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
    var files: [String] = []
    while let relative = enumerator.nextObject() as? String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory + "/" + relative, isDirectory: &isDirectory), !isDirectory.boolValue {
            files.append(relative)
        }
    }
    return files.sorted()
}

/// Runs `body` with the error it throws, failing when it throws nothing.
func thrownError(_ body: () throws(PhotoLibError) -> Void) -> PhotoLibError? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}
