import PhotoLibCore
import XCTest

@testable import PhotoLibWire

final class FlowWindowTests: XCTestCase {
    func testSpendAndGrant() throws {
        var window = FlowWindow(initial: 100)
        XCTAssertTrue(window.allows(100))
        XCTAssertFalse(window.allows(101))
        try window.spend(60)
        XCTAssertEqual(window.available, 40)
        XCTAssertThrowsError(try window.spend(41))
        try window.grant(60)
        XCTAssertEqual(window.available, 100)
    }

    func testZeroAndOverflowingGrantsAreViolations() {
        var window = FlowWindow(initial: WireLimits.maxWindow - 10)
        XCTAssertThrowsError(try window.grant(0))
        XCTAssertThrowsError(try window.grant(11)) { error in
            XCTAssertEqual((error as? PhotoLibError)?.reason, .protocolViolation)
        }
        XCTAssertNoThrow(try window.grant(10))
    }

    func testAnnouncedSizesAreCheckedNotClamped() throws {
        XCTAssertEqual(try WireLimits.maxFrameSize(announced: 0), 1 << 20)
        XCTAssertEqual(try WireLimits.maxFrameSize(announced: 128 << 10), 128 << 10)
        XCTAssertEqual(try WireLimits.maxFrameSize(announced: 16 << 20), 16 << 20)
        XCTAssertThrowsError(try WireLimits.maxFrameSize(announced: 1000))
        XCTAssertThrowsError(try WireLimits.maxFrameSize(announced: .max))
        XCTAssertEqual(try WireLimits.window(announced: 0, fallback: 5000, atLeast: 1000, name: "w"), 5000)
        XCTAssertEqual(try WireLimits.window(announced: 2000, fallback: 5000, atLeast: 1000, name: "w"), 2000)
        XCTAssertThrowsError(try WireLimits.window(announced: 999, fallback: 5000, atLeast: 1000, name: "w"))
        XCTAssertThrowsError(try WireLimits.window(announced: .max, fallback: 5000, atLeast: 1000, name: "w"))
    }
}
