import Foundation
import PhotoLibClient
import PhotoLibTestSupport
import PhotoLibWire
import Synchronization
import XCTest

/// How a subscription's credit goes back: a change feed sends many small messages, and the
/// client returns their credit in batches (docs/PROTOCOL.md 9.3) instead of writing a
/// WINDOW_UPDATE per notification that the server must then read and act on.
final class ChangeCreditTests: XCTestCase {
    func testSmallNotificationsToAChangeHandlerReturnTheirCreditInBatches() async throws {
        let peer = try ScriptedServer()
        let library = try await peer.connect()
        defer { library.close() }
        let hello = try XCTUnwrap(peer.hello)
        XCTAssertGreaterThan(
            Int(hello.initialStreamWindow), Int(hello.maxFrameSize == 0 ? UInt32(WireLimits.defaultMaxFrameSize) : hello.maxFrameSize),
            "a window larger than one largest message, so that credit can be held back while a largest message still fits")

        let received = Mutex(0)
        let subscription = try await library.subscribe { result in
            if case .success = result { received.withLock { $0 += 1 } }
        }
        defer { subscription.cancel() }
        let call = try await peer.next { $0.type == .call }
        let count = 200
        var bytes = 0
        for token in 1...count {
            let payload = Wire.SubscriptionEvent(event: .change(Wire.ChangeNotification(changeToken: String(token), sinceToken: String(token - 1)))).encoded()
            bytes += payload.count
            peer.raw.send(Frame(.message, stream: call.streamID, payload: payload))
        }
        let deadline = Date().addingTimeInterval(10)
        while received.withLock({ $0 }) < count {
            guard Date() < deadline else { return XCTFail("the handler saw \(received.withLock { $0 }) of \(count) notifications") }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        // A PING after the notifications: whatever credit the client sent for them is before its answer.
        peer.raw.send(Frame(.ping, payload: Wire.Ping(opaque: 7).encoded()))
        let (answered, updates) = try await offPool { [raw = peer.raw] () -> (Bool, [Frame]) in
            let (answer, skipped) = raw.readUntil { $0.type == .ping && $0.flags.contains(.ack) }
            guard case .frame = answer else { return (false, []) }
            return (true, skipped.filter { $0.type == .windowUpdate })
        }
        XCTAssertTrue(answered, "the client answers the PING")
        XCTAssertLessThan(bytes, Int(hello.initialStreamWindow) / 4, "fewer bytes than one batch of credit")
        XCTAssertEqual(updates.count, 0, "\(count) notifications of \(bytes) bytes in all: their credit is held back until a batch gathers, not returned per message")
    }
}
