import Foundation
import PhotoLibCore
import XCTest

/// Core's enums carry the wire numbers directly; they must agree with Protos/*.proto.
final class ProtoEnumConsistencyTests: XCTestCase {
    private func enumValues(_ enumName: String, in file: String) throws -> [String: Int] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("Protos/\(file)"), encoding: .utf8)
        guard let start = text.range(of: "enum \(enumName) {"), let end = text[start.upperBound...].range(of: "}") else {
            XCTFail("enum \(enumName) not in \(file)")
            return [:]
        }
        var values: [String: Int] = [:]
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let parts = line.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: ";"))) }
            if parts.count == 2, let number = Int(parts[1]) { values[parts[0]] = number }
        }
        return values
    }

    private func screaming(_ camel: String) -> String {
        var out = ""
        for character in camel {
            if character.isUppercase, !out.isEmpty { out += "_" }
            out += character.uppercased()
        }
        return out
    }

    func testStatusCodes() throws {
        let values = try enumValues("StatusCode", in: "transport.proto")
        XCTAssertEqual(values.count, StatusCode.allCases.count)
        for code in StatusCode.allCases {
            XCTAssertEqual(values["STATUS_CODE_\(code.description)"], code.rawValue, "\(code)")
        }
    }

    func testFilterNames() throws {
        let values = try enumValues("FilterName", in: "editing.proto")
        XCTAssertEqual(values.count, FilterName.allCases.count + 1)  // + UNSPECIFIED
        for name in FilterName.allCases {
            XCTAssertEqual(values["FILTER_NAME_\(name.description.uppercased())"], name.rawValue, "\(name)")
        }
    }

    func testErrorReasons() throws {
        let values = try enumValues("ErrorReason", in: "transport.proto")
        XCTAssertEqual(values.count, ErrorReason.allCases.count)
        for reason in ErrorReason.allCases {
            XCTAssertEqual(values["ERROR_REASON_\(screaming("\(reason)"))"], reason.rawValue, "\(reason)")
        }
    }

    func testCollectionSubtypesAndMediaTypes() throws {
        let subtypes = try enumValues("AssetCollectionSubtype", in: "library.proto")
        for subtype in AssetCollectionSubtype.allCases {
            XCTAssertEqual(subtypes["ASSET_COLLECTION_SUBTYPE_\(screaming(subtype.name))"], subtype.rawValue, subtype.name)
        }
        let media = try enumValues("MediaType", in: "library.proto")
        for type in MediaType.allCases {
            XCTAssertEqual(media["MEDIA_TYPE_\(type.name.uppercased())"], type.rawValue)
        }
        let bits = try enumValues("MediaSubtype", in: "library.proto")
        XCTAssertEqual(bits["MEDIA_SUBTYPE_PHOTO_SCREENSHOT"].map(UInt32.init), MediaSubtypes.photoScreenshot.rawValue)
        XCTAssertEqual(bits["MEDIA_SUBTYPE_VIDEO_TIMELAPSE"].map(UInt32.init), MediaSubtypes.videoTimelapse.rawValue)
        let authorization = try enumValues("AuthorizationStatus", in: "transport.proto")
        for status in AuthorizationStatus.allCases {
            XCTAssertEqual(authorization["AUTHORIZATION_STATUS_\(screaming("\(status)"))"], status.rawValue)
        }
    }
}
