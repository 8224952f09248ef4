import Foundation
import XCTest

/// Runs the built `photolib` CLI against `server` (PHOTOLIB_SERVER / PHOTOLIB_TOKEN set);
/// `environment` overrides them or adds more.
func runCLI(_ arguments: [String], server: ServerProcess?, environment: [String: String] = [:], timeout: TimeInterval = 60) throws -> ProcessResult {
    var env = server?.cliEnvironment ?? [:]
    env.merge(environment) { _, new in new }
    return try ChildProcess.run(Paths.photolib, arguments, environment: env, timeout: timeout)
}

/// Runs the CLI and decodes its stdout as JSON of type `T`; fails with the whole output otherwise.
func runCLIJSON<T: Decodable>(
    _ type: T.Type, _ arguments: [String], server: ServerProcess?, environment: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line
) throws -> T {
    let result = try runCLI(arguments, server: server, environment: environment)
    guard result.succeeded else { throw E2EError("photolib \(arguments.joined(separator: " ")) failed: \(result)") }
    do {
        return try JSONDecoder().decode(T.self, from: Data(result.stdout.utf8))
    } catch {
        throw E2EError("photolib \(arguments.joined(separator: " ")) printed JSON that does not decode as \(T.self): \(error)\n\(result.stdout)")
    }
}

/// An asset as `photolib ls --json` prints it (dates kept as text to check their format).
struct AssetJSON: Decodable, Hashable {
    struct Location: Decodable, Hashable {
        var latitude: Double
        var longitude: Double
        var altitude: Double?
    }
    var localIdentifier: String
    var mediaType: String
    var pixelWidth: Int
    var pixelHeight: Int
    var creationDate: String
    var isFavorite: Bool
    var isHidden: Bool
    var location: Location?
}

/// An album as `photolib albums --json` prints it.
struct AlbumJSON: Decodable, Hashable {
    var localIdentifier: String
    var title: String
    var type: String
    var subtype: String
    var count: Int
}

/// `photolib get --json`.
struct GetJSON: Decodable {
    var width: Int
    var height: Int
    var bytes: Int
    var uniformTypeIdentifier: String
}

/// `photolib ls --json` with extra arguments.
func listAssets(_ server: ServerProcess, _ extra: [String] = []) throws -> [AssetJSON] {
    try runCLIJSON([AssetJSON].self, ["ls", "--json"] + extra, server: server)
}

/// Parses an ISO 8601 date as the CLI prints it (`2019-07-14T08:30:00Z`, fractions allowed).
func parseISO8601(_ text: String) -> Date? {
    let plain = ISO8601DateFormatter()
    if let date = plain.date(from: text) { return date }
    let fractional = ISO8601DateFormatter()
    fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return fractional.date(from: text)
}
