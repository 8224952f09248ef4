import Foundation
import PhotoLibCore

/// A private certificate authority made with the `openssl` command in a directory: its own
/// key and self-signed certificate (`ca.pem`), and server certificates it issues for given
/// names and dates (an expired one, one for another name, ...). For tests of how clients
/// verify CA-signed certificates and what they say when they refuse one.
public struct TestCertificateAuthority: Sendable {
    /// The `openssl` command the certificates are made with.
    public static let openssl = "/usr/bin/openssl"

    /// Whether the `openssl` command is here (tests skip without it).
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: openssl) }

    /// The directory holding the authority's files and the certificates it issued.
    public let directory: String
    /// The authority's certificate (PEM): what a client trusts (`SSL_CERT_FILE`).
    public var certificateFile: String { directory + "/ca.pem" }

    /// Makes an authority named `name` (an EC P-256 key, a self-signed CA certificate valid
    /// for a year) in `directory`, which is created if missing.
    public init(directory: String, name: String = "PhotoLib Test CA") throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Self.run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", directory + "/ca.key",
            "-out", directory + "/ca.pem", "-days", "365", "-subj", "/CN=\(name)",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        try Data().write(to: URL(fileURLWithPath: directory + "/index.txt"))
        try Data("01\n".utf8).write(to: URL(fileURLWithPath: directory + "/serial"))
        let configuration = """
            [ca]
            default_ca = test
            [test]
            database = \(directory)/index.txt
            serial = \(directory)/serial
            new_certs_dir = \(directory)
            default_md = sha256
            policy = any
            unique_subject = no
            copy_extensions = none
            [any]
            commonName = supplied

            """
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: directory + "/ca.cnf"))
    }

    /// When an issued certificate is valid.
    public enum Validity: Sendable {
        /// From now for this many days.
        case days(Int)
        /// Between two dates, `YYYYMMDDHHMMSSZ` (UTC), e.g. `20200101000000Z`.
        case between(String, String)
    }

    /// Issues a server certificate named `basename` for `names` (host names or IP addresses:
    /// its subjectAltName; the first is also its CN) valid `validity`; returns the paths of
    /// the certificate (PEM, the leaf alone) and its unencrypted key (PEM).
    public func issue(_ basename: String, names: [String], validity: Validity = .days(30)) throws -> (certificate: String, key: String) {
        let key = directory + "/\(basename).key"
        let request = directory + "/\(basename).csr"
        let certificate = directory + "/\(basename).pem"
        let extensions = directory + "/\(basename).ext"
        try Self.run([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", request,
            "-subj", "/CN=\(names.first ?? basename)",
        ])
        let alternatives = names.map { name in
            name.allSatisfy { $0.isNumber || $0 == "." } || name.contains(":") ? "IP:\(name)" : "DNS:\(name)"
        }.joined(separator: ",")
        let section = """
            [leaf]
            basicConstraints = critical,CA:FALSE
            keyUsage = critical,digitalSignature
            extendedKeyUsage = serverAuth
            subjectAltName = \(alternatives)

            """
        try Data(section.utf8).write(to: URL(fileURLWithPath: extensions))
        var arguments = [
            "ca", "-batch", "-notext", "-config", directory + "/ca.cnf", "-cert", certificateFile, "-keyfile", directory + "/ca.key",
            "-in", request, "-out", certificate, "-extfile", extensions, "-extensions", "leaf",
        ]
        switch validity {
        case .days(let days): arguments += ["-days", "\(days)"]
        case .between(let start, let end): arguments += ["-startdate", start, "-enddate", end]
        }
        try Self.run(arguments)
        return (certificate, key)
    }

    /// Runs `openssl arguments…`; throws with its output when it fails.
    private static func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PhotoLibError(.internalError, "openssl \(arguments.joined(separator: " ")) failed: \(text)")
        }
    }
}
