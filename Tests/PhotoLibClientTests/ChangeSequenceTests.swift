import Foundation
import PhotoLibClient
import PhotoLibCore
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import XCTest

/// `ChangeSubscription.changes` against a real server: changes that wait are read in order,
/// the sequence ends as its subscription does (with the error it failed with, once), and one
/// task at a time iterates it.
final class ChangeSequenceTests: XCTestCase {
    private func open() async throws -> (InProcessServer, PhotoLibrary, ChangeSubscription) {
        let server = try InProcessServer(photos: [Fixtures.landscape, Fixtures.portrait])
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        let subscription = try await library.subscribe()
        _ = try await subscription.registerFetch()
        return (server, library, subscription)
    }

    /// Runs `body`, failing after `seconds`: the body is then cancelled (a change that never
    /// comes cannot hang the run; cancelling a wait for one ends it).
    private func within<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw PhotoLibError(.deadlineExceeded, "did not finish within \(seconds) s")
            }
            return value
        }
    }

    /// Toggles the favourite flag of `asset`; returns the change token.
    private static func toggle(_ library: PhotoLibrary, _ asset: String, _ favorite: Bool) async throws -> String {
        try await library.performChanges([.setAssetProperties(.init(asset: asset, isFavorite: favorite))]).changeToken
    }

    func testChangesThatWaitAreReadInOrderThenTheEnd() async throws {
        let (server, library, subscription) = try await open()
        addTeardownBlock { await server.tearDown() }
        defer { library.close() }
        var tokens: [String] = []
        // Each one a change: asset 0 on, asset 1 on, asset 0 off.
        for (asset, favorite) in [(server.assets[0], true), (server.assets[1], true), (server.assets[0], false)] {
            tokens.append(try await Self.toggle(library, asset, favorite))
        }
        // Most (usually all) of them wait in the backlog by the time the reading starts.
        let read = try await within(20) { () -> [String?] in
            var changes = subscription.changes.makeAsyncIterator()
            var read: [String?] = []
            for _ in 0..<3 { read.append(try await changes.next()?.changeToken) }
            return read
        }
        XCTAssertEqual(read, tokens)
        subscription.cancel()
        var changes = subscription.changes.makeAsyncIterator()
        let afterCancel = try await changes.next()
        XCTAssertNil(afterCancel)
        let again = try await changes.next()
        XCTAssertNil(again, "an ended sequence stays ended")
    }

    func testCancellingTheWaitingTaskEndsTheSequenceAndTheSubscription() async throws {
        let (server, library, subscription) = try await open()
        addTeardownBlock { await server.tearDown() }
        defer { library.close() }
        let reader = Task { () -> Int in
            var count = 0
            for try await _ in subscription.changes { count += 1 }
            return count
        }
        _ = try await Self.toggle(library, server.assets[0], true)
        // Let it take that change and wait for the next, then cancel it.
        try await Task.sleep(nanoseconds: 100_000_000)
        reader.cancel()
        let count = try await within(20) { try await reader.value }
        XCTAssertLessThanOrEqual(count, 1)
        // The subscription's call ended: a request on it fails.
        do {
            _ = try await subscription.registerFetch()
            XCTFail("the cancelled subscription took a request")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .cancelled, "the request fails because the call was cancelled: \(error.message)")
        }
    }

    func testOneTaskAtATime() async throws {
        let (server, library, subscription) = try await open()
        addTeardownBlock { await server.tearDown() }
        defer { library.close() }
        let asset = server.assets[0]
        // Two readers at once, with nothing to read: the second to ask is refused at once, the
        // first waits (it cannot finish before a change comes). Then one change wakes it.
        let outcomes = try await within(20) { () -> [Result<String?, any Error>] in
            await withTaskGroup(of: Result<String?, any Error>.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        var changes = subscription.changes.makeAsyncIterator()
                        do { return .success(try await changes.next()?.changeToken) } catch { return .failure(error) }
                    }
                }
                var outcomes = [await group.next()!]
                do {
                    outcomes.append(.success(try await Self.toggle(library, asset, true)))
                } catch {
                    outcomes.append(.failure(error))
                }
                outcomes.append(await group.next()!)
                return outcomes
            }
        }
        guard case .success(let token?) = outcomes[1] else { return XCTFail("the toggle failed: \(outcomes[1])") }
        XCTAssertNil(try? outcomes[0].get(), "the first reader to finish is the refused one: \(outcomes[0])")
        let readerOutcomes = [outcomes[0], outcomes[2]]
        let tokens = readerOutcomes.compactMap { try? $0.get() }
        let refusals = readerOutcomes.compactMap { outcome -> PhotoLibError? in
            guard case .failure(let error) = outcome else { return nil }
            return error as? PhotoLibError
        }
        XCTAssertEqual(tokens, [token], "one reader gets the change")
        XCTAssertEqual(refusals.map(\.code), [.failedPrecondition], "the other is refused: \(refusals.map(\.message))")
    }

    func testALostConnectionEndsTheSequenceWithItsErrorOnce() async throws {
        let (server, library, subscription) = try await open()
        addTeardownBlock { await server.tearDown() }
        let reader = Task { () -> (error: (any Error)?, after: PhotoLibraryChange?) in
            var changes = subscription.changes.makeAsyncIterator()
            do {
                while try await changes.next() != nil {}
                return (nil, nil)
            } catch {
                return (error, try? await changes.next())
            }
        }
        try await Task.sleep(nanoseconds: 50_000_000)
        library.close()
        let (error, after) = try await within(20) { await reader.value }
        XCTAssertEqual((error as? PhotoLibError)?.code, .cancelled, "\(String(describing: error))")
        XCTAssertNil(after, "after its error the sequence ends")
    }
}
