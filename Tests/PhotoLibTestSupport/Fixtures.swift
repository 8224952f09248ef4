import Foundation

/// Absolute paths of the photos checked into the repository, for tests.
///
/// - `Samples/photos/`: two CC0 5312×2988 photos (baseline and progressive, 4:2:0).
/// - `Tests/Fixtures/photos/`: a 4352×2448 progressive 4:2:2 landscape and a
///   2560×3837 progressive 4:2:2 portrait.
///
/// None of them carries EXIF; use ``ExifFixture`` to derive variants that do.
public enum Fixtures {
    /// The package root (the folder holding `Package.swift`), found from this file's path.
    public static let packageRoot: String = {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // PhotoLibTestSupport
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // root
            .path
    }()

    /// `Samples/photos/*.jpg`, sorted by name (baseline `d01_…` first, progressive `p02_…`).
    public static var samplePhotos: [String] {
        jpegs(in: "Samples/photos")
    }

    /// `Tests/Fixtures/photos/*.jpg`, sorted by name (landscape `p05_…`, portrait `p06_…`).
    public static var testPhotos: [String] {
        jpegs(in: "Tests/Fixtures/photos")
    }

    /// The 5312×2988 baseline 4:2:0 sample photo.
    public static var baselineLandscape: String { path("Samples/photos/d01_seeding_5312x2988_base420_q85.jpg") }
    /// The 5312×2988 progressive 4:2:0 sample photo.
    public static var progressiveLandscape: String { path("Samples/photos/p02_seeding_5312x2988_prog420_q85.jpg") }
    /// The 4352×2448 progressive 4:2:2 landscape test photo.
    public static var landscape: String { path("Tests/Fixtures/photos/p05_bridge_4352x2448_prog422_q90.jpg") }
    /// The 2560×3837 progressive 4:2:2 portrait test photo.
    public static var portrait: String { path("Tests/Fixtures/photos/p06_wine_2560x3837_prog422_q70.jpg") }

    /// The absolute path of `relativePath` under the package root.
    public static func path(_ relativePath: String) -> String {
        packageRoot + "/" + relativePath
    }

    /// The bytes of the file at `path`.
    public static func bytes(at path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private static func jpegs(in relativeFolder: String) -> [String] {
        let folder = path(relativeFolder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.lowercased().hasSuffix(".jpg") }.sorted().map { folder + "/" + $0 }
    }
}
