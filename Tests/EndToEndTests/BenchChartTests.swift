import Foundation
import PhotoLibTestSupport
import XCTest

#if canImport(FoundationXML)
    import FoundationXML  // XMLParser lives here on Linux
#endif

/// `photolib bench changes|images --chart FILE.svg` against a real server: each writes an SVG
/// that parses as XML and draws the four percentile lines (p50, p90, p99, max) and a histogram.
final class BenchChartTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: ServerProcess?

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("photolib-e2e-bench-chart")
        server = try ServerProcess.start(
            importing: [Paths.sampleBaseline, Paths.portrait, Paths.packageRoot + "/Tests/Fixtures/media/video-plain.mp4"], library: directory.file("library"))
    }

    override func tearDown() {
        server?.stopGracefully()
        server = nil
        directory?.remove()
    }

    /// A run in which every request fails exits non-zero (it printed zero latencies and
    /// exited 0), and `bench busy --json` prints one JSON document (it printed text).
    func testFailedRunsFailAndBusyPrintsJSON() throws {
        let server = try XCTUnwrap(server)
        let failing = try runCLI(["bench", "images", "--requests", "5", "--asset", "00000000-0000-0000-0000-000000000000/L0/001"], server: server, timeout: 120)
        XCTAssertFalse(failing.succeeded, "\(failing)")
        XCTAssertTrue(failing.stderr.contains("every request failed"), "\(failing)")
        let busy = try runCLI(["bench", "busy", "--clients", "2", "--duration", "1", "--json"], server: server, timeout: 120)
        XCTAssertTrue(busy.succeeded, "\(busy)")
        let object = try JSONSerialization.jsonObject(with: Data(busy.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(object?["clients"] as? Int, 2, busy.stdout)
        XCTAssertNotNil(object?["fetches"], busy.stdout)
        // Its exports are of each asset's original: a video's too (it asked a video for a
        // photo, NOT_FOUND, and counted that as an error).
        XCTAssertEqual(object?["errors"] as? Int, 0, busy.stdout)
    }

    /// Each run's copies are new photos: a second run imports as many as the first (its
    /// copies deduplicated against the first run's, so it measured no writes).
    func testImportFetchImportsNewPhotosInEveryRun() throws {
        let server = try XCTUnwrap(server)
        let before = try assetCount(server)
        for run in 1...2 {
            let result = try runCLI(["bench", "import-fetch", "--photo", Paths.portrait, "--count", "3", "--baseline-runs", "2"], server: server, timeout: 120)
            XCTAssertTrue(result.succeeded, "\(result)")
            XCTAssertEqual(try assetCount(server), before + 3 * run, "run \(run)")
        }
    }

    /// On a small library the first and last pages coincide: each is measured and printed once.
    func testBenchFetchPrintsEachMeasurementOnce() throws {
        let server = try XCTUnwrap(server)
        let result = try runCLI(["bench", "fetch", "--runs", "3", "--warmup", "0"], server: server, timeout: 120)
        XCTAssertTrue(result.succeeded, "\(result)")
        let names = result.stdout.split(separator: "\n").map { String($0.prefix(58)).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        XCTAssertEqual(names.count, Set(names).count, "a line printed twice: \(result.stdout)")
        XCTAssertTrue(result.stdout.contains("FetchResultObjects 100 assets at offset 0"), result.stdout)
    }

    private struct Row: Decodable { var localIdentifier: String }

    /// How many assets `photolib ls` lists.
    private func assetCount(_ server: ServerProcess) throws -> Int {
        try runCLIJSON([Row].self, ["ls", "--json", "--limit", "1000"], server: server).count
    }

    func testBenchChangesAndImagesDrawCharts() throws {
        let server = try XCTUnwrap(server)
        let changes = directory.file("changes.svg"), images = directory.file("images.svg")

        let changesRun = try runCLI(["bench", "changes", "--subscribers", "2", "--toggles", "5", "--chart", changes], server: server, timeout: 120)
        XCTAssertTrue(changesRun.succeeded, "\(changesRun)")
        try assertChart(at: changes)
        let changesSVG = try String(contentsOfFile: changes, encoding: .utf8)
        XCTAssertTrue(changesSVG.contains("notifications, logarithmic"), "the histogram counts notifications")

        let imagesRun = try runCLI(["bench", "images", "--size", "128x128", "--concurrency", "2", "--requests", "20", "--chart", images], server: server, timeout: 120)
        XCTAssertTrue(imagesRun.succeeded, "\(imagesRun)")
        XCTAssertTrue(imagesRun.stdout.contains("20 requests, 0 errors"), imagesRun.stdout)
        try assertChart(at: images)
        let imagesSVG = try String(contentsOfFile: images, encoding: .utf8)
        XCTAssertTrue(imagesSVG.contains("requests, logarithmic"), "the histogram counts requests")
        XCTAssertNil(imagesSVG.range(of: #"windows of [0-9.]+e-"#, options: .regularExpression), "a window's length in µs or ms, not 2.4e-05 s")
    }

    /// The file at `path` parses as XML, has an `<svg>` root, 4 polylines and at least one
    /// histogram bar (a `<rect>` with a `<title>`: its count).
    private func assertChart(at path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let data = try XCTUnwrap(FileManager.default.contents(atPath: path), "\(path) was not written", file: file, line: line)
        let counter = SVGElementCounter()
        let parser = XMLParser(data: data)
        parser.delegate = counter
        XCTAssertTrue(parser.parse(), "\(path) is not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "?")", file: file, line: line)
        XCTAssertEqual(counter.root, "svg", file: file, line: line)
        XCTAssertEqual(counter.polylines, 4, "p50, p90, p99 and max lines", file: file, line: line)
        XCTAssertGreaterThanOrEqual(counter.bars, 1, "histogram bars", file: file, line: line)
    }
}

/// Counts the elements of an SVG document that the chart tests look for.
private final class SVGElementCounter: NSObject, XMLParserDelegate {
    var root: String?
    var polylines = 0
    /// `<rect>` elements holding a `<title>` (the histogram's bars; frames and the background have none).
    var bars = 0
    private var openRect = false

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        if root == nil { root = name }
        switch name {
        case "polyline": polylines += 1
        case "rect": openRect = true
        case "title" where openRect: bars += 1
        default: break
        }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "rect" { openRect = false }
    }
}
