import ArgumentParser
import Dispatch
import Foundation
import PhotoLibClient

#if canImport(Glibc)
import Glibc
#endif

extension PhotoLibCommand {
    /// `photolib bench connections`: what idle connections cost the server.
    struct BenchConnections: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "connections",
            abstract: "Open many idle connections to a server and print its memory and threads.",
            discussion: """
                Opens --count connections (each through the handshake, --concurrency at a time), \
                then reads the server's resident memory and thread count from /proc/PID/status \
                (--server-pid: the server must run on this machine), closes them all and reads its \
                memory again after --settle seconds. Prints the time to open them all. Raises this \
                process's open-file limit to its hard limit first. Prints figures; it asserts nothing.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "Connections to open.")
        var count: Int = 10_000

        @Option(name: .long, help: "Handshakes in flight at once (keep it under the server's per-address limit on handshakes).")
        var concurrency: Int = 32

        @Option(name: .long, help: "The server's process id, for /proc/PID/status.")
        var serverPid: Int32

        @Option(name: .long, help: "Seconds to wait before each reading of the server's memory.")
        var settle: Double = 2

        func validate() throws {
            guard count >= 1, (1...1024).contains(concurrency) else { throw ValidationError("--count ≥ 1, --concurrency 1…1024") }
            guard FileManager.default.fileExists(atPath: "/proc/\(serverPid)/status") else {
                throw ValidationError("no process \(serverPid) on this machine (/proc/\(serverPid)/status): pass photolibd's pid with --server-pid")
            }
        }

        /// The figures of one run.
        struct Report: Encodable {
            var connections: Int
            var errors: Int
            var firstError: String?
            var secondsToOpen: Double
            var serverThreadsBefore: Int
            var serverRSSBeforeKB: Int
            var serverThreadsOpen: Int
            var serverRSSOpenKB: Int
            var serverThreadsAfterClose: Int
            var serverRSSAfterCloseKB: Int
            var clientThreadsOpen: Int
            var cores: Int
        }

        func run() async throws {
            let server = connection.resolvedServer
            let token = try connection.resolvedToken()
            let configuration = try connection.clientConfiguration()
            let fileLimit = Self.raiseOpenFileLimit()
            if count + 64 > fileLimit {
                throw CLIError("this process may open \(fileLimit) files, fewer than --count \(count) connections need: raise the hard limit (ulimit -Hn) or lower --count")
            }
            let pid = serverPid
            let before = Self.status(of: pid)
            let started = DispatchTime.now()
            var libraries: [PhotoLibrary] = []
            libraries.reserveCapacity(count)
            var errors = 0
            var firstError: String?
            try await withThrowingTaskGroup(of: Result<PhotoLibrary, any Error>.self) { group in
                var issued = 0
                func add() {
                    group.addTask {
                        do {
                            return .success(try await PhotoLibrary.connect(to: server, token: token, clientName: "bench-connections", configuration: configuration))
                        } catch {
                            return .failure(error)
                        }
                    }
                    issued += 1
                }
                while issued < min(concurrency, count) { add() }
                while let result = try await group.next() {
                    switch result {
                    case .success(let library): libraries.append(library)
                    case .failure(let error):
                        errors += 1
                        if firstError == nil { firstError = "\(error)" }
                    }
                    if issued < count { add() }
                }
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            try await Task.sleep(nanoseconds: UInt64(settle * 1e9))
            let open = Self.status(of: pid)
            let clientThreads = Self.status(of: getpid()).threads
            for library in libraries { library.close() }
            libraries = []
            try await Task.sleep(nanoseconds: UInt64(settle * 1e9))
            let after = Self.status(of: pid)
            let cores = ProcessInfo.processInfo.activeProcessorCount
            let report = Report(
                connections: count - errors, errors: errors, firstError: firstError, secondsToOpen: seconds,
                serverThreadsBefore: before.threads, serverRSSBeforeKB: before.rssKB,
                serverThreadsOpen: open.threads, serverRSSOpenKB: open.rssKB,
                serverThreadsAfterClose: after.threads, serverRSSAfterCloseKB: after.rssKB,
                clientThreadsOpen: clientThreads, cores: cores)
            if connection.json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
                return
            }
            print(String(format: "%d idle connections open in %.2f s (%d failed)%@", report.connections, seconds, errors, firstError.map { ": first error: \($0)" } ?? ""))
            print("server before:    \(before.rssKB / 1024) MB resident, \(before.threads) threads")
            print(String(format: "server with them: %d MB resident (%.1f KB per connection), %d threads (goal ≤ 256 MB, ≤ %d threads)",
                         open.rssKB / 1024, Double(open.rssKB - before.rssKB) / Double(max(1, report.connections)), open.threads, 2 * cores + 8))
            print("server after they closed: \(after.rssKB / 1024) MB resident, \(after.threads) threads")
            print("this client with them: \(clientThreads) threads")
        }

        /// Resident memory (`VmRSS`, kB) and threads (`Threads`) of process `pid`; -1 when unknown.
        static func status(of pid: Int32) -> (rssKB: Int, threads: Int) {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return (-1, -1) }
            var rss = -1, threads = -1
            for line in text.split(separator: "\n") {
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard fields.count >= 2 else { continue }
                if fields[0] == "VmRSS:" { rss = Int(fields[1]) ?? -1 }
                if fields[0] == "Threads:" { threads = Int(fields[1]) ?? -1 }
            }
            return (rss, threads)
        }

        /// Raises this process's open-file soft limit to its hard limit; returns the limit now.
        static func raiseOpenFileLimit() -> Int {
            var limit = rlimit()
            guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
            if limit.rlim_cur < limit.rlim_max {
                limit.rlim_cur = limit.rlim_max
                _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
                _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            }
            return Int(clamping: limit.rlim_cur)
        }
    }
}
