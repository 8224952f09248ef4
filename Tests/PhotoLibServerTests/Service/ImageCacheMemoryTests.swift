import PhotoLibCore
import PhotoLibWire
import XCTest

@testable import PhotoLibServer

/// The memory cache drops the least recently used images first when over its budget, by
/// second chance (a hit, through `get` or `messages(forCurrent:form:encode:)`, marks an image,
/// and eviction moves a marked one to the newest end instead of dropping it), keeps the
/// messages it made in each form within the budget, and forgets an asset's images when a new
/// content version of it is seen.
final class ImageCacheMemoryTests: XCTestCase {
    private func key(_ asset: Int, version: String = "v1", side: Int = 256) -> ImageCacheKey {
        ImageCacheKey(
            assetIdentifier: "A\(asset)/L0/001", contentVersion: version, targetSize: PixelSize(width: side, height: side),
            contentMode: .aspectFit, resizeMode: .fast, version: .current, crop: nil, variant: .final)
    }

    private func image(_ bytes: Int) -> CachedImage {
        CachedImage(jpeg: [UInt8](repeating: 0xAB, count: bytes), width: 10, height: 10, degraded: false)
    }

    private func held(_ cache: ImageCacheMemory, _ assets: Range<Int>) -> [Int] {
        assets.filter { cache.get(key($0)) != nil }
    }

    func testTheLeastRecentlyUsedImagesAreDroppedFirst() {
        let cache = ImageCacheMemory(budget: 4_000)
        for asset in 0..<4 { cache.put(key(asset), image(1_000)) }
        XCTAssertEqual(cache.count, 4)
        // 0 and 2 used again (newest first: 2, 0, 3, 1): the next two stores drop 1, then 3.
        XCTAssertNotNil(cache.get(key(0)))
        XCTAssertNotNil(cache.messages(forCurrent: key(2), form: .parts) { _ in [] })
        cache.put(key(4), image(1_000))
        cache.put(key(5), image(1_000))
        XCTAssertEqual(cache.count, 4)
        XCTAssertEqual(cache.heldBytes, 4_000)
        XCTAssertNil(cache.get(key(1)))
        XCTAssertNil(cache.get(key(3)))
        XCTAssertEqual(held(cache, 0..<6), [0, 2, 4, 5])
        // Every image out again: the list and the table agree to the last one.
        for asset in 6..<10 { cache.put(key(asset), image(1_000)) }
        XCTAssertEqual(held(cache, 0..<10), [6, 7, 8, 9])
        XCTAssertEqual(cache.heldBytes, 4_000)
    }

    /// Second chance: when every image was used since eviction last passed, a store unmarks
    /// them all in one pass and then drops the oldest; the image just stored is never the
    /// one its own store drops.
    func testAStoreWhenEveryImageWasUsedDropsTheOldestAndKeepsTheNewOne() {
        let cache = ImageCacheMemory(budget: 4_000)
        for asset in 0..<4 { cache.put(key(asset), image(1_000)) }
        for asset in [3, 0, 1, 2] { XCTAssertNotNil(cache.get(key(asset))) }
        cache.put(key(4), image(1_000))
        XCTAssertEqual(cache.count, 4)
        cache.put(key(5), image(1_000))
        XCTAssertEqual(held(cache, 0..<6), [2, 3, 4, 5], "0, then 1 (unmarked by the first pass) went; 4 and 5 stayed")
    }

    func testMessagesAreMadeOnceAndCountAgainstTheBudget() {
        let cache = ImageCacheMemory(budget: 10_000)
        for asset in 0..<4 { cache.put(key(asset), image(2_000)) }
        var made = 0
        let encode: (CachedImage) -> [[UInt8]] = { image in
            made += 1
            return [Array(image.jpeg.prefix(1_500)), Array(image.jpeg.suffix(500))]
        }
        // Asset 3's messages (2,000 bytes) push the total to 10,000; asset 0's to 12,000, over
        // the budget: the oldest other image (1) goes, never the one just served.
        XCTAssertEqual(cache.messages(forCurrent: key(3), form: .parts, encode: encode)?.map(\.count), [1_500, 500])
        XCTAssertEqual(cache.heldBytes, 10_000)
        XCTAssertEqual(cache.messages(forCurrent: key(0), form: .parts, encode: encode)?.count, 2)
        XCTAssertEqual(made, 2)
        XCTAssertEqual(cache.heldBytes, 10_000)
        XCTAssertEqual(held(cache, 0..<4), [0, 2, 3])
        XCTAssertNotNil(cache.messages(forCurrent: key(3), form: .parts, encode: encode))
        XCTAssertEqual(made, 2, "kept with the image: not made again")
        XCTAssertNil(cache.messages(forCurrent: key(7), form: .parts, encode: encode))
    }

    func testEachFormsMessagesAreKeptApartAndBothCount() {
        let cache = ImageCacheMemory(budget: 10_000)
        cache.put(key(1), image(1_000))
        XCTAssertEqual(cache.messages(forCurrent: key(1), form: .parts) { _ in [[1], [2, 2], [3]] }, [[1], [2, 2], [3]])
        XCTAssertEqual(cache.messages(forCurrent: key(1), form: .whole) { _ in [[9, 9, 9, 9, 9]] }, [[9, 9, 9, 9, 9]], "not the other form's")
        XCTAssertEqual(cache.heldBytes, 1_009)
        XCTAssertEqual(cache.messages(forCurrent: key(1), form: .parts) { _ in XCTFail("made again"); return [] }, [[1], [2, 2], [3]])
        XCTAssertEqual(cache.messages(forCurrent: key(1), form: .whole) { _ in XCTFail("made again"); return [] }, [[9, 9, 9, 9, 9]])
        // A new image under the key drops both.
        cache.put(key(1), image(500))
        XCTAssertEqual(cache.heldBytes, 500)
        XCTAssertEqual(cache.messages(forCurrent: key(1), form: .whole) { _ in [[7]] }, [[7]])
        XCTAssertEqual(cache.heldBytes, 501)
    }

    /// An image over one chunk goes in parts in both forms: its messages are kept (and
    /// counted) once.
    func testAnImageOverAChunkKeepsOneCopyOfItsParts() {
        let cache = ImageCacheMemory(budget: 1_000_000)
        cache.put(key(1), image(WireLimits.chunkSize + 1))
        XCTAssertEqual(cache.messages(forCurrent: key(1), form: .parts) { _ in [[1], [2]] }, [[1], [2]])
        XCTAssertEqual(cache.messages(forCurrent: key(1), form: .whole) { _ in XCTFail("parts made again"); return [] }, [[1], [2]])
        XCTAssertEqual(cache.heldBytes, WireLimits.chunkSize + 1 + 2)
    }

    /// The messages of both forms at the edge of one chunk: a whole image up to 64 KiB, parts
    /// above, and parts whenever the request did not ask for whole images.
    func testImageSenderSendsAWholeImageUpToOneChunk() throws {
        for (size, form, whole) in [(WireLimits.chunkSize, ImageMessageForm.whole, true), (WireLimits.chunkSize + 1, .whole, false), (100, .parts, false)] {
            let cached = CachedImage(jpeg: (0..<size).map { UInt8(truncatingIfNeeded: $0) }, width: 30, height: 20, degraded: true)
            let messages = try ImageSender.messages(for: cached, index: 1, isFinal: false, form: form).map { try Wire.ImageResponse(decoding: $0).part }
            if whole {
                XCTAssertEqual(messages, [.whole(Wire.ImageWhole(
                    start: Wire.ImageStart(width: 30, height: 20, byteCount: UInt64(size), degraded: true, uniformTypeIdentifier: "public.jpeg", imageIndex: 1),
                    data: cached.jpeg, isFinal: false))], "\(size) bytes")
            } else {
                guard case .start(let start)? = messages.first, case .end(let end)? = messages.last else { return XCTFail("\(size) bytes: \(messages.count) messages") }
                XCTAssertEqual(start.byteCount, UInt64(size))
                XCTAssertEqual(end, Wire.ImageEnd(imageIndex: 1, isFinal: false))
                XCTAssertEqual(messages.count, 2 + (size + WireLimits.chunkSize - 1) / WireLimits.chunkSize, "\(size) bytes")
            }
        }
    }

    func testANewContentVersionDropsTheAssetsOlderImages() {
        let cache = ImageCacheMemory(budget: 100_000)
        cache.put(key(1, side: 128), image(1_000))
        cache.put(key(1, side: 256), image(1_000))
        cache.put(key(2), image(1_000))
        XCTAssertEqual(cache.count, 3)
        // The fast path's visit: the version noted, then the lookup, under one lock.
        XCTAssertNil(cache.messages(forCurrent: key(1, version: "v2"), form: .whole) { _ in [[1]] })
        XCTAssertNil(cache.get(key(1, side: 128)))
        XCTAssertNil(cache.get(key(1, side: 256)))
        XCTAssertEqual(cache.count, 1)
        XCTAssertEqual(cache.heldBytes, 1_000)
        XCTAssertEqual(cache.messages(forCurrent: key(2), form: .whole) { _ in [[1, 2, 3]] }, [[1, 2, 3]])
        XCTAssertEqual(cache.heldBytes, 1_003)
    }

    /// A degraded image from the cache shows the same part of the picture as the request: an
    /// aspect-fill render (cropped to its proportions) is not offered for an aspect-fit request,
    /// nor for a fill request of other proportions (one was, for a 1024-px fit request).
    func testSmallerRendersKeepTheRequestsFraming() {
        let cache = ImageCacheMemory(budget: 1 << 20)
        func render(_ mode: ContentMode, _ width: Int, _ height: Int) -> ImageCacheKey {
            ImageCacheKey(
                assetIdentifier: "A1/L0/001", contentVersion: "v1", targetSize: PixelSize(width: width, height: height),
                contentMode: mode, resizeMode: .exact, version: .current, crop: nil, variant: .final)
        }
        func sized(_ width: Int, _ height: Int) -> CachedImage {
            CachedImage(jpeg: [UInt8](repeating: 0xAB, count: 100), width: width, height: height, degraded: false)
        }
        cache.put(render(.aspectFill, 455, 256), sized(455, 256))
        XCTAssertNil(cache.smallerRender(like: render(.aspectFit, 1024, 1024), width: 1024, height: 1024), "a fill render for a fit request")
        XCTAssertNil(cache.smallerRender(like: render(.aspectFill, 1024, 1024), width: 1024, height: 1024), "a fill render of other proportions")
        XCTAssertEqual(cache.smallerRender(like: render(.aspectFill, 910, 512), width: 910, height: 512)?.width, 455, "the same proportions")
        cache.put(render(.aspectFit, 256, 256), sized(256, 144))
        XCTAssertEqual(cache.smallerRender(like: render(.aspectFit, 1024, 1024), width: 1024, height: 1024)?.width, 256)
        XCTAssertEqual(cache.smallerRender(like: render(.aspectFit, 0, 0), width: 5312, height: 2988)?.width, 256, "the maximum size frames like a fit")
    }
}
