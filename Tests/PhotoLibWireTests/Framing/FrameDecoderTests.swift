import PhotoLibCore
import XCTest

@testable import PhotoLibWire

final class FrameDecoderTests: XCTestCase {
    private func sampleFrames() -> [Frame] {
        var generator = SystemRandomNumberGenerator()
        return FrameType.allCases.enumerated().map { index, type in
            let payload = (0..<(index * 37 % 300)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            return Frame(type, stream: UInt32(index * 1_000_003) & Frame.maxStreamID, flags: FrameFlags(rawValue: UInt8(index % 4)), payload: payload)
        } + [Frame(.message, stream: Frame.maxStreamID, payload: [UInt8](repeating: 7, count: 70_000))]
    }

    func testRoundTripWholeBuffer() throws {
        let frames = sampleFrames()
        var bytes: [UInt8] = []
        for frame in frames { frame.encode(into: &bytes) }
        var decoder = FrameDecoder(maxPayloadSize: 1 << 20)
        decoder.append(bytes)
        var decoded: [Frame] = []
        while let frame = try decoder.next() { decoded.append(frame) }
        XCTAssertEqual(decoded, frames)
        XCTAssertEqual(decoder.bufferedByteCount, 0)
    }

    func testRoundTripOneByteAtATime() throws {
        let frames = sampleFrames()
        var bytes: [UInt8] = []
        for frame in frames { frame.encode(into: &bytes) }
        var decoder = FrameDecoder(maxPayloadSize: 1 << 20)
        var decoded: [Frame] = []
        for byte in bytes {
            decoder.append([byte])
            while let frame = try decoder.next() { decoded.append(frame) }
        }
        XCTAssertEqual(decoded, frames)
    }

    func testHeaderLayoutIsBigEndian() {
        let frame = Frame(.ping, stream: 0x0102_0304, flags: .ack, payload: [0xAA, 0xBB])
        XCTAssertEqual(frame.encoded, [0, 0, 0, 2, 8, 2, 1, 2, 3, 4, 0xAA, 0xBB])
    }

    func testIncompleteFrameNeedsMoreDataAndConsumesNothing() throws {
        let bytes = Frame(.message, stream: 1, payload: [1, 2, 3, 4, 5]).encoded
        var decoder = FrameDecoder(maxPayloadSize: 1024)
        decoder.append(bytes.prefix(12))
        XCTAssertNil(try decoder.next())
        XCTAssertNil(try decoder.next())
        decoder.append(bytes.dropFirst(12))
        XCTAssertEqual(try decoder.next()?.payload, [1, 2, 3, 4, 5])
    }

    func testOversizedLengthIsRefusedBeforeReadingThePayload() {
        var decoder = FrameDecoder(maxPayloadSize: 1024)
        decoder.append([0x7F, 0xFF, 0xFF, 0xFF, FrameType.message.rawValue, 0, 0, 0, 0, 1])
        XCTAssertThrowsError(try decoder.next()) { error in
            let error = error as? PhotoLibError
            XCTAssertEqual(error?.code, .resourceExhausted)
            XCTAssertEqual(error?.reason, .protocolViolation)
            XCTAssertTrue(error?.message.contains("exceeds the maximum frame size of 1024") ?? false, error?.message ?? "")
        }
    }

    func testExactlyMaximumLengthIsAccepted() throws {
        var decoder = FrameDecoder(maxPayloadSize: 100)
        decoder.append(Frame(.message, stream: 1, payload: [UInt8](repeating: 1, count: 100)).encoded)
        XCTAssertEqual(try decoder.next()?.payload.count, 100)
    }

    func testUnknownFrameTypeIsRefused() {
        var decoder = FrameDecoder(maxPayloadSize: 1024)
        decoder.append([0, 0, 0, 0, 42, 0, 0, 0, 0, 0])
        XCTAssertThrowsError(try decoder.next()) { error in
            XCTAssertEqual((error as? PhotoLibError)?.code, .invalidArgument)
            XCTAssertTrue((error as? PhotoLibError)?.message.contains("unknown frame type 42") ?? false)
        }
    }

    func testReservedStreamBitIsRefused() {
        var decoder = FrameDecoder(maxPayloadSize: 1024)
        decoder.append([0, 0, 0, 0, FrameType.call.rawValue, 0, 0x80, 0, 0, 1])
        XCTAssertThrowsError(try decoder.next())
    }

    func testTypeNumbersMatchTheProtocolDocument() {
        XCTAssertEqual(FrameType.allCases.map(\.rawValue), Array(1...9))
        XCTAssertEqual(FrameType.allCases.map(\.description), ["HELLO", "WELCOME", "CALL", "MESSAGE", "STATUS", "CANCEL", "WINDOW_UPDATE", "PING", "GOAWAY"])
    }
}
