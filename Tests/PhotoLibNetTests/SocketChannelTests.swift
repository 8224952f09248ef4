import Dispatch
import Foundation
import XCTest

@testable import PhotoLibNet

#if canImport(Glibc)
import Glibc
#endif

/// `SocketChannel` over real connected sockets (a `socketpair`): the event loop, read
/// turns, sending during a turn, and closing from either side.
final class SocketChannelTests: XCTestCase {
    /// A channel on one end of a socket pair; the test holds the other, blocking, end.
    private struct Pair {
        /// The channel's own descriptor, and its inode (to tell it from a reused number).
        var channelDescriptor: (fd: Int32, inode: UInt64) = (-1, 0)
        let channel: SocketChannel
        let peer: Int32
    }

    private func makePair(label: String = "test.channel") throws -> Pair {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
            throw SocketError(call: "socketpair", errno: errno)
        }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        let channel = SocketChannel(fd: fds[0], peer: nil, queue: DispatchQueue(label: label))
        var pair = Pair(channel: channel, peer: fds[1])
        pair.channelDescriptor = (fds[0], Self.inode(of: fds[0]) ?? 0)
        return pair
    }

    private func start(_ channel: SocketChannel) throws {
        let failure = channel.queue.sync { () -> SocketError? in
            do throws(SocketError) {
                try channel.start()
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Writes all of `bytes` to the blocking `fd`.
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            XCTAssertGreaterThan(n, 0, "write to the peer end failed: errno \(errno)")
            if n <= 0 { return }
            done += n
        }
    }

    /// Reads exactly `count` bytes from `fd`, or fewer if nothing arrives for `seconds`.
    private func read(_ fd: Int32, count: Int, within seconds: Int32 = 10) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: max(count, 1))
        while result.count < count {
            var waiter = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&waiter, 1, seconds * 1000) == 1 else { break }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, count - result.count) }
            if n <= 0 { break }
            result += buffer[0..<n]
        }
        return result
    }

    /// The inode behind `fd`, or `nil` when `fd` is not open.
    private static func inode(of fd: Int32) -> UInt64? {
        var status = stat()
        return fstat(fd, &status) == 0 ? UInt64(status.st_ino) : nil
    }

    /// Whether the socket `descriptor` named is still open (its number may have been reused
    /// for something else since, which does not count: other tests' cleanups open and close
    /// descriptors concurrently, so the process-wide count proves nothing).
    private static func isOpen(_ descriptor: (fd: Int32, inode: UInt64)) -> Bool {
        inode(of: descriptor.fd) == descriptor.inode
    }

    func testBytesArriveInOrderAndRepliesGoBack() throws {
        let pair = try makePair()
        defer { close(pair.peer) }
        let received = LockedBytes()
        pair.channel.onRead = { [channel = pair.channel] bytes in
            received.append(bytes)
            channel.write(bytes.map { $0 ^ 0xFF })
        }
        try start(pair.channel)
        let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let writer = Thread { Self.writeAll(pair.peer, payload) }
        writer.start()
        let echoed = read(pair.peer, count: payload.count)
        XCTAssertEqual(echoed.count, payload.count)
        XCTAssertEqual(echoed, payload.map { $0 ^ 0xFF })
        XCTAssertEqual(received.bytes, payload)
        pair.channel.queue.sync { pair.channel.close() }
    }

    /// With `onReadInPlace` set, every byte arrives there, in order, and `onRead` hears
    /// nothing; once the channel closes after writing, input is dropped.
    func testBytesReadInPlaceArriveInOrderInsteadOfOnRead() throws {
        let pair = try makePair()
        defer { close(pair.peer) }
        let received = LockedBytes(), copied = LockedBytes()
        pair.channel.onRead = { bytes in copied.append(bytes) }
        pair.channel.onReadInPlace = { [channel = pair.channel] bytes in
            received.append(Array(bytes))
            channel.write(bytes.map { $0 ^ 0x5A })
        }
        try start(pair.channel)
        let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let writer = Thread { Self.writeAll(pair.peer, payload) }
        writer.start()
        let echoed = read(pair.peer, count: payload.count)
        XCTAssertEqual(echoed, payload.map { $0 ^ 0x5A })
        XCTAssertEqual(received.bytes, payload)
        XCTAssertEqual(copied.bytes, [], "onRead is not called while onReadInPlace is set")
        pair.channel.queue.sync { pair.channel.closeAfterWriting() }
        XCTAssertNil(pair.channel.queue.sync { pair.channel.onReadInPlace }, "closing drops input")
        Self.writeAll(pair.peer, [1, 2, 3])
        XCTAssertEqual(read(pair.peer, count: 1, within: 5), [], "EOF after the last reply")
        XCTAssertEqual(received.bytes.count, payload.count)
    }

    /// A read turn sends what one chunk's delivery wrote before it reads the next chunk: the
    /// peer gets its answer while this side is still busy with later input. The second
    /// delivery waits until the peer has the first answer; had the answer waited for the end
    /// of the turn, it would wait in vain.
    func testWhatADeliveryWritesLeavesBeforeTheNextChunkIsRead() throws {
        let pair = try makePair()
        defer { close(pair.peer) }
        let firstDelivered = DispatchSemaphore(value: 0)
        let restWritten = DispatchSemaphore(value: 0)
        let answerReceived = DispatchSemaphore(value: 0)
        let outcome = LockedBytes()
        var deliveries = 0
        pair.channel.onRead = { [channel = pair.channel] _ in
            deliveries += 1
            if deliveries == 1 {
                channel.write(Array("answer".utf8))
                firstDelivered.signal()
                // The rest of the input is in the socket before this delivery returns, so
                // the same turn reads it next.
                _ = restWritten.wait(timeout: .now() + 10)
            } else if deliveries == 2 {
                let answered = answerReceived.wait(timeout: .now() + 5) == .success
                outcome.append([answered ? 1 : 0])
            }
        }
        try start(pair.channel)
        Self.writeAll(pair.peer, [1])
        XCTAssertEqual(firstDelivered.wait(timeout: .now() + 10), .success)
        Self.writeAll(pair.peer, [UInt8](repeating: 2, count: 1000))
        restWritten.signal()
        let answer = read(pair.peer, count: 6, within: 10)
        XCTAssertEqual(String(decoding: answer, as: UTF8.self), "answer")
        answerReceived.signal()
        pair.channel.queue.sync { pair.channel.close() }
        XCTAssertEqual(outcome.bytes, [1], "the answer to the first chunk stayed queued while the next chunk was read")
    }

    func testASubmittedTurnSendsWhatItWrote() throws {
        let pair = try makePair()
        defer { close(pair.peer) }
        try start(pair.channel)
        let ranHere = pair.channel.submit { [channel = pair.channel] in
            channel.write(Array("from a turn".utf8))
        }
        XCTAssertTrue(ranHere, "with no turn running, submit runs its own")
        XCTAssertEqual(String(decoding: read(pair.peer, count: 11), as: UTF8.self), "from a turn")
        pair.channel.queue.sync { pair.channel.close() }
    }

    /// Work submitted while a read turn runs joins it: `submit` returns at once (the turn is
    /// still busy, so waiting for the queue would hang this test), the work runs on the
    /// channel's queue before the turn ends, and what it wrote leaves with the turn's writes.
    func testWorkSubmittedDuringAReadTurnJoinsItWithoutWaiting() throws {
        let pair = try makePair()
        defer { close(pair.peer) }
        let inTurn = DispatchSemaphore(value: 0)
        let submitted = DispatchSemaphore(value: 0)
        let outcome = LockedBytes()
        pair.channel.onRead = { [channel = pair.channel] _ in
            channel.write(Array("turn;".utf8))
            inTurn.signal()
            outcome.append([submitted.wait(timeout: .now() + 10) == .success ? 1 : 0])
        }
        try start(pair.channel)
        Self.writeAll(pair.peer, [1])
        XCTAssertEqual(inTurn.wait(timeout: .now() + 10), .success)
        let queueKey = DispatchSpecificKey<Bool>()
        pair.channel.queue.setSpecific(key: queueKey, value: true)
        let ranHere = pair.channel.submit { [channel = pair.channel] in
            outcome.append([DispatchQueue.getSpecific(key: queueKey) == true ? 2 : 0])
            channel.write(Array("joined".utf8))
        }
        submitted.signal()
        XCTAssertFalse(ranHere, "submit waited for the running turn instead of joining it")
        XCTAssertEqual(String(decoding: read(pair.peer, count: 11), as: UTF8.self), "turn;joined")
        pair.channel.queue.sync { pair.channel.close() }
        XCTAssertEqual(outcome.bytes, [1, 2], "the joined work ran before the turn's delivery returned, or off the queue")
    }

    /// A started channel whose turns hold their writes while `hold` holds `[1]` (it does at
    /// first), with a hold limit long enough never to matter.
    private func startHolding() throws -> (Pair, LockedBytes) {
        let pair = try makePair()
        let hold = LockedBytes()
        hold.append([1])
        pair.channel.holdsWrites = { hold.bytes == [1] }
        pair.channel.heldWritesLimit = .seconds(60)
        try start(pair.channel)
        return (pair, hold)
    }

    /// Nothing reaches the peer for 300 ms.
    private func assertNothingArrives(_ pair: Pair, file: StaticString = #filePath, line: UInt = #line) {
        var waiter = pollfd(fd: pair.peer, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&waiter, 1, 300), 0, "held writes were sent", file: file, line: line)
    }

    /// While ``SocketChannel/holdsWrites`` says so, a submitted turn keeps what it
    /// wrote; ``SocketChannel/sendHeldWrites()`` sends it once the answer changes, together
    /// with what later turns wrote meanwhile.
    func testHeldWritesLeaveWhenReleased() throws {
        let (pair, hold) = try startHolding()
        defer { close(pair.peer) }
        pair.channel.submit { [channel = pair.channel] in channel.write(Array("first;".utf8)) }
        pair.channel.submit { [channel = pair.channel] in channel.write(Array("second".utf8)) }
        assertNothingArrives(pair)
        hold.removeAll()
        pair.channel.sendHeldWrites()
        XCTAssertEqual(String(decoding: read(pair.peer, count: 12), as: UTF8.self), "first;second")
        pair.channel.queue.sync { pair.channel.close() }
    }

    /// Released from the channel's own queue (a task on a connection's executor runs there),
    /// held writes leave without waiting for the queue: at once outside a turn, at the end
    /// of the turn otherwise. Waiting for the queue there would deadlock.
    func testHeldWritesReleasedOnTheQueueLeaveWithoutWaitingForIt() throws {
        let (pair, hold) = try startHolding()
        defer { close(pair.peer) }
        pair.channel.submit { [channel = pair.channel] in channel.write(Array("held".utf8)) }
        assertNothingArrives(pair)
        hold.removeAll()
        pair.channel.queue.sync { [channel = pair.channel] in
            XCTAssertTrue(channel.isOnQueue)
            channel.sendHeldWrites()
        }
        XCTAssertFalse(pair.channel.isOnQueue)
        XCTAssertEqual(String(decoding: read(pair.peer, count: 4), as: UTF8.self), "held")
        hold.append([1])
        pair.channel.submit { [channel = pair.channel] in channel.write(Array("more".utf8)) }
        hold.removeAll()
        pair.channel.queue.sync { [channel = pair.channel] in
            channel.turn {
                channel.sendHeldWrites()
                // Within a turn they wait for its end (its writes leave in one send).
                self.assertNothingArrives(pair)
            }
        }
        XCTAssertEqual(String(decoding: read(pair.peer, count: 4), as: UTF8.self), "more")
        pair.channel.queue.sync { pair.channel.close() }
    }

    /// A hold that is never released still ends: what a submitted turn held is sent after
    /// ``SocketChannel/heldWritesLimit`` (a liveness check, with a generous bound, not a
    /// timing one), and so is what a later turn held after that.
    func testHeldWritesLeaveWhenNeverReleased() throws {
        let pair = try makePair()
        defer { close(pair.peer) }
        pair.channel.holdsWrites = { true }
        try start(pair.channel)
        pair.channel.submit { [channel = pair.channel] in channel.write(Array("held;".utf8)) }
        XCTAssertEqual(String(decoding: read(pair.peer, count: 5, within: 5), as: UTF8.self), "held;", "held writes waited for a release that never came")
        pair.channel.submit { [channel = pair.channel] in channel.write(Array("again".utf8)) }
        XCTAssertEqual(String(decoding: read(pair.peer, count: 5, within: 5), as: UTF8.self), "again", "a later hold waited for a release that never came")
        pair.channel.queue.sync { pair.channel.close() }
    }

    /// Channels closed by this side, and channels whose peer went away, leave their event
    /// loop and close their descriptors; the peer's close is reported as an orderly one.
    func testClosingFromEitherSideReleasesTheDescriptor() throws {
        let closes = LockedBytes()
        var peers: [Int32] = []
        var descriptors: [(fd: Int32, inode: UInt64)] = []
        var channels: [SocketChannel] = []
        for index in 0..<20 {
            let pair = try makePair(label: "test.channel.\(index)")
            pair.channel.onClose = { error in closes.append([error == nil ? 1 : 0]) }
            try start(pair.channel)
            peers.append(pair.peer)
            descriptors.append(pair.channelDescriptor)
            channels.append(pair.channel)
        }
        XCTAssertTrue(descriptors.allSatisfy(Self.isOpen), "every channel holds its descriptor while open")
        for index in 0..<20 {
            if index.isMultiple(of: 2) {
                close(peers[index])
            } else {
                channels[index].queue.sync { channels[index].close() }
                close(peers[index])
            }
        }
        channels.removeAll()
        let deadline = DispatchTime.now() + 10
        while descriptors.contains(where: Self.isOpen) && DispatchTime.now() < deadline { usleep(10_000) }
        XCTAssertFalse(descriptors.contains(where: Self.isOpen), "a closed channel kept its descriptor open")
        XCTAssertEqual(closes.bytes.count, 20)
        XCTAssertEqual(closes.bytes.filter { $0 == 1 }.count, 20, "every close was orderly")
    }

    func testCloseAfterWritingDeliversEverythingThenEOF() throws {
        let pair = try makePair()
        defer { close(pair.peer) }
        try start(pair.channel)
        let payload = [UInt8](repeating: 7, count: 500_000)
        pair.channel.queue.sync {
            pair.channel.write(payload)
            pair.channel.closeAfterWriting()
        }
        XCTAssertEqual(read(pair.peer, count: payload.count), payload)
        var byte: UInt8 = 0
        XCTAssertEqual(Glibc.read(pair.peer, &byte, 1), 0, "EOF after the last byte")
    }
}

extension SocketChannelTests {
    /// A file of `bytes` in a temporary directory, open for reading; the object closes it.
    private final class OpenFile: Sendable {
        let descriptor: Int32
        init(_ bytes: [UInt8]) throws {
            let path = NSTemporaryDirectory() + "/socket-channel-\(UUID().uuidString)"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            unlink(path)
            guard descriptor >= 0 else { throw SocketError(call: "open", errno: errno) }
        }
        deinit { close(descriptor) }
    }

    /// File regions (`sendfile`) leave in order with the bytes written around them, however
    /// much the peer's socket takes at a time (far more than the socket buffer is queued).
    func testFileRegionsLeaveInOrderWithTheBytesAroundThem() throws {
        let pair = try makePair()
        defer { close(pair.peer) }
        try start(pair.channel)
        let content = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 12) }
        let file = try OpenFile(content)
        var expected: [UInt8] = []
        pair.channel.queue.sync {
            for (index, start) in stride(from: 0, to: content.count, by: 700_001).enumerated() {
                let header = [UInt8](repeating: UInt8(index), count: index + 1)
                pair.channel.write(header)
                expected += header
                let count = min(700_001, content.count - start)
                pair.channel.write(file: FileRegion(descriptor: file.descriptor, offset: start, count: count, owner: file))
                expected += content[start..<start + count]
            }
            pair.channel.write(encoding: { $0 += [0xEE, 0xFF] })
            expected += [0xEE, 0xFF]
            XCTAssertEqual(pair.channel.pendingWriteCount > 0, true)
        }
        XCTAssertEqual(read(pair.peer, count: expected.count), expected)
        pair.channel.queue.sync {
            XCTAssertEqual(pair.channel.pendingWriteCount, 0)
            pair.channel.close()
        }
    }

    /// A file that ends before its region does: the bytes promised cannot come, so the
    /// channel closes with `EIO` once what it could send is sent.
    func testAFileShorterThanItsRegionClosesTheChannel() throws {
        let pair = try makePair()
        defer { close(pair.peer) }
        let closed = DispatchSemaphore(value: 0)
        let failure = LockedBytes()
        pair.channel.onClose = { error in
            if error?.errno == EIO { failure.append([1]) }
            closed.signal()
        }
        try start(pair.channel)
        let file = try OpenFile([1, 2, 3, 4, 5])
        pair.channel.queue.sync {
            pair.channel.write([9])
            pair.channel.write(file: FileRegion(descriptor: file.descriptor, offset: 2, count: 10, owner: file))
        }
        XCTAssertEqual(closed.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(failure.bytes, [1], "closed with EIO")
        XCTAssertEqual(read(pair.peer, count: 5, within: 2), [9, 3, 4, 5])
    }
}

/// Bytes appended from any thread.
private final class LockedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [UInt8] = []
    func append(_ bytes: [UInt8]) { lock.withLock { storage += bytes } }
    func removeAll() { lock.withLock { storage = [] } }
    var bytes: [UInt8] { lock.withLock { storage } }
}
