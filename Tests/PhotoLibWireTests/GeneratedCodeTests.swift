import Foundation
import XCTest

/// The committed protoc-c output must be what Scripts/generate-protos makes from Protos/.
final class GeneratedCodeTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testCommittedProtocCOutputIsFresh() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Self.root.appendingPathComponent("Scripts/generate-protos").path, "--check"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "Sources/CPhotoLibProto is stale or protoc-c is missing:\n\(message)")
    }

    func testGeneratorVersionIsRecorded() throws {
        let version = try String(contentsOf: Self.root.appendingPathComponent("Sources/CPhotoLibProto/version.txt"), encoding: .utf8)
        XCTAssertTrue(version.contains("protoc-c: protobuf-c "), version)
        let protos = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Protos").path).filter { $0.hasSuffix(".proto") }
        for proto in protos { XCTAssertTrue(version.contains(proto), "version.txt does not list \(proto)") }
    }
}
