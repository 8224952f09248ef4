import Foundation

/// How a finished process ended and what it printed.
struct ProcessResult: Sendable, CustomStringConvertible {
    /// The exit status, or the signal number when ``signalled``.
    var status: Int32
    /// Whether a signal ended the process.
    var signalled: Bool
    var stdout: String
    var stderr: String

    /// Non-empty stdout lines.
    var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
    /// Non-empty stderr lines.
    var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
    /// Whether the process exited by itself with status 0.
    var succeeded: Bool { !signalled && status == 0 }

    var description: String {
        "\(signalled ? "signal" : "exit status") \(status)\n--- stdout ---\n\(stdout)\n--- stderr ---\n\(stderr)"
    }
}

/// A child process whose stdout and stderr go to temporary files (never pipes, so nothing can
/// block on a full pipe or wait for an EOF held open by another child).
final class ChildProcess: @unchecked Sendable {
    let process = Process()
    let executable: String
    let arguments: [String]
    private let stdoutPath: String
    private let stderrPath: String

    /// Starts `executable` with `arguments`; `environment` entries are added to this process's.
    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        self.executable = try Paths.executable(executable)
        self.arguments = arguments
        stdoutPath = try Self.temporaryFile("stdout")
        stderrPath = try Self.temporaryFile("stderr")
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        do {
            try process.run()
        } catch {
            cleanUp()
            throw E2EError("cannot start \(executable): \(error)")
        }
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    var commandLine: String { ([(executable as NSString).lastPathComponent] + arguments).joined(separator: " ") }

    /// What the process printed on stdout so far.
    var stdout: String { Self.read(stdoutPath) }
    /// What the process printed on stderr so far.
    var stderr: String { Self.read(stderrPath) }

    /// Sends `signal` (if the process still runs).
    func send(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits at most `timeout` seconds for the process to end; `nil` if it still runs.
    func waitForExit(timeout: TimeInterval) -> ProcessResult? {
        guard waitUntil(timeout: timeout, { !process.isRunning }) else { return nil }
        return ProcessResult(
            status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
            stdout: stdout, stderr: stderr)
    }

    /// Kills the process with SIGKILL (if it runs) and reaps it.
    @discardableResult
    func killHard() -> ProcessResult? {
        send(SIGKILL)
        return waitForExit(timeout: 10)
    }

    /// Deletes the output files.
    func cleanUp() {
        try? FileManager.default.removeItem(atPath: stdoutPath)
        try? FileManager.default.removeItem(atPath: stderrPath)
    }

    /// Runs a process to its end (SIGKILL after `timeout` seconds, then an error).
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 60) throws -> ProcessResult {
        let child = try ChildProcess(executable, arguments, environment: environment)
        defer { child.cleanUp() }
        if let result = child.waitForExit(timeout: timeout) { return result }
        let partial = child.killHard()
        throw E2EError("`\(child.commandLine)` did not finish within \(timeout) s and was killed; \(partial?.description ?? "")")
    }

    private static func temporaryFile(_ kind: String) throws -> String {
        var template = Array((NSTemporaryDirectory() + "/photolib-e2e-\(kind)-XXXXXX").utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw E2EError("mkstemp failed: errno \(errno)") }
        close(fd)
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    private static func read(_ path: String) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}
