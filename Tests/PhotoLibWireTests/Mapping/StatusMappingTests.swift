import PhotoLibCore
import PhotoLibWire
import XCTest

/// PhotoLibError → STATUS: a refusal always names its reason on the wire (docs/PROTOCOL.md
/// 8.3), whether or not the code that raised it did; other reasons pass as they are.
final class StatusMappingTests: XCTestCase {
    func testPermissionDeniedAlwaysCarriesAReason() {
        XCTAssertEqual(Wire.Status(PhotoLibError(.permissionDenied, "owner only")).reason, .init(ErrorReason.notAuthorized))
        XCTAssertEqual(Wire.Status(PhotoLibError(.permissionDenied, "x", reason: .notAuthorized)).reason, .init(ErrorReason.notAuthorized))
        XCTAssertEqual(Wire.Status(PhotoLibError(.invalidArgument, "x")).reason, .init(ErrorReason.unspecified), "other codes keep no reason")
        let failed = Wire.Status(PhotoLibError(.permissionDenied, "request 2", reason: .notAuthorized, failedRequestIndex: 2))
        XCTAssertEqual(failed.failedRequestIndexPlusOne, 3)
        XCTAssertEqual(failed.error?.reason, .notAuthorized)
    }
}
