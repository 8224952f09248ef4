import Foundation
import PhotoLibCore
import PhotoLibStore
import PhotoLibTestSupport
import Synchronization
import XCTest

@testable import PhotoLibServer

/// ``LiveEntry`` read while it changes: a reader holding a version reads exactly that
/// version's index (or learns it expired), never the next version's data under the old name.
final class LiveEntryTests: XCTestCase {
    private var directory: String!
    private var library: PhotoLibrary!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "live-entry-" + UUID().uuidString
        library = try PhotoLibrary.open(at: directory)
    }

    override func tearDownWithError() throws {
        library = nil
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func asset(_ n: Int) -> Asset {
        Asset(
            localIdentifier: String(format: "%08X-0000-0000-0000-000000000000/L0/001", n), pixelWidth: 640, pixelHeight: 480,
            creationDate: Date(timeIntervalSince1970: 1_700_000_000 + Double(n)), modificationDate: Date(timeIntervalSince1970: 1_700_000_000))
    }

    private func orderedEntry(count: Int) -> LiveEntry {
        let members = (0..<count).map(Self.asset)
        return LiveEntry(query: AssetQuery(), index: .ordered(LiveFetchResult(ordering: AssetOrdering(), fetchLimit: 0, members: members)))
    }

    /// Each update inserts or removes one asset, so every version has its own count: a
    /// reader that saw (version, count) must read that count back while the version is current.
    func testReadersNeverSeeANewerIndexUnderAnOlderVersion() throws {
        let entry = orderedEntry(count: 100)
        let library = self.library!
        let rounds = 10_000
        let done = Flag()
        let mismatches = Counter()
        let reads = Counter()
        let readers = DispatchGroup()
        for _ in 0..<3 {
            DispatchQueue.global().async(group: readers) {
                while !done.isSet {
                    let listing = entry.currentListing()
                    do {
                        let count = try entry.read(version: listing.version) { index in index.count }
                        reads.increment()
                        if count != listing.count { mismatches.increment() }
                        let ids = try listing.identifiers(in: 0..<listing.count)
                        if ids.count != listing.count { mismatches.increment() }
                    } catch {
                        // Expired (a newer version exists): the only other allowed outcome.
                        if (error as? PhotoLibError)?.reason != .fetchResultExpired { mismatches.increment() }
                    }
                }
            }
        }
        for round in 0..<rounds {
            let id = Self.asset(100 + round / 2).localIdentifier
            let inserting = round.isMultiple(of: 2)
            let details = try entry.apply(
                touched: [id], matching: inserting ? [id] : [], values: inserting ? [id: Self.asset(100 + round / 2)] : [:],
                contentChanged: [], albumChanged: false, library: library)
            XCTAssertNotNil(details)
        }
        done.set()
        readers.wait()
        XCTAssertEqual(entry.version, rounds)
        XCTAssertEqual(entry.currentListing().count, 100)
        XCTAssertGreaterThan(reads.value, 0)
        XCTAssertEqual(mismatches.value, 0, "a reader saw data of another version than the one it held")
    }

    /// An old version stays named by its listing and is refused once the entry moves on.
    func testAnOldVersionIsRefusedAfterAChange() throws {
        let entry = orderedEntry(count: 3)
        let before = entry.currentListing()
        XCTAssertEqual(try before.identifiers(in: 0..<3).count, 3)
        let added = Self.asset(3)
        _ = try entry.apply(
            touched: [added.localIdentifier], matching: [added.localIdentifier], values: [added.localIdentifier: added],
            contentChanged: [], albumChanged: false, library: library)
        XCTAssertThrowsError(try before.identifiers(in: 0..<3)) { error in
            XCTAssertEqual((error as? PhotoLibError)?.reason, .fetchResultExpired)
        }
        let after = entry.currentListing()
        XCTAssertEqual(after.count, 4)
        XCTAssertEqual(try after.index(of: added.localIdentifier), 3)
    }
}

/// A flag set once, read from any thread.
private final class Flag: Sendable {
    private let flag = Mutex(false)
    var isSet: Bool { flag.withLock { $0 } }
    func set() { flag.withLock { $0 = true } }
}

/// A counter shared by threads.
private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
