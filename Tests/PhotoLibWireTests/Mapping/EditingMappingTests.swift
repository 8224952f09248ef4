import PhotoLibCore
import PhotoLibWire
import XCTest

/// Adjustment data, formats and the filter recipe inside adjustment data.
final class EditingMappingTests: XCTestCase {
    func testRecipeRoundTripsThroughAdjustmentData() throws {
        let recipe = FilterRecipe([
            .filter(.noir, intensity: 0.75), .exposure(-0.5), .contrast(0.25), .saturation(-1),
            .crop(NormalizedRect(x: 0.25, y: 0, width: 0.5, height: 1)), .rotate(quarterTurns: 3), .mirror,
        ])
        let adjustment = recipe.adjustmentData
        XCTAssertEqual(adjustment.formatIdentifier, "org.photolib.filter")
        XCTAssertEqual(adjustment.formatVersion, "1")
        XCTAssertEqual(try FilterRecipe(adjustmentData: adjustment), recipe)
        // The bytes are the FilterRecipe message of editing.proto, as other clients write it.
        let message = try Wire.FilterRecipe(decoding: adjustment.data)
        XCTAssertEqual(message.operations.count, 7)
        XCTAssertEqual(message.operations.first?.operation, .filter(Wire.FilterApplication(filter: .noir, intensity: 0.75)))
    }

    func testBadRecipesNameTheStep() {
        func message(_ operations: [Wire.FilterOperation], format: String = "org.photolib.filter", version: String = "1") -> String {
            let data = AdjustmentData(formatIdentifier: format, formatVersion: version, data: Wire.FilterRecipe(operations: operations).encoded())
            do {
                _ = try FilterRecipe(adjustmentData: data)
                XCTFail("accepted \(operations)")
                return ""
            } catch {
                XCTAssertEqual(error.code, .invalidArgument)
                return error.message
            }
        }
        XCTAssertTrue(message([Wire.FilterOperation()]).contains("operations[0] sets no operation"))
        XCTAssertTrue(message([Wire.FilterOperation(operation: .filter(Wire.FilterApplication(filter: .init(rawValue: 42), intensity: 1)))]).contains("unknown value 42"))
        XCTAssertTrue(message([Wire.FilterOperation(operation: .exposureEv(7))]).contains("exposure"))
        XCTAssertTrue(message([Wire.FilterOperation(operation: .mirror(false))]).contains("mirror is false"))
        XCTAssertTrue(message([], version: "2").contains("is not a filter recipe"))
    }

    func testAdjustmentDataLimitsAndFormats() throws {
        let big = AdjustmentData(formatIdentifier: "com.example", formatVersion: "1", data: Array(repeating: 0, count: 64 * 1024 + 1))
        XCTAssertThrowsError(try big.validated())
        XCTAssertThrowsError(try AdjustmentData(formatIdentifier: "", formatVersion: "1", data: []).validated())
        let data = AdjustmentData(formatIdentifier: "com.example", formatVersion: "1.2", data: [1])
        XCTAssertEqual(try Wire.AdjustmentData(data).domain(), data)
        XCTAssertTrue(AdjustmentFormat(formatIdentifier: "com.example", formatVersion: "1.2").handles(data))
        XCTAssertTrue(AdjustmentFormat(formatIdentifier: "com.example", formatVersion: "1.*").handles(data))
        XCTAssertTrue(AdjustmentFormat(formatIdentifier: "com.example", formatVersion: "*").handles(data))
        XCTAssertFalse(AdjustmentFormat(formatIdentifier: "com.example", formatVersion: "2.*").handles(data))
        XCTAssertFalse(AdjustmentFormat(formatIdentifier: "org.other", formatVersion: "*").handles(data))
    }
}
