import Foundation
import PhotoLibServer
import PhotoLibServerTestSupport
import PhotoLibStore
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// Fetch-result snapshots are compact (16 bytes per asset), identical fetches share one
/// list, and a server-wide budget bounds them all: over it, the least recently used
/// snapshots of the heaviest connection are released and their next use says "snapshot
/// expired — fetch again".
final class SnapshotBudgetTests: XCTestCase {
    private static let assets = 50_000

    private func fetch(_ connection: RawConnection, stream: UInt32, limit: UInt32) throws -> String {
        let request = Wire.FetchAssetsRequest(options: Wire.FetchOptions(fetchLimit: limit))
        let result = try connection.call(stream: stream, method: PhotoLibraryMethods.fetchAssets.path, request: request.encoded())
        XCTAssertEqual(result.status.code, .ok, result.status.message)
        return try Wire.FetchResultSnapshot(decoding: result.messages[0]).fetchResultID
    }

    private func page(_ connection: RawConnection, stream: UInt32, id: String) throws -> Wire.Status {
        let request = Wire.FetchResultObjectsRequest(fetchResultID: id, offset: UInt64(Self.assets - 1000 - 10), length: 10, identifiersOnly: true)
        return try connection.call(stream: stream, method: PhotoLibraryMethods.fetchResultObjects.path, request: request.encoded()).status
    }

    func testSnapshotsStayWithinTheServerWideBudget() async throws {
        var configuration = ServerConfiguration()
        configuration.snapshotMemoryBytes = 4 << 20
        let server = try InProcessServer(configuration: configuration)
        addTeardownBlock { await server.tearDown() }
        _ = try server.library.addSyntheticAssetsForBenchmark(count: Self.assets)
        let connection = try server.rawConnection()
        _ = try connection.handshake(token: server.token)

        let before = residentKiB()
        var ids: [String] = []
        var stream: UInt32 = 1
        // Twenty different 49,000-asset snapshots (different limits: no sharing), each read
        // past its first page so that its whole list is in memory.
        for index in 0..<20 {
            let id = try fetch(connection, stream: stream, limit: UInt32(49_000 + index))
            stream += 2
            ids.append(id)
            let status = try page(connection, stream: stream, id: id)
            stream += 2
            XCTAssertEqual(status.code, .ok, status.message)
        }
        let stats = server.server.statistics
        print("snapshots: \(stats.snapshotBytes >> 10) KiB held of a \(stats.snapshotLimit >> 10) KiB budget, \(stats.snapshotsReleased) released; RSS growth for 20 snapshots of 49,000 assets: \((residentKiB() - before) / 1024) MiB")
        XCTAssertLessThanOrEqual(stats.snapshotBytes, 4 << 20)
        XCTAssertGreaterThan(stats.snapshotsReleased, 0)

        // The oldest was released: its use says so, typed; the newest still works.
        let expired = try page(connection, stream: stream, id: ids[0])
        stream += 2
        XCTAssertEqual(expired.code, .failedPrecondition)
        XCTAssertEqual(expired.reason, .fetchResultExpired)
        XCTAssertTrue(expired.message.hasPrefix("snapshot expired — fetch again") && expired.message.contains("memory budget"), expired.message)
        let newest = try page(connection, stream: stream, id: ids[19])
        XCTAssertEqual(newest.code, .ok, newest.message)
    }

    func testIdenticalFetchesShareOneList() async throws {
        let server = try InProcessServer()
        addTeardownBlock { await server.tearDown() }
        _ = try server.library.addSyntheticAssetsForBenchmark(count: Self.assets)
        var connections: [RawConnection] = []
        for _ in 0..<10 {
            let connection = try server.rawConnection()
            _ = try connection.handshake(token: server.token)
            connections.append(connection)
        }
        for connection in connections {
            let id = try fetch(connection, stream: 1, limit: 0)
            XCTAssertEqual(try page(connection, stream: 3, id: id).code, .ok)
        }
        let stats = server.server.statistics
        print("10 identical 50,000-asset fetches hold \(stats.snapshotBytes >> 10) KiB")
        // One list of 50,000 × 16 bytes (plus a first page), not ten.
        XCTAssertLessThan(stats.snapshotBytes, 2 * Self.assets * 16 + (64 << 10))
    }
}
