import Foundation
import XCTest

@testable import PhotoLibWire

/// The method table must list exactly the `rpc` lines of Protos/service.proto, with their shapes.
final class MethodDescriptorTests: XCTestCase {
    func testMethodsMatchServiceProto() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("Protos/service.proto"), encoding: .utf8)
        let expression = try NSRegularExpression(pattern: #"rpc\s+(\w+)\s*\(\s*(stream\s+)?\w+\s*\)\s*returns\s*\(\s*(stream\s+)?\w+\s*\)"#)
        var fromProto: [MethodInfo] = []
        for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let name = String(text[Range(match.range(at: 1), in: text)!])
            let clientStreams = match.range(at: 2).location != NSNotFound
            let serverStreams = match.range(at: 3).location != NSNotFound
            let shape: CallShape = clientStreams ? (serverStreams ? .bidirectional : .clientStreaming) : (serverStreams ? .serverStreaming : .unary)
            fromProto.append(MethodInfo(name: name, shape: shape))
        }
        XCTAssertGreaterThan(fromProto.count, 20)
        XCTAssertEqual(PhotoLibraryMethods.all, fromProto)
    }

    func testPaths() {
        XCTAssertEqual(PhotoLibraryMethods.fetchAssets.path, "/photolib.v1.PhotoLibrary/FetchAssets")
        XCTAssertEqual(PhotoLibraryMethods.method(path: "/photolib.v1.PhotoLibrary/RequestImage"), PhotoLibraryMethods.requestImage.info)
        XCTAssertEqual(PhotoLibraryMethods.requestImage.info.shape, .serverStreaming)
        XCTAssertEqual(PhotoLibraryMethods.uploadAsset.info.shape, .clientStreaming)
        XCTAssertNil(PhotoLibraryMethods.method(path: "/other.Service/RequestImage"))
    }

    func testEncodedCallNamesTheMethodWithoutADeadline() throws {
        for method in PhotoLibraryMethods.all {
            let call = try Wire.CallStart(decoding: method.encodedCall)
            XCTAssertEqual(call.method, method.path)
            XCTAssertEqual(call.timeoutMs, 0, method.name)
            XCTAssertEqual(method.encodedCall, Wire.CallStart(method: method.path).encoded(), method.name)
        }
    }
}
