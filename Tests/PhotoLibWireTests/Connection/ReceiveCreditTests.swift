import XCTest

@testable import PhotoLibWire

/// When a receive window's consumed credit goes back (docs/PROTOCOL.md 9.3).
final class ReceiveCreditTests: XCTestCase {
    /// A large announced window batches credit, but never holds back more than the largest
    /// message: a server that uses only part of the window (its own maxima) gets credit back
    /// before it runs out.
    func testCreditHeldBackNeverExceedsTheLargestMessage() throws {
        let mib = 1 << 20
        var credit = ReceiveCredit(initial: 256 * mib, largestMessage: mib)
        var returned = 0
        // A server that keeps at most 16 MiB unacknowledged, sending 64 KiB messages.
        var unacknowledged = 0
        for _ in 0..<(64 * 16) {
            XCTAssertLessThanOrEqual(unacknowledged + 64 << 10, 16 * mib, "the server would wait for credit the client holds back")
            try credit.receive(64 << 10)
            unacknowledged += 64 << 10
            credit.consume(64 << 10)
            if let increment = credit.take() {
                returned += increment
                unacknowledged -= increment
            }
            XCTAssertLessThan(credit.held, mib, "held back at most one largest message")
        }
        XCTAssertEqual(returned, 64 * mib)
    }

    /// A window much larger than the largest message batches by a quarter of it while that
    /// is less than the largest message.
    func testWindowBatchesByAQuarterBelowTheLargestMessage() throws {
        var credit = ReceiveCredit(initial: 2 << 20, largestMessage: 1 << 20)
        try credit.receive(300 << 10)
        credit.consume(300 << 10)
        XCTAssertNil(credit.take(), "300 KiB of a 2 MiB window: kept for the batch")
        try credit.receive(300 << 10)
        credit.consume(300 << 10)
        XCTAssertEqual(credit.take(), 600 << 10, "a quarter gathered: all of it goes back")
    }
}
