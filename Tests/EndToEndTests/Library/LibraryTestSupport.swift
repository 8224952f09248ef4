import Foundation
import PhotoLibClient
import PhotoLibTestSupport
import XCTest

/// A server over a library holding one imported photo (the landscape test photo), plus the
/// tools to fill it quickly with many small, distinct photos uploaded through the client.
final class UploadLibrary: @unchecked Sendable {
    let directory: TemporaryDirectory
    let server: ServerProcess
    /// The identifier of the imported landscape photo.
    let landscapeID: String
    /// The library directory.
    var libraryPath: String { server.library }

    init(_ name: String, serverArguments: [String] = []) throws {
        directory = try TemporaryDirectory("photolib-e2e-\(name)")
        do {
            let library = directory.file("library")
            let result = try ServerProcess.importPhotos(library: library, [Paths.landscape])
            guard result.succeeded, let id = ImportOutput(result).added[Paths.landscape] else { throw E2EError("photolibd import failed: \(result)") }
            landscapeID = id
            server = try ServerProcess.start(library: library, extraArguments: serverArguments)
        } catch {
            directory.remove()
            throw error
        }
    }

    func shutDown() {
        if server.terminate(timeout: 15) == nil { print("warning: photolibd did not exit within 15 s of SIGTERM and was killed") }
        directory.remove()
    }

    /// Small JPEGs rendered by the server from the landscape photo (one per size), so that
    /// uploads are cheap: `[48x32 fill, 40x40 fill, 36x64 fill]`.
    func smallBases(_ library: PhotoLibrary) async throws -> [[UInt8]] {
        var bases: [[UInt8]] = []
        for (width, height) in [(48, 32), (40, 40), (36, 64)] {
            let image = try await fetchImage(library, landscapeID, width, height, .aspectFill)
            guard startsWithSOI(image.data) else { throw E2EError("the server's rendering is not a JPEG") }
            bases.append(image.data)
        }
        return bases
    }

    /// The files under `DIR/originals`, relative and sorted.
    func originals() -> [String] {
        let root = libraryPath + "/originals"
        var files: [String] = []
        let walker = FileManager.default.enumerator(atPath: root)
        while let relative = walker?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(relative)
            }
        }
        return files.sorted()
    }
}

/// One photo to upload: bytes and the properties to create it with.
struct PhotoToCreate {
    var bytes: [UInt8]
    var filename: String
    var creationDate: Date? = nil
    var isFavorite = false
    var isHidden = false
}

/// A distinct variant of `base`: optional EXIF (date, orientation), and a COM segment with `tag`.
func photoVariant(_ base: [UInt8], tag: String, exifDate: String? = nil, orientation: Int? = nil) -> [UInt8] {
    var bytes = base
    if exifDate != nil || orientation != nil {
        bytes = ExifFixture.jpegWithExif(bytes, orientation: orientation, dateTimeOriginal: exifDate)
    }
    return PhotoVariants.withComment(bytes, "photolib-e2e variant \(tag)")
}

/// Uploads every photo (staged), then creates them all in batches of at most 1000 requests;
/// returns the new identifiers in the order of `photos`.
func createAssets(_ library: PhotoLibrary, _ photos: [PhotoToCreate]) async throws -> [String] {
    var identifiers: [String] = []
    var start = 0
    while start < photos.count {
        let chunk = Array(photos[start..<min(photos.count, start + ChangeLimits.maxRequests)])
        var requests: [ChangeRequest] = []
        for (index, photo) in chunk.enumerated() {
            let upload = try await withTimeout(30, "upload of \(photo.filename)") { try await library.upload(photo.bytes, filename: photo.filename) }
            guard upload.existingAssetIdentifier == nil else { throw E2EError("\(photo.filename) was already in the library") }
            requests.append(.createAsset(.init(uploadID: upload.uploadID, placeholder: "$p\(index)", creationDate: photo.creationDate, isFavorite: photo.isFavorite, isHidden: photo.isHidden)))
        }
        let batch = requests
        let result = try await withTimeout(60, "performChanges creating \(batch.count) assets") { try await library.performChanges(batch) }
        for index in chunk.indices {
            guard let id = result.placeholders["$p\(index)"] else { throw E2EError("placeholder $p\(index) not resolved: \(result.placeholders.count) resolved") }
            identifiers.append(id)
        }
        start += chunk.count
    }
    return identifiers
}

/// Every asset, hidden included, through the client.
func fetchEveryAsset(_ library: PhotoLibrary) async throws -> [Asset] {
    try await withTimeout(60, "fetchAssets(includeHiddenAssets: true)") {
        try await library.fetchAssets(with: FetchOptions(includeHiddenAssets: true)).allObjects()
    }
}

/// Asserts that `error` is a `PhotoLibError` with `code` (and `reason`, when given).
func assertPhotoLibError(_ error: any Error, _ code: StatusCode, reason: ErrorReason? = nil, _ context: String = "", file: StaticString = #filePath, line: UInt = #line) {
    guard let error = error as? PhotoLibError else {
        XCTFail("\(context): expected a PhotoLibError \(code), got \(error)", file: file, line: line)
        return
    }
    XCTAssertEqual(error.code, code, "\(context): \(error)", file: file, line: line)
    if let reason { XCTAssertEqual(error.reason, reason, "\(context): \(error)", file: file, line: line) }
}

/// Runs `body` and asserts it throws a `PhotoLibError` with `code` (and `reason`).
func assertThrowsPhotoLibError<T>(_ code: StatusCode, reason: ErrorReason? = nil, _ context: String, file: StaticString = #filePath, line: UInt = #line, _ body: () async throws -> T) async {
    do {
        let value = try await body()
        XCTFail("\(context): expected \(code), got \(value)", file: file, line: line)
    } catch {
        assertPhotoLibError(error, code, reason: reason, context, file: file, line: line)
    }
}

/// Runs the CLI, asserts a non-zero exit and that stderr says `expected` (case-sensitive
/// substrings); returns the result.
@discardableResult
func runCLIFailing(_ arguments: [String], server: ServerProcess, saying expected: [String], file: StaticString = #filePath, line: UInt = #line) throws -> ProcessResult {
    let result = try runCLI(arguments, server: server)
    XCTAssertFalse(result.succeeded, "photolib \(arguments.joined(separator: " ")) should fail: \(result)", file: file, line: line)
    XCTAssertFalse(result.signalled, "photolib crashed: \(result)", file: file, line: line)
    for text in expected {
        XCTAssertTrue(result.stderr.contains(text), "photolib \(arguments.joined(separator: " ")): stderr should say \(text.debugDescription): \(result)", file: file, line: line)
    }
    return result
}
