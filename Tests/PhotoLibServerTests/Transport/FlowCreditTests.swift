import Foundation
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// Every MESSAGE byte a client sends is eventually credited back on the connection (section
/// 9.4), including requests the server discards because their call already ended.
final class FlowCreditTests: XCTestCase {
    func testRequestsAfterARefusalStillReturnTheirConnectionCredit() async throws {
        let server = try InProcessServer()
        addTeardownBlock { await server.tearDown() }
        let connection = try server.rawConnection()
        let welcome = try connection.handshake(token: server.token)
        let window = Int(welcome.initialConnectionWindow == 0 ? 8 << 20 : welcome.initialConnectionWindow)
        var sent = 0, credited = 0
        let chunk = Wire.UploadChunk(part: .data([UInt8](repeating: 0x42, count: 60_000))).encoded()
        // Each upload announces a type the server refuses at once, then keeps sending its data
        // (the STATUS crosses it on the wire): ten times the connection window in all.
        var stream: UInt32 = 1
        while sent < 10 * window {
            connection.send(Frame(.call, stream: stream, payload: Wire.CallStart(method: PhotoLibraryMethods.uploadAsset.path).encoded()))
            let header = Wire.UploadChunk(part: .header(Wire.UploadHeader(originalFilename: "x.png", size: 1_000_000, uniformTypeIdentifier: "public.png"))).encoded()
            connection.send(Frame(.message, stream: stream, payload: header))
            sent += header.count
            for index in 0..<16 {
                // Never more than the window the server has left us.
                while sent + chunk.count - credited > window {
                    guard case .frame(let frame) = connection.readFrame(timeout: 10) else {
                        return XCTFail("the connection window ran dry: \(sent) bytes sent, \(credited) credited back")
                    }
                    if frame.type == .windowUpdate, frame.streamID == 0 { credited += Int(try Wire.WindowUpdate(decoding: frame.payload).increment) }
                }
                connection.send(Frame(.message, stream: stream, flags: index == 15 ? .endStream : [], payload: chunk))
                sent += chunk.count
            }
            stream += 2
        }
        // Everything sent is credited back, the discarded requests included.
        let deadline = Date().addingTimeInterval(10)
        while credited < sent, Date() < deadline, case .frame(let frame) = connection.readFrame(timeout: 10) {
            if frame.type == .windowUpdate, frame.streamID == 0 { credited += Int(try Wire.WindowUpdate(decoding: frame.payload).increment) }
        }
        XCTAssertEqual(credited, sent, "connection credit returned for every byte")
        let info = try connection.call(stream: stream, method: PhotoLibraryMethods.getLibraryInfo.path)
        XCTAssertEqual(info.status.code, .ok, "and the connection still takes calls")
    }
}
