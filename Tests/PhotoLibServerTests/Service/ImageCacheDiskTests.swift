import Foundation
import Logging
import PhotoLibCore
import PhotoLibTestSupport
import XCTest

@testable import PhotoLibServer

/// The disk cache's write queue is bounded: while the disk is slow (the writer held up), stores
/// beyond `maxQueuedBytes` are skipped instead of queued, and the queue drains to nothing.
final class ImageCacheDiskTests: XCTestCase {
    private func key(_ index: Int) -> ImageCacheKey {
        ImageCacheKey(
            assetIdentifier: "A/L0/001", contentVersion: "v\(index)", targetSize: PixelSize(width: 256, height: 256),
            contentMode: .aspectFit, resizeMode: .fast, version: .current, crop: nil, variant: .final)
    }

    func testStoresBeyondTheQueueBoundAreSkippedWhileTheDiskIsSlow() throws {
        let directory = try TestDirectory()
        addTeardownBlock { directory.cleanUp() }
        // 10,000 bytes that start and end like a JPEG (what the cache checks when it reads).
        let jpeg = [0xFF, 0xD8] + [UInt8](repeating: 0xAB, count: 9_996) + [0xFF, 0xD9]
        let image = CachedImage(jpeg: jpeg, width: 10, height: 10, degraded: false)
        let cache = ImageCacheDisk(directory: directory.path + "/cache", budget: 16 << 20, maxQueuedBytes: 35_000, logger: Logger(label: "test"))
        // A slow disk: the writer is busy until the test lets it go.
        let release = DispatchSemaphore(value: 0)
        cache.writer.async { release.wait() }
        for index in 0..<10 { cache.put(key(index), image) }
        XCTAssertEqual(cache.queue.bytes, 3 * (10_000 + 16), "three images fit in 35,000 bytes")
        XCTAssertEqual(cache.queue.skipped, 7)
        release.signal()
        cache.flush()
        XCTAssertEqual(cache.queue.bytes, 0)
        XCTAssertEqual((0..<10).filter { cache.get(key($0)) != nil }, [0, 1, 2], "the queued ones were written, the skipped ones not")
        // With the disk keeping up, every store is written.
        for index in 10..<20 {
            cache.put(key(index), image)
            cache.flush()
        }
        XCTAssertEqual((10..<20).filter { cache.get(key($0)) != nil }.count, 10)
    }
}
