import Foundation
import XCTest

/// Where the package, the built binaries and the checked-in photos are, found from this
/// file's path (`Tests/EndToEndTests/Support/Paths.swift`).
enum Paths {
    /// The package root (the folder holding `Package.swift`).
    static let packageRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // EndToEndTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // root
        .path

    /// Where the binaries of the build configuration under test are: the folder of the
    /// running test executable (`swift test -c release` runs the release products, and a
    /// `--scratch-path` build its own), else `.build/debug`.
    static let binDirectory: String = {
        let testExecutable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        var folder = testExecutable.deletingLastPathComponent()
        // On Darwin the executable sits inside PhotoLibPackageTests.xctest/Contents/MacOS.
        while folder.path.contains(".xctest") { folder = folder.deletingLastPathComponent() }
        if FileManager.default.isExecutableFile(atPath: folder.path + "/photolibd") { return folder.path }
        return packageRoot + "/.build/debug"
    }()

    /// The built `photolibd`.
    static var photolibd: String { binDirectory + "/photolibd" }

    /// The built `photolib`.
    static var photolib: String { binDirectory + "/photolib" }

    /// The path of a built executable; throws a clear message when it is missing.
    static func executable(_ path: String) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw E2EError("\(path) is missing: the end-to-end tests run the built binaries — run `swift build` before `swift test`")
        }
        return path
    }

    /// The 5312×2988 baseline sample photo.
    static var sampleBaseline: String { packageRoot + "/Samples/photos/d01_seeding_5312x2988_base420_q85.jpg" }
    /// The 5312×2988 progressive sample photo.
    static var sampleProgressive: String { packageRoot + "/Samples/photos/p02_seeding_5312x2988_prog420_q85.jpg" }
    /// The 4352×2448 landscape test photo.
    static var landscape: String { packageRoot + "/Tests/Fixtures/photos/p05_bridge_4352x2448_prog422_q90.jpg" }
    /// The 2560×3837 portrait test photo.
    static var portrait: String { packageRoot + "/Tests/Fixtures/photos/p06_wine_2560x3837_prog422_q70.jpg" }
    /// The four checked-in photos.
    static var fourPhotos: [String] { [sampleBaseline, sampleProgressive, landscape, portrait] }
}

/// A failure of the test harness itself (a missing binary, a timeout), with a clear message.
struct E2EError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A temporary directory removed by ``remove()``.
final class TemporaryDirectory: @unchecked Sendable {
    let path: String

    init(_ prefix: String = "photolib-e2e") throws {
        var template = Array((NSTemporaryDirectory() + "/\(prefix)-XXXXXX").utf8CString)
        guard let result = mkdtemp(&template) else { throw E2EError("mkdtemp failed: errno \(errno)") }
        path = String(cString: result)
    }

    /// `path/name`.
    func file(_ name: String) -> String { path + "/" + name }

    /// Creates and returns the sub-folder `name`.
    func folder(_ name: String) throws -> String {
        let folder = file(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Writes `bytes` to `path/name` and returns the full path.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let target = file(name)
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        return target
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Reads a file's bytes.
func readBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Polls `condition` every 10 ms until it holds or `timeout` seconds pass.
@discardableResult
func waitUntil(timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}
