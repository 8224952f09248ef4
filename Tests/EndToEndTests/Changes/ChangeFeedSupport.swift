import Foundation
import PhotoLibClient
import PhotoLibTestSupport
import XCTest

/// Reads a subscription's `changes` on its own task and keeps every change (with its arrival
/// time) for the test to wait on.
final class ChangeCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [PhotoLibraryChange] = []
    private var arrivals: [Date] = []
    private var failure: (any Error)?
    private var ended = false
    private var task: Task<Void, Never>?

    init(_ subscription: ChangeSubscription) {
        task = Task { [self] in
            do {
                for try await change in subscription.changes {
                    let now = Date()
                    lock.withLock {
                        received.append(change)
                        arrivals.append(now)
                    }
                }
                lock.withLock { ended = true }
            } catch {
                lock.withLock {
                    failure = error
                    ended = true
                }
            }
        }
    }

    /// Every change received so far, in order.
    var changes: [PhotoLibraryChange] { lock.withLock { received } }
    /// Arrival times, parallel to ``changes``.
    var arrivalTimes: [Date] { lock.withLock { arrivals } }
    /// The error that ended the stream, if any.
    var error: (any Error)? { lock.withLock { failure } }

    /// Stops reading.
    func stop() { task?.cancel() }

    /// Waits (at most `timeout` s) until a change whose token is at least `token` arrived;
    /// returns every change so far.
    func waitFor(token: Int64, timeout: Double = 10, _ what: String = "") async throws -> [PhotoLibraryChange] {
        try await waitUntilChanges(timeout: timeout, "a notification through token \(token) \(what)") { changes in
            changes.contains { (Int64($0.changeToken) ?? -1) >= token }
        }
    }

    /// Waits until at least `count` changes arrived.
    func waitFor(count: Int, timeout: Double = 10, _ what: String = "") async throws -> [PhotoLibraryChange] {
        try await waitUntilChanges(timeout: timeout, "\(count) notifications \(what)") { $0.count >= count }
    }

    private func waitUntilChanges(timeout: Double, _ what: String, _ condition: ([PhotoLibraryChange]) -> Bool) async throws -> [PhotoLibraryChange] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let (changes, failure, ended) = lock.withLock { (received, self.failure, self.ended) }
            if condition(changes) { return changes }
            if let failure { throw E2EError("the change stream failed while waiting for \(what): \(failure)") }
            if ended { throw E2EError("the change stream ended while waiting for \(what); got \(changes.map(\.changeToken))") }
            if Date() > deadline {
                throw E2EError("timed out after \(timeout) s waiting for \(what); got tokens \(changes.map { "\($0.sinceToken)→\($0.changeToken)" })")
            }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
    }
}

/// Checks that `changes` form one chain starting at `start`: each since token is the previous
/// change token, tokens strictly increase (so none is delivered twice).
func assertContiguous(_ changes: [PhotoLibraryChange], from start: String, _ what: String = "", file: StaticString = #filePath, line: UInt = #line) {
    var previous = start
    for (i, change) in changes.enumerated() {
        XCTAssertEqual(change.sinceToken, previous, "\(what) notification \(i): sinceToken \(change.sinceToken) is not the previous token \(previous) (gap or duplicate); chain: \(changes.map { "\($0.sinceToken)→\($0.changeToken)" })", file: file, line: line)
        XCTAssertGreaterThan(Int64(change.changeToken) ?? -1, Int64(change.sinceToken) ?? Int64.max, "\(what) notification \(i) covers no transaction", file: file, line: line)
        previous = change.changeToken
    }
}

/// A registered fetch result kept locally by applying every notification's details, as a
/// PhotoKit client keeps its `PHFetchResult` current.
final class TrackedFetch: @unchecked Sendable {
    let name: String
    let options: FetchOptions
    let album: String?
    private(set) var result: FetchResult<Asset>
    private(set) var identifiers: [String]
    /// The assets last delivered as inserted or changed, by identifier.
    private(set) var delivered: [String: Asset] = [:]
    private(set) var incrementalCount = 0
    private(set) var resyncCount = 0

    init(name: String, options: FetchOptions, album: String? = nil, subscription: ChangeSubscription) async throws {
        self.name = name
        self.options = options
        self.album = album
        let registered = try await withTimeout(20, "registerFetch \(name)") { try await subscription.registerFetch(with: options, in: album) }
        result = registered
        identifiers = try await withTimeout(20, "objects of \(name)") { try await registered.allObjects().map(\.localIdentifier) }
    }

    /// Applies `change`'s details for this fetch (if any) with the documented semantics.
    /// Returns whether the change named this fetch.
    @discardableResult
    func apply(_ change: PhotoLibraryChange, file: StaticString = #filePath, line: UInt = #line) async throws -> Bool {
        guard let details = change.changeDetails(for: result) else { return false }
        let after = details.fetchResultAfterChanges
        XCTAssertEqual(details.fetchResultBeforeChanges.fetchResultID, result.fetchResultID, "\(name): details relative to another snapshot", file: file, line: line)
        if details.hasIncrementalChanges {
            incrementalCount += 1
            XCTAssertEqual(details.fetchResultBeforeChanges.count, identifiers.count, "\(name) @\(change.changeToken): countBefore", file: file, line: line)
            XCTAssertEqual(details.insertedObjects.count, details.insertedIndexes.count, "\(name): one object per inserted index", file: file, line: line)
            XCTAssertEqual(details.changedObjects.count, details.changedIndexes.count, "\(name): one object per changed index", file: file, line: line)
            let core = FetchResultChangeDetails(
                countBefore: identifiers.count, countAfter: after.count, removedIndexes: details.removedIndexes,
                insertedIndexes: details.insertedIndexes, changedIndexes: details.changedIndexes, moves: details.moves)
            guard core.isWellFormed, details.insertedObjects.count == details.insertedIndexes.count,
                details.changedObjects.count == details.changedIndexes.count
            else {
                XCTFail("\(name) @\(change.changeToken): malformed details \(core)", file: file, line: line)
                identifiers = try await after.allObjects().map(\.localIdentifier)
                result = after
                return true
            }
            var values: [Int: Asset] = [:]
            for (index, asset) in zip(details.insertedIndexes, details.insertedObjects) { values[index] = asset }
            for (index, asset) in zip(details.changedIndexes, details.changedObjects) { values[index] = asset }
            let before = identifiers
            identifiers = core.apply(to: before) { values[$0]!.localIdentifier }
            // A changed index names an object that was already in the result.
            for index in details.changedIndexes {
                XCTAssertTrue(before.contains(identifiers[index]), "\(name) @\(change.changeToken): changed index \(index) holds \(identifiers[index]), not in the before list", file: file, line: line)
            }
            for asset in values.values { delivered[asset.localIdentifier] = asset }
        } else {
            resyncCount += 1
            identifiers = try await withTimeout(20, "objects after a resync of \(name)") { try await after.allObjects().map(\.localIdentifier) }
        }
        result = after
        return true
    }

    /// A fresh fetch with the same options.
    func fresh(_ library: PhotoLibrary) async throws -> [Asset] {
        let options = options
        let album = album
        return try await withTimeout(30, "fresh fetch \(name)") {
            let result: FetchResult<Asset>
            if let album { result = try await library.fetchAssets(in: album, options: options) } else { result = try await library.fetchAssets(with: options) }
            let objects = try await result.allObjects()
            XCTAssertEqual(objects.count, result.count)
            return objects
        }
    }

    /// Asserts the locally maintained list equals a fresh fetch (identifiers and count), and
    /// that the objects last delivered as inserted/changed carry the current values.
    func assertMatchesFresh(_ library: PhotoLibrary, _ context: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        let fresh = try await fresh(library)
        XCTAssertEqual(identifiers, fresh.map(\.localIdentifier), "\(name) after \(context): local list differs from a fresh fetch", file: file, line: line)
        XCTAssertEqual(result.count, fresh.count, "\(name) after \(context): count", file: file, line: line)
        let current = Dictionary(fresh.map { ($0.localIdentifier, $0) }, uniquingKeysWith: { a, _ in a })
        for (id, asset) in delivered {
            guard let now = current[id] else { continue }
            XCTAssertEqual(asset.isFavorite, now.isFavorite, "\(name) after \(context): delivered value of \(id) is stale (isFavorite)", file: file, line: line)
            XCTAssertEqual(asset.isHidden, now.isHidden, "\(name) after \(context): delivered value of \(id) is stale (isHidden)", file: file, line: line)
            XCTAssertEqual(asset.creationDate, now.creationDate, "\(name) after \(context): delivered value of \(id) is stale (creationDate)", file: file, line: line)
        }
        delivered = [:]
    }
}

/// Distinct photos: the portrait test photo with EXIF dates (so creation dates differ) and,
/// for some, orientation 6 (so pixelWidth differs).
enum DistinctPhotos {
    static let base: [UInt8] = (try? readBytes(Paths.portrait)) ?? []

    /// Photo number `n`: a unique date, rotated when `n % 3 == 0`.
    static func photo(_ n: Int) -> [UInt8] {
        let day = 1 + n % 28
        let hour = n % 24
        let minute = (n * 7) % 60
        let year = 2001 + n / 28 % 20
        let date = String(format: "%04d:%02d:%02d %02d:%02d:%02d", year, 1 + n % 12, day, hour, minute, n % 60)
        return ExifFixture.jpegWithExif(base, orientation: n % 3 == 0 ? 6 : 1, dateTimeOriginal: date)
    }

    /// Writes photos `range` into `directory/name-N.jpg` and returns their paths.
    static func write(_ range: Range<Int>, to directory: TemporaryDirectory, prefix: String = "photo") throws -> [String] {
        try range.map { try directory.write("\(prefix)/p\($0).jpg", photo($0)) }
    }
}

/// Resident memory of a process in KiB (`VmRSS` of /proc/PID/status).
func residentKiB(_ pid: Int32) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }
    return nil
}

/// A library of `photos` distinct photos served by a fresh `photolibd`.
func startChangeServer(_ directory: TemporaryDirectory, photos: Int, extraArguments: [String] = []) throws -> (ServerProcess, [String]) {
    let paths = try DistinctPhotos.write(0..<photos, to: directory, prefix: "initial")
    let library = directory.file("library")
    let result = try ServerProcess.importPhotos(library: library, paths)
    guard result.succeeded else { throw E2EError("photolibd import failed: \(result)") }
    let ids = ImportOutput(result).addedOrder
    guard ids.count == photos else { throw E2EError("expected \(photos) photos added: \(result)") }
    return (try ServerProcess.start(library: library, extraArguments: extraArguments), ids)
}

/// The library's current token as a number.
func currentToken(_ library: PhotoLibrary) async throws -> Int64 {
    let text = try await withTimeout(20, "currentChangeToken") { try await library.currentChangeToken() }
    guard let value = Int64(text) else { throw E2EError("token \(text) is not a number") }
    return value
}

/// `performChanges` with a timeout; returns the committed token.
@discardableResult
func commit(_ library: PhotoLibrary, _ what: String = "performChanges", _ requests: [ChangeRequest]) async throws -> Int64 {
    let result = try await withTimeout(30, what) { try await library.performChanges(requests) }
    guard let token = Int64(result.changeToken) else { throw E2EError("\(what): token \(result.changeToken) is not a number") }
    return token
}
