import Foundation
import XCTest

@testable import PhotoLibNet

#if canImport(Glibc)
import Glibc
#endif

/// Generated identities, the library's `tls/` directory, fingerprints and their notations.
final class TLSIdentityTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "tls-identity-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0, path)
        return info.st_mode & 0o777
    }

    func testFirstUseCreatesAPrivateIdentityAndLaterUsesLoadIt() throws {
        let tls = directory + "/tls"
        let (first, created) = try TLSIdentity.loadOrCreate(directory: tls, commonName: "photolibd")
        XCTAssertTrue(created)
        XCTAssertEqual(mode(tls), 0o700)
        XCTAssertEqual(mode(tls + "/key.pem"), 0o600)
        XCTAssertEqual(mode(tls + "/cert.pem"), 0o600)
        let key = try String(contentsOfFile: tls + "/key.pem", encoding: .utf8)
        XCTAssertTrue(key.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        XCTAssertEqual(try TLSFingerprint(certificatePEM: Array(FileManager.default.contents(atPath: tls + "/cert.pem")!)), first.fingerprint)

        let (again, createdAgain) = try TLSIdentity.loadOrCreate(directory: tls)
        XCTAssertFalse(createdAgain)
        XCTAssertEqual(again.fingerprint, first.fingerprint)
        // The loaded key works with the loaded certificate.
        XCTAssertNoThrow(try TLSContext.server(identity: again))
    }

    func testACertificateWithoutItsKeyIsAnErrorSayingWhatToDo() throws {
        let tls = directory + "/tls"
        _ = try TLSIdentity.loadOrCreate(directory: tls)
        XCTAssertEqual(unlink(tls + "/key.pem"), 0)
        XCTAssertThrowsError(try TLSIdentity.loadOrCreate(directory: tls)) { error in
            let error = error as? TLSError
            XCTAssertEqual(error?.code, .badIdentity)
            XCTAssertTrue(error?.message.contains("remove \(tls)/cert.pem") ?? false, error?.message ?? "")
        }
    }

    func testAKeyWithoutACertificateIsReplaced() throws {
        let tls = directory + "/tls"
        let (first, _) = try TLSIdentity.loadOrCreate(directory: tls)
        XCTAssertEqual(unlink(tls + "/cert.pem"), 0)
        let (second, created) = try TLSIdentity.loadOrCreate(directory: tls)
        XCTAssertTrue(created)
        XCTAssertNotEqual(second.fingerprint, first.fingerprint)
    }

    func testAKeyThatIsNotTheCertificatesIsRefused() throws {
        let one = try TLSIdentity.generate()
        let other = try TLSIdentity.generate()
        let mixed = try TLSIdentity(certificatePEM: one.certificatePEM, keyPEM: other.keyPEM)
        XCTAssertThrowsError(try TLSContext.server(identity: mixed)) { error in
            XCTAssertEqual((error as? TLSError)?.code, .badIdentity)
            XCTAssertTrue((error as? TLSError)?.message.contains("does not belong") ?? false, "\(error)")
        }
    }

    func testFilesThatAreNotPEMAreRefused() throws {
        let certificate = directory + "/cert.pem"
        let key = directory + "/key.pem"
        XCTAssertTrue(FileManager.default.createFile(atPath: certificate, contents: Data("not a certificate".utf8)))
        XCTAssertTrue(FileManager.default.createFile(atPath: key, contents: Data("not a key".utf8)))
        XCTAssertThrowsError(try TLSIdentity.load(certificateFile: certificate, keyFile: key)) { error in
            XCTAssertEqual((error as? TLSError)?.code, .badIdentity)
        }
        XCTAssertThrowsError(try TLSIdentity.load(certificateFile: directory + "/missing.pem", keyFile: key)) { error in
            XCTAssertEqual((error as? TLSError)?.code, .fileSystem)
            XCTAssertTrue("\(error)".contains("missing.pem"))
        }
    }

    func testFingerprintNotations() throws {
        let identity = try TLSIdentity.generate()
        let fingerprint = identity.fingerprint
        XCTAssertTrue(fingerprint.description.hasPrefix("SHA256:"))
        XCTAssertFalse(fingerprint.description.hasSuffix("="))
        XCTAssertEqual(fingerprint.description.count, 7 + 43)
        XCTAssertEqual(try TLSFingerprint(parsing: fingerprint.description), fingerprint)
        XCTAssertEqual(try TLSFingerprint(parsing: "  \(fingerprint.description)\n"), fingerprint)
        XCTAssertEqual(try TLSFingerprint(parsing: fingerprint.hexadecimal), fingerprint)
        XCTAssertEqual(try TLSFingerprint(parsing: fingerprint.hexadecimal.lowercased()), fingerprint)
        XCTAssertEqual(try TLSFingerprint(parsing: "sha256 Fingerprint=" + fingerprint.hexadecimal), fingerprint)
        XCTAssertEqual(try TLSFingerprint(parsing: fingerprint.hexadecimal.replacingOccurrences(of: ":", with: "")), fingerprint)
        for bad in ["", "SHA256:", "SHA256:abc", "AB:CD", String(repeating: "g", count: 64), fingerprint.hexadecimal + ":00"] {
            XCTAssertThrowsError(try TLSFingerprint(parsing: bad), bad) { error in
                XCTAssertEqual((error as? TLSError)?.code, .invalidArgument)
                XCTAssertTrue((error as? TLSError)?.message.contains("SHA256:") ?? false)
            }
        }
        let json = try JSONEncoder().encode([fingerprint])
        XCTAssertEqual(try JSONDecoder().decode([TLSFingerprint].self, from: json), [fingerprint])
    }

    func testFingerprintIsTheSHA256OfTheDERCertificateAsOpenSSLPrintsIt() throws {
        // The same number `openssl x509 -noout -fingerprint -sha256` prints, when the tool is here.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            throw XCTSkip("no /usr/bin/openssl to compare with")
        }
        let identity = try TLSIdentity.generate()
        let file = directory + "/cert.pem"
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(identity.certificatePEM)))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["x509", "-noout", "-fingerprint", "-sha256", "-in", file]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(try TLSFingerprint(parsing: printed), identity.fingerprint, printed)
    }
}
