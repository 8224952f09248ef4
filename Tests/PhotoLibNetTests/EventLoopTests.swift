import Dispatch
import Foundation
import XCTest

@testable import PhotoLibNet

#if canImport(Glibc)
import Glibc
#endif

/// The event loops under many sockets, and back-pressure: a peer that does not read stops
/// being read.
final class EventLoopTests: XCTestCase {
    /// Two connected non-blocking sockets.
    private func socketPair() throws -> (Int32, Int32) {
        try SocketPair.make()
    }

    /// Starts `channel` on its queue.
    private static func start(_ channel: SocketChannel) throws {
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

    /// Threads of this process now (`Threads:` in /proc/self/status).
    private static func threadCount() -> Int {
        let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("Threads:") } ?? ""
        return Int(line.split(separator: "\t").last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "") ?? -1
    }

    /// Before: each started channel had a reader thread of its own (500 channels, 500 threads).
    func testFiveHundredChannelsAddNoThreadPerChannel() throws {
        _ = EventLoopGroup.shared
        let before = Self.threadCount()
        var channels: [SocketChannel] = []
        var peers: [Int32] = []
        for index in 0..<500 {
            let (mine, theirs) = try socketPair()
            let channel = SocketChannel(fd: mine, peer: nil, queue: DispatchQueue(label: "test.loop.\(index)", target: .global()))
            channel.onRead = { [channel] bytes in channel.write(bytes) }
            try Self.start(channel)
            channels.append(channel)
            peers.append(theirs)
        }
        defer {
            for channel in channels { channel.queue.sync { channel.close() } }
            for peer in peers { close(peer) }
        }
        // Every channel answers: all are served by the loops.
        for peer in peers {
            var byte: UInt8 = 42
            XCTAssertEqual(write(peer, &byte, 1), 1)
        }
        var answered = 0
        for peer in peers {
            var waiter = pollfd(fd: peer, events: Int16(POLLIN), revents: 0)
            if poll(&waiter, 1, 10_000) == 1 {
                var byte: UInt8 = 0
                if read(peer, &byte, 1) == 1 && byte == 42 { answered += 1 }
            }
        }
        XCTAssertEqual(answered, 500, "every channel echoed its byte")
        let during = Self.threadCount()
        // Dispatch may add a few workers for the queues; a thread per channel would add 500.
        XCTAssertLessThan(during - before, 32, "threads went from \(before) to \(during) with 500 open channels")
    }

    /// A channel whose peer sends requests and reads no answers stops reading once its send
    /// queue passes the high-water mark, holding at most one read's answers beyond it; when
    /// the peer reads again, it resumes.
    func testAPeerThatDoesNotReadStopsBeingRead() throws {
        let (mine, theirs) = try socketPair()
        defer { close(theirs) }
        let channel = SocketChannel(fd: mine, peer: nil, queue: DispatchQueue(label: "test.backpressure"))
        channel.sendQueueHighWater = 256 << 10
        channel.sendQueueLowWater = 64 << 10
        let answer = [UInt8](repeating: 0xAB, count: 64 << 10)
        let lock = NSLock()
        var largestQueue = 0
        var requestBytes = 0
        // Each delivery of request bytes is answered with 64 KiB: an amplifying peer.
        channel.onRead = { [channel] bytes in
            channel.write(answer)
            lock.withLock {
                requestBytes += bytes.count
                largestQueue = max(largestQueue, channel.pendingWriteCount)
            }
        }
        try Self.start(channel)
        // Write requests (non-blocking) until the channel has paused reading: the socket
        // buffers fill because it stopped reading. (Without back-pressure it never pauses and
        // keeps taking requests until the deadline.)
        let request = [UInt8](repeating: 1, count: 4096)
        var written = 0
        var paused = false
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let n = request.withUnsafeBytes { send(theirs, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 {
                written += n
                continue
            }
            // Full: either the channel paused reading, or it is still catching up.
            paused = channel.queue.sync { channel.isReadingPaused }
            if paused { break }
            usleep(1_000)
        }
        XCTAssertTrue(paused, "the channel kept reading from a peer that reads nothing (\(written) bytes taken in 20 s)")
        let (largest, taken) = lock.withLock { (largestQueue, requestBytes) }
        XCTAssertLessThanOrEqual(largest, (256 << 10) + (64 << 10), "the send queue passed the high-water mark by more than one answer")
        // The peer reads: answers drain, reading resumes and takes the rest of the requests.
        var drained = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let end = Date().addingTimeInterval(20)
        while Date() < end {
            let n = buffer.withUnsafeMutableBytes { recv(theirs, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 { drained += n; continue }
            if lock.withLock({ requestBytes }) == written { break }
            usleep(5_000)
        }
        XCTAssertGreaterThan(drained, 0)
        XCTAssertEqual(lock.withLock { requestBytes }, written, "after the peer read its answers, the channel read every request (\(taken) before)")
        channel.queue.sync { channel.close() }
    }
}
