import Foundation

/// A temporary library with photos imported and a running server: the shared fixture of a
/// test class whose tests only read.
final class LibraryFixture: @unchecked Sendable {
    let directory: TemporaryDirectory
    let server: ServerProcess
    /// path → identifier of every photo imported.
    let identifiers: [String: String]

    /// Imports `photos` (existing files) and `generated` (name → bytes, written first) into a
    /// new library and serves it.
    init(_ name: String, photos: [String], generated: [(String, [UInt8])] = [], serverArguments: [String] = []) throws {
        directory = try TemporaryDirectory("photolib-e2e-\(name)")
        do {
            var paths = photos
            for (file, bytes) in generated { paths.append(try directory.write("photos/\(file)", bytes)) }
            let library = directory.file("library")
            let result = try ServerProcess.importPhotos(library: library, paths)
            guard result.succeeded else { throw E2EError("photolibd import failed: \(result)") }
            identifiers = ImportOutput(result).added
            guard identifiers.count == paths.count else { throw E2EError("expected \(paths.count) photos added: \(result)") }
            server = try ServerProcess.start(library: library, extraArguments: serverArguments)
        } catch {
            directory.remove()
            throw error
        }
    }

    /// The identifier of the photo imported from `path`.
    func identifier(_ path: String) throws -> String {
        guard let identifier = identifiers[path] else { throw E2EError("\(path) was not imported") }
        return identifier
    }

    /// Stops the server gracefully, asserting it exits with status 0, and deletes the
    /// library: for a fixture per test, in `tearDown`.
    func stopAndRemove(file: StaticString = #filePath, line: UInt = #line) {
        server.stopGracefully(file: file, line: line)
        directory.remove()
    }

    /// The path of a generated photo.
    func generatedPath(_ name: String) -> String { directory.file("photos/\(name)") }

    /// Stops the server (SIGTERM; SIGKILL after 15 s) and deletes the library. For class
    /// tear-downs, where no assertion can be recorded: problems are printed.
    func shutDown() {
        if let result = server.terminate(timeout: 15) {
            if !result.succeeded { print("warning: photolibd exited with \(result.status) (signalled: \(result.signalled)) after SIGTERM") }
        } else {
            print("warning: photolibd did not exit within 15 s of SIGTERM and was killed")
        }
        directory.remove()
    }
}
