import Foundation
import PhotoLibCore

#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under the system temp directory, removed by `cleanUp()`.
public struct TestDirectory: Sendable {
    /// The directory's path.
    public let path: String

    /// Creates a unique, empty directory.
    public init() throws {
        var template = Array((NSTemporaryDirectory() + "/photolib-test-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw PhotoLibError(.internalError, "mkdtemp failed") }
        path = String(cString: made)
    }

    /// A library directory inside this one (not created: `PhotoLibrary.open` creates it).
    public var library: String { path + "/Library" }

    /// Removes the directory and everything in it.
    public func cleanUp() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs `body` and returns the error it throws, or `nil` when it throws nothing.
public func thrownError(_ body: () throws(PhotoLibError) -> Void) -> PhotoLibError? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}

extension Fixtures {
    /// Distinct JPEG bytes for `index`: a sample photo followed by a trailer after its EOI
    /// marker (decoders ignore it; the store only hashes it), so every index has its own
    /// SHA-256.
    public static func uniqueJPEG(_ index: Int) throws -> [UInt8] {
        let photos = samplePhotos + testPhotos
        return try bytes(at: photos[index % photos.count]) + Array("photolib-test-\(index)".utf8)
    }
}
