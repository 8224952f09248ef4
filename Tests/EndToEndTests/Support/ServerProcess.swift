import Foundation
import XCTest

/// A real `photolibd serve` on 127.0.0.1 with a free port, started the way a user does.
final class ServerProcess: @unchecked Sendable {
    /// The library directory.
    let library: String
    /// The port it listens on (from its first stdout line).
    let port: Int
    /// The owner token (`DIR/owner.token`).
    let token: String
    let child: ChildProcess
    private var stopped = false

    /// `127.0.0.1:PORT`.
    var address: String { "127.0.0.1:\(port)" }
    var pid: Int32 { child.pid }
    var isRunning: Bool { child.isRunning }
    /// The server's log (stderr) so far.
    var log: String { child.stderr }

    /// Runs `photolibd import --library DIR PATHS…` to its end.
    @discardableResult
    static func importPhotos(library: String, _ paths: [String], timeout: TimeInterval = 120) throws -> ProcessResult {
        try ChildProcess.run(Paths.photolibd, ["import", "--library", library] + paths, timeout: timeout)
    }

    /// Imports `paths` (which must all be added or already present) into `library`, then serves it.
    static func start(importing paths: [String], library: String, extraArguments: [String] = []) throws -> ServerProcess {
        let result = try importPhotos(library: library, paths)
        guard result.succeeded else { throw E2EError("photolibd import failed: \(result)") }
        return try start(library: library, extraArguments: extraArguments)
    }

    /// Starts `photolibd serve --library DIR --listen 127.0.0.1:0`, waits (at most `timeout`
    /// seconds) for its first stdout line and checks it is exactly `listening on 127.0.0.1:PORT`.
    static func start(library: String, extraArguments: [String] = [], timeout: TimeInterval = 20) throws -> ServerProcess {
        let child = try ChildProcess(Paths.photolibd, ["serve", "--library", library, "--listen", "127.0.0.1:0"] + extraArguments)
        let gotLine = waitUntil(timeout: timeout) { child.stdout.contains("\n") || !child.isRunning }
        let output = child.stdout
        guard gotLine, let newline = output.firstIndex(of: "\n") else {
            child.killHard()
            let detail = "stdout: \(output.debugDescription)\nstderr: \(child.stderr)"
            child.cleanUp()
            throw E2EError("photolibd serve printed no first line within \(timeout) s\n\(detail)")
        }
        let line = String(output[..<newline])
        let prefix = "listening on 127.0.0.1:"
        guard line.hasPrefix(prefix), let port = Int(line.dropFirst(prefix.count)), (1...65535).contains(port),
            line == "\(prefix)\(port)"
        else {
            child.killHard()
            let detail = child.stderr
            child.cleanUp()
            throw E2EError("photolibd serve's first stdout line is \(line.debugDescription), expected exactly \"listening on 127.0.0.1:PORT\"\nstderr: \(detail)")
        }
        guard let tokenText = FileManager.default.contents(atPath: library + "/owner.token") else {
            child.killHard()
            child.cleanUp()
            throw E2EError("\(library)/owner.token does not exist after photolibd serve started")
        }
        let token = String(decoding: tokenText, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return ServerProcess(library: library, port: port, token: token, child: child)
    }

    private init(library: String, port: Int, token: String, child: ChildProcess) {
        self.library = library
        self.port = port
        self.token = token
        self.child = child
    }

    deinit {
        if !stopped { child.killHard() }
        child.cleanUp()
    }

    /// Sends SIGTERM and waits at most `timeout` seconds; SIGKILL (and `nil`) if it did not exit.
    func terminate(timeout: TimeInterval = 15) -> ProcessResult? {
        child.send(SIGTERM)
        let result = child.waitForExit(timeout: timeout)
        if result == nil { child.killHard() }
        stopped = true
        return result
    }

    /// SIGTERM, and asserts the server exits by itself with status 0 within `timeout` seconds.
    func stopGracefully(timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line) {
        guard !stopped else { return }
        guard let result = terminate(timeout: timeout) else {
            XCTFail("photolibd did not exit within \(timeout) s of SIGTERM (killed)\n\(log)", file: file, line: line)
            return
        }
        XCTAssertTrue(result.succeeded, "photolibd did not exit with status 0 after SIGTERM: \(result)", file: file, line: line)
    }

    /// SIGSTOP, and waits until every thread of the server has stopped. The signal alone is
    /// not enough: the kernel wakes one thread to begin the group stop, and until it runs,
    /// a thread already busy (a connection's reader) can still answer requests.
    /// Returns `false` if the server was not stopped within `timeout` seconds.
    @discardableResult
    func suspend(timeout: TimeInterval = 5) -> Bool {
        guard kill(pid, SIGSTOP) == 0 else { return false }
        let deadline = Date().addingTimeInterval(timeout)
        let tasks = "/proc/\(pid)/task"
        while Date() < deadline {
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
            let stopped = !threads.isEmpty && threads.allSatisfy { thread in
                guard let status = try? String(contentsOfFile: "\(tasks)/\(thread)/status", encoding: .utf8),
                      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("State:") })
                else { return true }  // the thread has gone
                return line.contains("T (stopped)") || line.contains("t (tracing stop)")
            }
            if stopped { return true }
            usleep(1000)
        }
        return false
    }

    /// SIGCONT: a suspended server goes on.
    func resume() {
        kill(pid, SIGCONT)
    }

    /// `kill -9`: the server dies at once, as in a crash or power loss.
    func kill9() {
        child.killHard()
        stopped = true
    }

    /// Environment for the CLI: PHOTOLIB_SERVER and PHOTOLIB_TOKEN.
    var cliEnvironment: [String: String] {
        ["PHOTOLIB_SERVER": address, "PHOTOLIB_TOKEN": token]
    }
}
