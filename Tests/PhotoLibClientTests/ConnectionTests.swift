import Foundation
import PhotoLibClient
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// The client library against the real server code over the in-process transport, and
/// against a scripted peer where the server would have to misbehave: deadlines, task
/// cancellation, GOAWAY, flow control and protocol errors.
final class ConnectionTests: XCTestCase {
    func testFetchAndImagesThroughTightWindows() async throws {
        let server = try InProcessServer(photos: [Fixtures.landscape, Fixtures.portrait])
        addTeardownBlock { await server.tearDown() }
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token, configuration: .minimalWindows)
        defer { library.close() }
        let info = try await library.libraryInfo()
        XCTAssertEqual(info.assetCount, 2)
        let assets = try await library.fetchAssets().allObjects()
        XCTAssertEqual(Set(assets.map(\.localIdentifier)), Set(server.assets))
        let portrait = server.assets[1]
        let thumbnail = try await library.imageManager.image(
            forAssetIdentifier: portrait, targetSize: PixelSize(width: 256, height: 256),
            options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact))
        XCTAssertEqual(thumbnail.height, 256, "aspect fit of a 2560×3837 portrait")
        XCTAssertEqual(thumbnail.width, 171)
        // The original, many 128 KiB windows long: the client returns credit as it consumes.
        let original = try await library.imageManager.image(
            forAssetIdentifier: portrait, targetSize: .maximum,
            options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .none, version: .original))
        XCTAssertEqual(original.data, try Fixtures.bytes(at: Fixtures.portrait), "byte for byte")
    }

    func testADeadlineEndsACallTheServerNeverAnswersAndCancelsIt() async throws {
        let peer = try ScriptedServer()
        var configuration = ClientConfiguration()
        configuration.callTimeout = 0.3
        let library = try await peer.connect(configuration: configuration)
        defer { library.close() }
        let started = Date()
        do {
            _ = try await library.libraryInfo()
            XCTFail("a call nobody answers must not succeed")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .deadlineExceeded, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        let call = try await peer.next { $0.type == .call }
        let start = try Wire.CallStart(decoding: call.payload)
        XCTAssertEqual(start.method, PhotoLibraryMethods.getLibraryInfo.path)
        XCTAssertEqual(start.timeoutMs, 300, "the deadline travels with the call")
        let cancel = try await peer.next { $0.type == .cancel }
        XCTAssertEqual(cancel.streamID, call.streamID, "the client abandons the call on the wire too")
    }

    func testCancellingTheTaskEndsTheCallAndSendsCancel() async throws {
        let peer = try ScriptedServer()
        let library = try await peer.connect()
        defer { library.close() }
        let task = Task { try await library.libraryInfo() }
        let call = try await peer.next { $0.type == .call }
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("a cancelled call must not succeed")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .cancelled, "\(error)")
        } catch is CancellationError {
        }
        let cancel = try await peer.next { $0.type == .cancel }
        XCTAssertEqual(cancel.streamID, call.streamID)
    }

    func testAMessageOverTheAnnouncedWindowIsAConnectionError() async throws {
        let peer = try ScriptedServer()
        let library = try await peer.connect(configuration: .minimalWindows)
        defer { library.close() }
        XCTAssertEqual(peer.hello?.initialStreamWindow, 128 << 10, "the client announces its windows")
        let task = Task { try await library.libraryInfo() }
        let call = try await peer.next { $0.type == .call }
        // 128 KiB + 1 on a stream whose window is 128 KiB: the server broke flow control.
        peer.raw.send(Frame(.message, stream: call.streamID, payload: [UInt8](repeating: 0, count: (128 << 10) + 1)))
        let goAway = try await peer.next { $0.type == .goAway }
        let status = try Wire.GoAway(decoding: goAway.payload).status
        XCTAssertEqual(status?.code, .resourceExhausted, status?.message ?? "")
        XCTAssertEqual(status?.reason, .protocolViolation)
        do {
            _ = try await task.value
            XCTFail("the call cannot succeed on a broken connection")
        } catch let error as PhotoLibError {
            XCTAssertFalse(error.message.isEmpty)
        }
    }

    func testAnUnknownFrameFromTheServerFailsCallsClearly() async throws {
        let peer = try ScriptedServer()
        let library = try await peer.connect()
        defer { library.close() }
        let task = Task { try await library.libraryInfo() }
        _ = try await peer.next { $0.type == .call }
        peer.raw.send(RawConnection.rawFrame(length: 0, type: 42))
        do {
            _ = try await task.value
            XCTFail("the call cannot succeed after a protocol error")
        } catch let error as PhotoLibError {
            // The connection error the client detected (and sent in its GOAWAY), as the call's error.
            XCTAssertEqual(error.code, .invalidArgument, "\(error)")
            XCTAssertTrue(error.message.contains("unknown frame type 42"), "the error names the frame type: \(error.message)")
        }
        let goAway = try await peer.next { $0.type == .goAway }
        XCTAssertEqual(try Wire.GoAway(decoding: goAway.payload).status?.reason, .protocolViolation)
        do {
            _ = try await library.libraryInfo()
            XCTFail("a closed connection takes no new calls")
        } catch let error as PhotoLibError {
            XCTAssertNotEqual(error.code, .ok, "\(error)")
        }
    }

    func testServerGoAwayEndsTheConnectionAndNewCallsFailCleanly() async throws {
        let server = try InProcessServer(photos: [Fixtures.landscape])
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer { library.close() }
        let info = try await library.libraryInfo()
        XCTAssertEqual(info.assetCount, 1)
        await server.tearDown()
        do {
            _ = try await library.libraryInfo()
            XCTFail("a call after the server went away must fail")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .unavailable, "\(error)")
            XCTAssertFalse(error.message.isEmpty)
        }
    }
}
