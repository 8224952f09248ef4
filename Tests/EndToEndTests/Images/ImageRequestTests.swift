import Foundation
import PhotoLibClient
import XCTest

/// Image requests end to end against a real `photolibd`: every option's effect, opportunistic
/// order and flags, cancellation stopping the server's work, hostile files, cache
/// invalidation, caching manager, resources and resumable, byte-exact exports.
final class ImageRequestTests: XCTestCase {
    private var fixture: LibraryFixture!
    private var server: ServerProcess { fixture.server }
    private var directory: TemporaryDirectory { fixture.directory }

    override func setUpWithError() throws {
        fixture = try LibraryFixture("images", photos: Paths.fourPhotos, serverArguments: ["--log-level", "debug"])
    }

    override func tearDown() {
        fixture?.stopAndRemove()
        fixture = nil
    }

    private func id(_ path: String) throws -> String { try fixture.identifier(path) }

    /// The original file of an asset inside the library (FileStore's layout).
    private func originalPath(_ identifier: String) -> String {
        let uuid = identifier.prefix(while: { $0 != "/" }).lowercased()
        return server.library + "/originals/\(uuid.prefix(2))/\(uuid).jpg"
    }

    /// Every image of one request, in order.
    private func images(
        _ library: PhotoLibrary, _ identifier: String, _ size: PixelSize, _ mode: ContentMode = .aspectFit,
        _ options: ImageRequestOptions, bypassCache: Bool = false
    ) async throws -> [DeliveredImage] {
        var manager = library.imageManager
        manager.bypassCache = bypassCache
        let captured = manager
        return try await withTimeout(60, "images of \(identifier)") {
            var all: [DeliveredImage] = []
            for try await image in try await captured.requestImage(forAssetIdentifier: identifier, targetSize: size, contentMode: mode, options: options) {
                all.append(image)
            }
            return all
        }
    }

    func testEachOptionShapesTheDeliveredImage() async throws {
        let library = try await connectClient(server)
        defer { library.close() }
        let baseline = try id(Paths.sampleBaseline)
        let high = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact)
        func single(_ size: PixelSize, _ mode: ContentMode = .aspectFit, _ options: ImageRequestOptions) async throws -> DeliveredImage {
            let all = try await images(library, baseline, size, mode, options)
            XCTAssertEqual(all.count, 1)
            let image = try XCTUnwrap(all.last)
            XCTAssertEqual(JPEGSize(jpeg: image.data), JPEGSize(width: image.width, height: image.height), "announced size is the JPEG's")
            return image
        }
        let fit = try await single(PixelSize(width: 300, height: 300), .aspectFit, high)
        XCTAssertEqual([fit.width, fit.height], [300, 169])
        let fill = try await single(PixelSize(width: 300, height: 300), .aspectFill, high)
        XCTAssertEqual([fill.width, fill.height], [533, 300])
        let maximum = try await single(.maximum, .aspectFit, high)
        XCTAssertEqual([maximum.width, maximum.height], [5312, 2988])
        var none = high
        none.resizeMode = .none
        let stored = try await single(PixelSize(width: 100, height: 100), .aspectFit, none)
        XCTAssertEqual([stored.width, stored.height], [5312, 2988], "resize none ignores the target")
        var fast = high
        fast.resizeMode = .fast
        let quick = try await single(PixelSize(width: 600, height: 600), .aspectFit, fast)
        XCTAssertEqual([quick.width, quick.height], [664, 374], "fast returns the 1/8 decode (within 2x of 600x338)")
        var cropped = high
        cropped.normalizedCropRect = NormalizedRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5)
        let crop = try await single(PixelSize(width: 0, height: 0), .aspectFit, cropped)
        XCTAssertEqual([crop.width, crop.height], [2656, 1494], "the bottom-right quarter at full size")
        var original = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .none, version: .original)
        let bytes = try await single(.maximum, .aspectFit, original)
        XCTAssertEqual(bytes.data, try readBytes(Paths.sampleBaseline), "version original at maximum size is the original file")
        original.normalizedCropRect = NormalizedRect(x: 0, y: 0, width: 2, height: 1)
        do {
            _ = try await images(library, baseline, .maximum, .aspectFit, original)
            XCTFail("a crop outside the unit square must fail")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .invalidArgument)
        }
    }

    func testOpportunisticDeliversDegradedThenFinalAndFastDeliversOne() async throws {
        let library = try await connectClient(server)
        defer { library.close() }
        let progressive = try id(Paths.sampleProgressive)
        let size = PixelSize(width: 1024, height: 1024)
        let two = try await images(library, progressive, size, .aspectFit, ImageRequestOptions(deliveryMode: .opportunistic, resizeMode: .exact), bypassCache: true)
        XCTAssertEqual(two.map(\.isDegraded), [true, false], "degraded first, then final")
        XCTAssertEqual(two.map(\.isFinal), [false, true])
        XCTAssertEqual(two.map { [$0.width, $0.height] }, [[664, 374], [1024, 576]])
        let one = try await images(library, progressive, PixelSize(width: 256, height: 256), .aspectFit, ImageRequestOptions(deliveryMode: .fastFormat, resizeMode: .exact), bypassCache: true)
        XCTAssertEqual(one.count, 1)
        XCTAssertEqual(one.first?.isDegraded, false, "at 256 px the final render of a progressive JPEG is its 1/8 decode of the few scans it needs: as cheap as any degraded image")
        XCTAssertEqual(one.first?.isFinal, true)
        XCTAssertEqual(one.first.map { [$0.width, $0.height] }, [256, 144])
        let high = try await images(library, progressive, PixelSize(width: 256, height: 256), .aspectFit, ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact))
        XCTAssertEqual(high.map(\.isDegraded), [false])
        // Cached now: opportunistic answers with the final image only.
        let cached = try await images(library, progressive, PixelSize(width: 256, height: 256), .aspectFit, ImageRequestOptions(deliveryMode: .opportunistic, resizeMode: .exact))
        XCTAssertEqual(cached.map(\.isDegraded), [false])
        XCTAssertEqual(cached.first?.data, high.first?.data)
    }

    func testCancelByRequestIDStopsTheServersWork() async throws {
        let library = try await connectClient(server)
        defer { library.close() }
        let progressive = try id(Paths.sampleProgressive)
        let progress = ProgressFlag()
        let handle = try await library.imageManager.startImageRequest(
            forAssetIdentifier: progressive, targetSize: .maximum,
            options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .none)) { event in
            if case .rendering(let fraction) = event, fraction > 0 { progress.set() }
        }
        let consumer = Task { () -> (any Error)? in
            do {
                for try await _ in handle.images {}
                return nil
            } catch {
                return error
            }
        }
        XCTAssertTrue(waitUntil(timeout: 30) { progress.isSet }, "the server reports decode progress")
        let cancelledAt = Date()
        try await library.imageManager.cancelImageRequest(handle.id)
        let error = await consumer.value
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 2, "the request ends promptly after the cancel")
        XCTAssertEqual((error as? PhotoLibError)?.code, .cancelled, "\(String(describing: error))")
        XCTAssertTrue(waitUntil(timeout: 5) { self.server.log.contains("image render cancelled") }, "the server logs that it stopped rendering\n\(server.log)")
        // The server's CPU goes quiet: less than 0.3 s of CPU over the next second.
        let before = try cpuSeconds(server.pid)
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let after = try cpuSeconds(server.pid)
        XCTAssertLessThan(after - before, 0.3, "the server kept working after the cancel")
        // And it keeps serving.
        let image = try await fetchImage(library, progressive, 64, 64)
        XCTAssertEqual(image.width, 64)
    }

    /// A cancel right after the start, as PhotoKit code does: the request ends `cancelled`
    /// and the cancel does not fail. Before, the cancel (a call of its own) reached the server
    /// before it had seen the request: 9 times in 10 it threw NOT_FOUND and the image came.
    func testCancelRightAfterStartingCancels() async throws {
        let library = try await connectClient(server)
        defer { library.close() }
        var manager = library.imageManager
        manager.bypassCache = true
        let progressive = try id(Paths.sampleProgressive)
        for round in 0..<10 {
            let handle = try await manager.startImageRequest(
                forAssetIdentifier: progressive, targetSize: PixelSize(width: 2000 + round, height: 2000 + round),
                options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact))
            try await manager.cancelImageRequest(handle.id)
            do {
                for try await _ in handle.images {}
                XCTFail("round \(round): the image came after the cancel")
            } catch let error as PhotoLibError {
                XCTAssertEqual(error.code, .cancelled, "round \(round): \(error)")
            }
        }
        // An id this connection never started is still the server's to answer.
        do {
            try await manager.cancelImageRequest(987_654_321)
            XCTFail("an unknown id was cancelled")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .notFound, "\(error)")
        }
    }

    func testHostileFilesAreRefusedAndTheServerKeepsServing() async throws {
        let library = try await connectClient(server)
        defer { library.close() }
        let victim = try id(Paths.landscape)
        let path = originalPath(victim)
        let photo = try readBytes(path)
        XCTAssertEqual(photo, try readBytes(Paths.landscape), "the original file is where the library keeps it")
        func padded(_ bytes: [UInt8]) -> [UInt8] {
            Array((bytes + [UInt8](repeating: 0, count: max(0, photo.count - bytes.count))).prefix(photo.count))
        }
        var hugeDimensions = photo
        if let sof = (0..<(photo.count - 9)).first(where: { photo[$0] == 0xFF && (photo[$0 + 1] == 0xC0 || photo[$0 + 1] == 0xC2) }) {
            hugeDimensions[sof + 5] = 0xFD; hugeDimensions[sof + 6] = 0xE8
            hugeDimensions[sof + 7] = 0xFD; hugeDimensions[sof + 8] = 0xE8
        }
        let hostile: [(String, [UInt8])] = [
            ("truncated", padded(Array(photo.prefix(photo.count / 2)))),
            ("corrupt", PhotoVariants.damaged(photo)),
            ("huge dimensions", hugeDimensions),
            ("scan bomb", padded(try Self.scanBomb())),
            ("not a JPEG", padded(Array("GIF89a this is not a JPEG".utf8))),
        ]
        for (name, bytes) in hostile {
            XCTAssertEqual(bytes.count, photo.count)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let started = Date()
            // The corrupt bytes sit in a luma AC scan, which a 1/8-scale render of a
            // progressive file never decodes (docs/PROGRESSIVE-FAST-PATH.md): ask for a size
            // that reads every scan.
            let side = name == "corrupt" ? 1024 : 256
            do {
                _ = try await images(library, victim, PixelSize(width: side, height: side), .aspectFit, ImageRequestOptions(deliveryMode: .opportunistic, resizeMode: .exact))
                XCTFail("\(name): the request must fail")
            } catch let error as PhotoLibError {
                XCTAssertTrue([.dataLoss, .resourceExhausted].contains(error.code), "\(name): \(error)")
                XCTAssertEqual(error.reason, .invalidImage, "\(name): \(error)")
            }
            XCTAssertLessThan(Date().timeIntervalSince(started), 5, "\(name) is refused fast")
            XCTAssertTrue(server.isRunning, "\(name) must not stop the server")
            let other = try await fetchImage(library, try id(Paths.portrait), 64, 64)
            XCTAssertEqual(other.height, 64, "the server keeps serving after \(name)")
        }
    }

    /// A tiny progressive JPEG (cjpeg) whose first scan is repeated 5000 times.
    static func scanBomb() throws -> [UInt8] {
        let folder = NSTemporaryDirectory() + "/scanbomb-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var ppm = Array("P6\n16 16\n255\n".utf8)
        for index in 0..<(16 * 16) { ppm += [UInt8(index % 256), UInt8(255 - index % 256), 128] }
        try Data(ppm).write(to: URL(fileURLWithPath: folder + "/in.ppm"))
        let result = try ChildProcess.run("/usr/bin/cjpeg", ["-progressive", "-outfile", folder + "/small.jpg", folder + "/in.ppm"])
        guard result.succeeded else { throw E2EError("cjpeg (libjpeg-turbo-progs, Scripts/install-deps) failed: \(result)") }
        let small = try readBytes(folder + "/small.jpg")
        let scans = (2..<(small.count - 1)).filter { small[$0] == 0xFF && small[$0 + 1] == 0xDA }
        guard scans.count >= 2 else { throw E2EError("cjpeg wrote no progressive scans") }
        var bomb = Array(small[..<scans[0]])
        for _ in 0..<5000 { bomb += small[scans[0]..<scans[1]] }
        return bomb + [0xFF, 0xD9]
    }

    func testCacheIsInvalidatedWhenTheContentChanges() async throws {
        let library = try await connectClient(server)
        defer { library.close() }
        let asset = try id(Paths.landscape)
        let before = try await fetchImage(library, asset, 256, 256)
        XCTAssertEqual([before.width, before.height], [256, 144])
        let again = try await fetchImage(library, asset, 256, 256)
        XCTAssertEqual(again.data, before.data, "the second request is answered from the cache")
        // New content (the portrait, padded to the recorded size) replaces the file.
        let path = originalPath(asset)
        let size = try readBytes(path).count
        var portrait = try readBytes(Paths.portrait)
        portrait += [UInt8](repeating: 0, count: size - portrait.count)
        let temporary = path + ".new"
        try Data(portrait).write(to: URL(fileURLWithPath: temporary))
        XCTAssertEqual(rename(temporary, path), 0)
        let after = try await fetchImage(library, asset, 256, 256)
        XCTAssertEqual([after.width, after.height], [171, 256], "the new content is rendered, not the cached image")
    }

    func testCachingManagerPreRendersInTheBackground() async throws {
        let library = try await connectClient(server)
        defer { library.close() }
        let caching = CachingImageManager(library: library)
        let all = Array(fixture.identifiers.values)
        try await caching.startCachingImages(for: all, targetSize: PixelSize(width: 200, height: 200), contentMode: .aspectFill, options: ImageRequestOptions(resizeMode: .exact))
        XCTAssertTrue(waitUntil(timeout: 60) { self.server.log.components(separatedBy: "pre-rendered").count - 1 >= all.count }, "every asset is pre-rendered\n\(server.log)")
        let renders = server.log.components(separatedBy: "image rendered").count
        let image = try await fetchImage(library, all[0], 200, 200, .aspectFill)
        XCTAssertEqual(min(image.width, image.height), 200)
        XCTAssertEqual(server.log.components(separatedBy: "image rendered").count, renders, "the request is served from the pre-rendered cache")
        try await caching.stopCachingImagesForAllAssets()
    }

    func testResourcesAndResumedByteExactExport() async throws {
        let asset = try id(Paths.sampleBaseline)
        let original = try readBytes(Paths.sampleBaseline)
        let resources = try runCLI(["resources", asset, "--json"], server: server)
        XCTAssertTrue(resources.succeeded, "\(resources)")
        XCTAssertTrue(resources.stdout.contains("\"size\" : \(original.count)"), resources.stdout)
        XCTAssertTrue(resources.stdout.contains("d01_seeding_5312x2988_base420_q85.jpg"), resources.stdout)
        // A partial file from an interrupted export: resumed, and the result is exact.
        let output = directory.file("export.jpg")
        try Data(original.prefix(300_000)).write(to: URL(fileURLWithPath: output + ".partial"))
        let resumed = try runCLI(["export", asset, "-o", output, "--json"], server: server)
        XCTAssertTrue(resumed.succeeded, "\(resumed)")
        XCTAssertTrue(resumed.stdout.contains("\"resumedFrom\" : 300000"), resumed.stdout)
        XCTAssertEqual(try readBytes(output), original, "the export is byte for byte the imported file")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output + ".partial"))
        // A damaged partial file is detected by the digest, removed, and the next run is exact.
        var damaged = Array(original.prefix(200_000))
        damaged[1000] ^= 0xFF
        try Data(damaged).write(to: URL(fileURLWithPath: output + ".partial"))
        let refused = try runCLI(["export", asset, "-o", output], server: server)
        XCTAssertFalse(refused.succeeded, "a damaged partial file must not pass: \(refused)")
        XCTAssertTrue(refused.stderr.contains("SHA-256"), refused.stderr)
        let retried = try runCLI(["export", asset, "-o", output], server: server)
        XCTAssertTrue(retried.succeeded, "\(retried)")
        XCTAssertEqual(try readBytes(output), original)
    }

    /// utime + stime of a process in seconds (/proc/PID/stat).
    private func cpuSeconds(_ pid: Int32) throws -> Double {
        let text = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        guard let close = text.lastIndex(of: ")") else { throw E2EError("unreadable /proc/\(pid)/stat") }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After ")": state is field 3; utime and stime are fields 14 and 15.
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw E2EError("unreadable /proc/\(pid)/stat: \(text)")
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// A flag set from another thread.
final class ProgressFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
