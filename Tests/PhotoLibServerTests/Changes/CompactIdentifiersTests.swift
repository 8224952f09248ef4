import Foundation
import XCTest
@testable import PhotoLibServer

/// Snapshot lists in 16 bytes per asset give back exactly the identifiers they were given.
final class CompactIdentifiersTests: XCTestCase {
    func testIdentifiersRoundTripAndAreFound() {
        let made = (0..<1000).map { _ in UUID().uuidString + "/L0/001" }
        // Identifiers not made here: kept as text, same answers.
        let foreign = ["7c9e6679-7425-40de-944b-e07fc1f90ae7/L0/001", "ABC/L0/001", "0F0F0F0F-0000-0000-0000-000000000000/L0/040", "x"]
        let all = made[..<500] + foreign + made[500...]
        let list = CompactIdentifiers(Array(all))
        XCTAssertEqual(list.count, all.count)
        XCTAssertEqual(list.all, Array(all))
        XCTAssertEqual(list.identifiers(in: 499..<506), Array(all[499..<506]))
        for (index, identifier) in all.enumerated() where index % 37 == 0 || foreign.contains(identifier) {
            XCTAssertEqual(list.index(of: identifier), index, identifier)
        }
        XCTAssertNil(list.index(of: UUID().uuidString + "/L0/001"))
        XCTAssertNil(list.index(of: "nothing"))
        XCTAssertLessThan(list.byteCount, all.count * 16 + foreign.count * 128 + 128, "16 bytes per made identifier")
    }
}
