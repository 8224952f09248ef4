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

    /// Bytes appended for borrowing give the same frames in pieces of every size; the MESSAGE
    /// frames a piece holds whole come out where they lie in it (each piece is a buffer of its
    /// own, overwritten once its frames are taken, as the event loop's read buffer is).
    func testBorrowedBytesGiveTheSameFramesAndLendOnlyWholeMessages() throws {
        let frames = sampleFrames() + [Frame(.message, stream: 5, payload: [1, 2, 3]), Frame(.message, stream: 7, flags: .endStream, payload: [])]
        var bytes: [UInt8] = []
        for frame in frames { frame.encode(into: &bytes) }
        for pieceSize in [1, 7, 10, 64, 333, 4_096, 65_536, bytes.count] {
            var decoder = FrameDecoder(maxPayloadSize: 1 << 20)
            var decoded: [Frame] = []
            var borrowed = 0
            var at = 0
            while at < bytes.count {
                let end = min(bytes.count, at + pieceSize)
                var piece = Array(bytes[at..<end])
                try piece.withUnsafeMutableBytes { raw in
                    decoder.append(borrowing: UnsafeRawBufferPointer(raw))
                    while let entry = try decoder.nextEntry() {
                        if case .borrowedMessage(_, _, let payload) = entry {
                            borrowed += 1
                            XCTAssertTrue(payload.buffer.baseAddress! >= UnsafeRawPointer(raw.baseAddress!) && payload.buffer.baseAddress! + payload.count <= UnsafeRawPointer(raw.baseAddress! + raw.count), "lent from the piece itself")
                        }
                        decoded.append(entry.owned)
                    }
                    // The piece is reused for the next read: nothing may still point into it.
                    raw.initializeMemory(as: UInt8.self, repeating: 0xEE)
                }
                piece.removeAll()
                at = end
            }
            XCTAssertEqual(decoded, frames, "pieces of \(pieceSize) bytes")
            XCTAssertEqual(decoder.bufferedByteCount, 0)
            if pieceSize == bytes.count {
                // In one piece every MESSAGE is whole but the 70,000-byte one (over the
                // in-place threshold, it is cut on arrival too: it is whole): all lent.
                XCTAssertEqual(borrowed, frames.filter { $0.type == .message }.count)
            }
            if pieceSize == 1 { XCTAssertEqual(borrowed, 0, "no frame is whole in one byte") }
        }
    }

    /// Frames left in borrowed bytes when their taker stops are copied by
    /// `keepBorrowedFrames()`, and survive the bytes being overwritten.
    func testKeptBorrowedFramesSurviveTheirBytes() throws {
        let frames = [Frame(.message, stream: 1, payload: [1, 2, 3]), Frame(.message, stream: 3, payload: [4, 5]), Frame(.ping, payload: [6])]
        var bytes: [UInt8] = []
        for frame in frames { frame.encode(into: &bytes) }
        var decoder = FrameDecoder(maxPayloadSize: 1 << 20)
        var first: Frame?
        try bytes.withUnsafeMutableBytes { raw in
            decoder.append(borrowing: UnsafeRawBufferPointer(raw))
            first = try decoder.nextEntry()?.owned
            decoder.keepBorrowedFrames()
            raw.initializeMemory(as: UInt8.self, repeating: 0xEE)
        }
        var rest: [Frame] = []
        while let frame = try decoder.next() { rest.append(frame) }
        XCTAssertEqual([first].compactMap { $0 } + rest, frames)
        // Kept: a plain append may follow.
        decoder.append(frames[0].encoded)
        XCTAssertEqual(try decoder.next(), frames[0])
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

    /// Large payloads that arrive in pieces are gathered in storage of their own: pieces of
    /// every size (cut inside headers, inside payloads, across frames; the next frame's bytes
    /// arriving with the end of a large payload) give the same frames, and nothing is lost.
    func testLargePayloadsArrivingInPiecesOfAnySize() throws {
        let frames = [
            Frame(.message, stream: 1, payload: (0..<65_559).map { UInt8(truncatingIfNeeded: $0 &* 7) }),
            Frame(.windowUpdate, stream: 0, payload: [1, 2, 3]),
            Frame(.message, stream: 3, payload: (0..<FrameDecoder.inPlaceThreshold).map { UInt8(truncatingIfNeeded: $0 &* 13) }),
            Frame(.message, stream: 3, payload: (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }),
            Frame(.status, stream: 1, payload: [9]),
        ]
        var bytes: [UInt8] = []
        for frame in frames { frame.encode(into: &bytes) }
        for pieceSize in [1, 10, 11, 4_096, 65_536, 65_569, 65_570, 100_000, bytes.count] {
            var decoder = FrameDecoder(maxPayloadSize: 1 << 20)
            var decoded: [Frame] = []
            var at = 0
            while at < bytes.count {
                let end = min(bytes.count, at + pieceSize)
                decoder.append(bytes[at..<end])
                at = end
                while let frame = try decoder.next() { decoded.append(frame) }
            }
            XCTAssertEqual(decoded, frames, "pieces of \(pieceSize) bytes")
            XCTAssertEqual(decoder.bufferedByteCount, 0, "pieces of \(pieceSize) bytes")
        }
    }

    /// Reads end anywhere — inside a header, inside a payload, on a frame's end — and the
    /// frame left partial by one read is completed from the next before that read's whole
    /// frames are cut: pieces of random sizes, drained after every read or only after some
    /// (two reads in a row), give the same frames in order, and headers that must be
    /// refused are still refused, after the frames before them.
    func testFramesLeftPartialByAReadAreCompletedFromTheNext() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<60 {
            let frames = (0..<Int.random(in: 1...16, using: &generator)).map { index in
                let size = [0, 1, 9, 10, 11, 8_301, FrameDecoder.inPlaceThreshold - 1, FrameDecoder.inPlaceThreshold, 70_000].randomElement(using: &generator)!
                return Frame(
                    FrameType.allCases.randomElement(using: &generator)!, stream: UInt32(index),
                    flags: FrameFlags(rawValue: UInt8.random(in: 0...3, using: &generator)),
                    payload: [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: size) + [UInt8(truncatingIfNeeded: size)])
            }
            var bytes: [UInt8] = []
            for frame in frames { frame.encode(into: &bytes) }
            var decoder = FrameDecoder(maxPayloadSize: 1 << 20)
            var decoded: [Frame] = []
            var at = 0
            while at < bytes.count {
                let end = min(bytes.count, at + Int.random(in: 1...(round % 2 == 0 ? 20 : 70_000), using: &generator))
                decoder.append(bytes[at..<end])
                at = end
                if Bool.random(using: &generator) || at == bytes.count {
                    while let frame = try decoder.next() { decoded.append(frame) }
                }
            }
            XCTAssertEqual(decoded.count, frames.count, "round \(round)")
            XCTAssertTrue(decoded == frames, "round \(round): the frames differ")
            XCTAssertEqual(decoder.bufferedByteCount, 0, "round \(round)")
        }

        // A refused header completed by a later read: the frames before it come out first.
        let good = Frame(.message, stream: 1, payload: [UInt8](repeating: 4, count: 300))
        let tooLong = Frame(.message, stream: 3, payload: [UInt8](repeating: 5, count: 301))
        for split in [good.encoded.count - 7, good.encoded.count + 4] {
            var decoder = FrameDecoder(maxPayloadSize: 300)
            let stream = good.encoded + tooLong.encoded
            decoder.append(stream.prefix(split))
            var decoded: [Frame] = []
            while let frame = try decoder.next() { decoded.append(frame) }
            decoder.append(stream.dropFirst(split))
            if decoded.isEmpty { XCTAssertEqual(try decoder.next(), good, "split at \(split)") }
            XCTAssertThrowsError(try decoder.next(), "split at \(split)") { error in
                XCTAssertEqual((error as? PhotoLibError)?.code, .resourceExhausted)
            }
        }
    }

    /// A large payload being gathered counts as buffered, and a header alone returns nothing.
    func testLargePayloadInProgressIsBuffered() throws {
        let frame = Frame(.message, stream: 5, payload: [UInt8](repeating: 3, count: 40_000))
        var decoder = FrameDecoder(maxPayloadSize: 1 << 20)
        decoder.append(frame.encoded.prefix(30_010))
        XCTAssertNil(try decoder.next())
        XCTAssertEqual(decoder.bufferedByteCount, 30_000)
        decoder.append(frame.encoded.dropFirst(30_010).prefix(9_999))
        XCTAssertNil(try decoder.next())
        XCTAssertEqual(decoder.bufferedByteCount, 39_999)
        decoder.append(frame.encoded.suffix(1) + Frame(.ping, payload: [1]).encoded.prefix(4))
        XCTAssertEqual(try decoder.next(), frame)
        XCTAssertNil(try decoder.next())
        XCTAssertEqual(decoder.bufferedByteCount, 4)
    }

    /// Whole frames of bytes appended to an empty buffer are cut at once: they come first, in
    /// order, before a partial frame completed later; they count as buffered until returned;
    /// a frame over the limit behind them is refused only after them; and one over the limit
    /// when appended is judged by the limit in force when it is reached (the server raises
    /// HELLO's limit once the handshake is done).
    func testFramesCutOnArrivalKeepOrderAndTheLimitInForce() throws {
        let small = [Frame(.message, stream: 1, payload: Array(repeating: 1, count: 50)), Frame(.status, stream: 1, payload: [])]
        let next = Frame(.message, stream: 3, payload: (0..<90).map { UInt8($0) })
        var bytes: [UInt8] = []
        for frame in small + [next] { frame.encode(into: &bytes) }
        var decoder = FrameDecoder(maxPayloadSize: 100)
        decoder.append(bytes.dropLast(30))
        XCTAssertEqual(decoder.bufferedByteCount, bytes.count - 30)
        XCTAssertEqual(try decoder.next(), small[0])
        XCTAssertEqual(decoder.bufferedByteCount, bytes.count - 30 - 60)
        XCTAssertEqual(try decoder.next(), small[1])
        XCTAssertNil(try decoder.next())
        decoder.append(bytes.suffix(30) + small[1].encoded)
        XCTAssertEqual(try decoder.next(), next)
        XCTAssertEqual(try decoder.next(), small[1])
        XCTAssertNil(try decoder.next())
        XCTAssertEqual(decoder.bufferedByteCount, 0)

        let large = Frame(.message, stream: 5, payload: Array(repeating: 9, count: 150))
        var refused = FrameDecoder(maxPayloadSize: 100)
        refused.append(small[0].encoded + large.encoded)
        XCTAssertEqual(try refused.next(), small[0])
        XCTAssertThrowsError(try refused.next()) { error in
            XCTAssertEqual((error as? PhotoLibError)?.code, .resourceExhausted)
        }

        var raised = FrameDecoder(maxPayloadSize: 100)
        raised.append(small[0].encoded + large.encoded + small[1].encoded)
        XCTAssertEqual(try raised.next(), small[0])
        raised.maxPayloadSize = 1000
        XCTAssertEqual(try raised.next(), large)
        XCTAssertEqual(try raised.next(), small[1])
        XCTAssertNil(try raised.next())
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
