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

    func testAnnouncedSizesAreClamped() {
        XCTAssertEqual(WireLimits.maxFrameSize(announced: 0), 1 << 20)
        XCTAssertEqual(WireLimits.maxFrameSize(announced: 1), 16 << 10)
        XCTAssertEqual(WireLimits.maxFrameSize(announced: .max), 16 << 20)
        XCTAssertEqual(WireLimits.window(announced: 0, fallback: 5000, atLeast: 1000), 5000)
        XCTAssertEqual(WireLimits.window(announced: 10, fallback: 5000, atLeast: 1000), 1000)
    }
}
