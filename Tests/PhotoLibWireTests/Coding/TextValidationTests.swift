import PhotoLibCore
import XCTest

@testable import PhotoLibWire

/// Every received text must be valid UTF-8 without NUL bytes; protobuf-c alone would let
/// both through (and silently truncate at a NUL).
final class TextValidationTests: XCTestCase {
    /// A HELLO whose client_name (field 3) holds `bytes`.
    private func hello(clientName bytes: [UInt8]) -> [UInt8] {
        [0x08, 0x01, 0x12, 0x03] + Array("tok".utf8) + [0x1A, UInt8(bytes.count)] + bytes
    }

    private func assertInvalidText(_ payload: [UInt8], mentioning text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try Wire.Hello(decoding: payload), file: file, line: line) { error in
            let error = error as? PhotoLibError
            XCTAssertEqual(error?.code, .invalidArgument, file: file, line: line)
            XCTAssertEqual(error?.reason, .invalidText, file: file, line: line)
            XCTAssertTrue(error?.message.contains(text) ?? false, "\(error?.message ?? "")", file: file, line: line)
        }
    }

    func testValidTextPasses() throws {
        let decoded = try Wire.Hello(decoding: hello(clientName: Array("café 📷 日本".utf8)))
        XCTAssertEqual(decoded.clientName, "café 📷 日本")
        XCTAssertEqual(decoded.token, "tok")
    }

    func testInvalidUTF8IsRefused() {
        assertInvalidText(hello(clientName: [0x61, 0xC3, 0x28]), mentioning: "photolib.v1.Hello.client_name is not valid UTF-8 at byte 1")
    }

    func testEmbeddedNULIsRefused() {
        assertInvalidText(hello(clientName: [0x61, 0x00, 0x62]), mentioning: "contains a NUL byte at byte 1")
    }

    func testOverlongEncodingsAndSurrogatesAreRefused() {
        assertInvalidText(hello(clientName: [0xC0, 0xAF]), mentioning: "not valid UTF-8")
        assertInvalidText(hello(clientName: [0xE0, 0x80, 0xAF]), mentioning: "not valid UTF-8")
        assertInvalidText(hello(clientName: [0xED, 0xA0, 0x80]), mentioning: "not valid UTF-8")
        assertInvalidText(hello(clientName: [0xF4, 0x90, 0x80, 0x80]), mentioning: "not valid UTF-8")
        assertInvalidText(hello(clientName: [0xE2, 0x82]), mentioning: "not valid UTF-8")
    }

    func testTextInNestedMessagesIsChecked() {
        // GoAway { status (field 2) { message (field 2) = "\xff" } }
        let status: [UInt8] = [0x12, 0x01, 0xFF]
        XCTAssertThrowsError(try Wire.GoAway(decoding: [0x12, UInt8(status.count)] + status)) { error in
            XCTAssertTrue((error as? PhotoLibError)?.message.contains("photolib.v1.Status.message") ?? false)
        }
        // FetchAssetsRequest { options { local_identifiers (field 6) = "a\0" } }
        let options: [UInt8] = [0x32, 0x02, 0x61, 0x00]
        XCTAssertThrowsError(try Wire.FetchAssetsRequest(decoding: [0x0A, UInt8(options.count)] + options)) { error in
            XCTAssertEqual((error as? PhotoLibError)?.reason, .invalidText)
        }
    }

    func testMalformedProtobufIsRefused() {
        for bytes: [UInt8] in [[0x12, 0x05, 0x61], [0xFF], [0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]] {
            XCTAssertThrowsError(try Wire.Hello(decoding: bytes)) { error in
                XCTAssertEqual((error as? PhotoLibError)?.code, .invalidArgument)
            }
        }
    }

    func testUnknownFieldsAreIgnored() throws {
        // field 99 (varint) then a valid token.
        let payload: [UInt8] = [0x98, 0x06, 0x01] + [0x12, 0x01, 0x61]
        XCTAssertEqual(try Wire.Hello(decoding: payload).token, "a")
    }
}
