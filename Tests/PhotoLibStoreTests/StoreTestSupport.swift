import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

#if canImport(Glibc)
import Glibc
#endif

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

extension SamplePhotos {
    /// Distinct JPEG bytes for `index`: a sample followed by a trailer after its EOI marker
    /// (decoders ignore it; the store only hashes it), so that every index has its own SHA-256.
    static func uniqueBytes(_ index: Int) throws -> [UInt8] {
        let count = paths().count
        guard count > 0 else { throw PhotoLibError(.notFound, "no sample photos under \(root.path)") }
        return try bytes(index % count) + Array("photolib-test-\(index)".utf8)
    }
}

extension PhotoLibrary {
    /// Every row of every table (SQLite's own included), as text, sorted: two equal dumps
    /// mean two equal databases.
    func dumpForTesting() throws -> [String: [String]] {
        try read { (database) throws(PhotoLibError) in
            let tables = try database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").rows { $0.text(0) }
            var dump: [String: [String]] = [:]
            for table in tables {
                let columns = try database.prepareUncached("SELECT name FROM pragma_table_info('\(table)')").rows { $0.text(0) }
                let expression = columns.map { "quote(\"\($0)\")" }.joined(separator: " || '|' || ")
                dump[table] = try database.prepareUncached("SELECT \(expression) FROM \"\(table)\" ORDER BY 1").rows { $0.text(0) }
            }
            return dump
        }
    }

    /// Stages distinct sample bytes and creates one asset per index in one batch; returns
    /// the new identifiers in order.
    func createAssetsForTesting(_ indexes: Range<Int>, date: TimeInterval = 1_600_000_000) throws -> [String] {
        var requests: [ChangeRequest] = []
        for index in indexes {
            let upload = try stageUpload(
                try SamplePhotos.uniqueBytes(index), metadata: SamplePhotos.metadata("IMG_\(index).JPG", date: date + Double(index)))
            requests.append(.createAsset(.init(uploadID: upload.uploadID, placeholder: "$a\(index)")))
        }
        let result = try performChanges(requests)
        return indexes.map { result.placeholders["$a\($0)"] ?? "missing" }
    }
}

/// Expects `body` to throw a ``PhotoLibError`` and returns it (records an issue otherwise).
func expectError(_ body: () throws(PhotoLibError) -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> PhotoLibError {
    if let error = thrownError(body) { return error }
    Issue.record("expected an error, got success", sourceLocation: sourceLocation)
    return PhotoLibError(.ok, "no error")
}
