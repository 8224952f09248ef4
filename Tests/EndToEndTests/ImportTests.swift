import Foundation
import PhotoLibTestSupport
import XCTest

/// `photolibd import` as a user runs it, into a fresh library per test, checked through a real
/// server and `photolib ls --json`.
final class ImportTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: ServerProcess?

    override func setUpWithError() throws {
        _ = try Paths.executable(Paths.photolibd)
        _ = try Paths.executable(Paths.photolib)
        directory = try TemporaryDirectory("photolib-e2e-import")
    }

    override func tearDown() {
        server?.stopGracefully()
        server = nil
        directory?.remove()
    }

    private var library: String { directory.file("library") }

    func testImportAddsFourPhotosAndReimportAddsNothing() throws {
        let first = try ServerProcess.importPhotos(library: library, Paths.fourPhotos)
        XCTAssertTrue(first.succeeded, "\(first)")
        let added = ImportOutput(first).added
        XCTAssertEqual(Set(added.keys), Set(Paths.fourPhotos), "one 'added' line per photo: \(first)")
        XCTAssertEqual(Set(added.values).count, 4, "four distinct identifiers")
        XCTAssertTrue(first.stdout.contains("imported 4, already present 0, refused 0"), "\(first)")
        XCTAssertEqual(first.stderr, "", "a clean import prints nothing on stderr")

        // Again, plus the sample folder: everything is already there.
        let second = try ServerProcess.importPhotos(library: library, Paths.fourPhotos + [Paths.packageRoot + "/Samples/photos"])
        XCTAssertTrue(second.succeeded, "\(second)")
        let again = ImportOutput(second)
        XCTAssertTrue(again.added.isEmpty, "nothing new may be added: \(second)")
        XCTAssertEqual(second.stdoutLines.filter { $0.hasPrefix("already present ") }.count, 6, "\(second)")
        for path in Paths.fourPhotos {
            XCTAssertEqual(again.alreadyPresent[path], added[path], "re-import names the existing asset of \(path)")
        }
        XCTAssertTrue(second.stdout.contains("imported 0, already present 6, refused 0"), "\(second)")

        server = try ServerProcess.start(library: library)
        let assets = try listAssets(server!)
        XCTAssertEqual(assets.count, 4)
        XCTAssertEqual(Set(assets.map(\.localIdentifier)), Set(added.values))
    }

    func testRefusesNonJPEGTruncatedAndDamagedFilesButImportsTheRest() throws {
        let photo = try readBytes(Paths.sampleBaseline)
        let notJPEG = try directory.write("in/notes.txt", Array("these are not pixels\n".utf8))
        let truncated = try directory.write("in/truncated.jpg", Array(photo.prefix(photo.count * 6 / 10)))
        let damaged = try directory.write("in/damaged.jpg", PhotoVariants.damaged(photo))
        let bad = [notJPEG, truncated, damaged]
        let good = [Paths.landscape, Paths.portrait]

        let result = try ServerProcess.importPhotos(library: library, [good[0], notJPEG, truncated, good[1], damaged])
        XCTAssertFalse(result.succeeded, "a refused file must make the exit status non-zero: \(result)")
        XCTAssertFalse(result.signalled, "import must not crash: \(result)")
        let lines = result.stderrLines
        XCTAssertEqual(lines.count, 3, "exactly one stderr line per refused file: \(result)")
        for path in bad {
            XCTAssertEqual(lines.filter { $0.contains(path) }.count, 1, "one stderr line names \(path): \(lines)")
        }
        let output = ImportOutput(result)
        XCTAssertEqual(Set(output.added.keys), Set(good), "the good photos are imported: \(result)")
        XCTAssertTrue(result.stdout.contains("imported 2, already present 0, refused 3"), "\(result)")

        // Refused files left nothing behind: the library holds just the two good photos.
        server = try ServerProcess.start(library: library)
        XCTAssertEqual(Set(try listAssets(server!).map(\.localIdentifier)), Set(output.added.values))
    }

    func testExifDateAndGPSBecomeCreationDateAndLocation() throws {
        let landscape = try readBytes(Paths.landscape)
        let portrait = try readBytes(Paths.portrait)
        let paris = try directory.write("in/paris.jpg", ExifFixture.jpegWithExif(
            landscape, dateTimeOriginal: "2019:07:14 10:30:00", offset: "+02:00", gps: (lat: 48.858370, lon: 2.294481), altitude: 35.5))
        let sydney = try directory.write("in/sydney.jpg", ExifFixture.jpegWithExif(
            portrait, dateTimeOriginal: "2021:01:02 03:04:05", gps: (lat: -33.856784, lon: 151.215297), bigEndian: true))
        let newYork = try directory.write("in/new-york.jpg", ExifFixture.jpegWithExif(
            landscape, dateTimeOriginal: "2001:02:03 04:05:06", offset: "-05:00", gps: (lat: 40.689247, lon: -74.044502)))
        let plain = Paths.sampleBaseline
        let result = try ServerProcess.importPhotos(library: library, [paris, sydney, newYork, plain])
        XCTAssertTrue(result.succeeded, "\(result)")
        let ids = ImportOutput(result).added
        XCTAssertEqual(ids.count, 4, "\(result)")

        server = try ServerProcess.start(library: library)
        let assets = Dictionary(uniqueKeysWithValues: try listAssets(server!).map { ($0.localIdentifier, $0) })
        XCTAssertEqual(assets.count, 4)

        func check(_ path: String, date: String, lat: Double, lon: Double, altitude: Double?, line: UInt = #line) {
            guard let id = ids[path], let asset = assets[id] else { return XCTFail("\(path) is not listed", line: line) }
            XCTAssertEqual(parseISO8601(asset.creationDate), parseISO8601(date), "creationDate of \(path) is \(asset.creationDate)", line: line)
            guard let location = asset.location else { return XCTFail("\(path) has no location", line: line) }
            XCTAssertEqual(location.latitude, lat, accuracy: 1e-5, "latitude of \(path)", line: line)
            XCTAssertEqual(location.longitude, lon, accuracy: 1e-5, "longitude of \(path)", line: line)
            if let altitude {
                XCTAssertEqual(location.altitude ?? .nan, altitude, accuracy: 0.01, "altitude of \(path)", line: line)
            }
        }
        check(paris, date: "2019-07-14T08:30:00Z", lat: 48.858370, lon: 2.294481, altitude: 35.5)
        check(sydney, date: "2021-01-02T03:04:05Z", lat: -33.856784, lon: 151.215297, altitude: nil)  // no offset: UTC
        check(newYork, date: "2001-02-03T09:05:06Z", lat: 40.689247, lon: -74.044502, altitude: nil)
        // The creation date is printed as ISO 8601 in UTC.
        if let id = ids[paris] { XCTAssertEqual(assets[id]?.creationDate, "2019-07-14T08:30:00Z") }
        // Without EXIF there is no location (JSON null).
        if let id = ids[plain] { XCTAssertNil(assets[id]?.location) }
    }

    func testPixelSizeIsTheUprightSizeAfterExifOrientation() throws {
        let portrait = try readBytes(Paths.portrait)
        let landscape = try readBytes(Paths.landscape)
        var paths: [String: (Int, Int)] = [:]
        paths[try directory.write("in/portrait-6.jpg", ExifFixture.jpegWithExif(portrait, orientation: 6))] = (3837, 2560)
        paths[try directory.write("in/portrait-8.jpg", ExifFixture.jpegWithExif(portrait, orientation: 8))] = (3837, 2560)
        paths[try directory.write("in/portrait-3.jpg", ExifFixture.jpegWithExif(portrait, orientation: 3))] = (2560, 3837)
        paths[try directory.write("in/landscape-6.jpg", ExifFixture.jpegWithExif(landscape, orientation: 6))] = (2448, 4352)
        paths[try directory.write("in/landscape-1.jpg", ExifFixture.jpegWithExif(landscape, orientation: 1))] = (4352, 2448)
        paths[Paths.portrait] = (2560, 3837)
        let result = try ServerProcess.importPhotos(library: library, Array(paths.keys))
        XCTAssertTrue(result.succeeded, "\(result)")
        let ids = ImportOutput(result).added
        XCTAssertEqual(ids.count, paths.count, "\(result)")

        server = try ServerProcess.start(library: library)
        let assets = Dictionary(uniqueKeysWithValues: try listAssets(server!).map { ($0.localIdentifier, $0) })
        for (path, size) in paths {
            guard let id = ids[path], let asset = assets[id] else {
                XCTFail("\(path) is not listed")
                continue
            }
            XCTAssertEqual(asset.pixelWidth, size.0, "pixelWidth of \((path as NSString).lastPathComponent)")
            XCTAssertEqual(asset.pixelHeight, size.1, "pixelHeight of \((path as NSString).lastPathComponent)")
        }
    }
}
