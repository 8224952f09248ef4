import ArgumentParser
import Dispatch
import Foundation
import Histogram
import PhotoLibCore

#if canImport(Glibc)
import Glibc
#endif

extension PhotoLibCommand {
    /// `photolib bench tcp-echo`: the raw TCP request/response rate that image requests are
    /// compared with.
    struct BenchTCPEcho: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tcp-echo",
            abstract: "Measure a plain TCP request/response loop on 127.0.0.1 (server and clients in this process).",
            discussion: """
                Each of --concurrency client threads has its own connection and loops: write a \
                --request-bytes request, read a --reply-bytes reply. The server answers each request \
                with that many bytes from one thread per connection. No framing, no protocol: the \
                ceiling a request/response protocol on the same machine can approach.
                """)

        @Option(name: .long, help: "Bytes per reply (use the cached image's size).")
        var replyBytes: Int = 10_000

        @Option(name: .long, help: "Bytes per request.")
        var requestBytes: Int = 100

        @Option(name: .long, help: "Connections, each with one request in flight.")
        var concurrency: Int = 16

        @Option(name: .long, help: "Total requests.")
        var requests: Int = 20_000

        @Flag(name: .long, help: "One JSON line.")
        var json = false

        func validate() throws {
            guard (1...64 << 20).contains(replyBytes), (1...1 << 20).contains(requestBytes) else {
                throw ValidationError("--reply-bytes must be within 1…64 MiB and --request-bytes 1…1 MiB")
            }
            guard (1...1024).contains(concurrency), requests >= 1 else { throw ValidationError("--concurrency 1…1024, --requests ≥ 1") }
        }

        func run() throws {
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard listener >= 0 else { throw CLIError(SystemError(errno: errno, action: "create a socket").description) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
            guard bound == 0, listen(listener, 1024) == 0 else { throw CLIError(SystemError(errno: errno, action: "bind and listen on loopback").description) }
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
            let port = address.sin_port
            let reply = [UInt8](repeating: 0x5A, count: replyBytes)
            let requestSize = requestBytes
            let clients = concurrency
            // Server: one thread per accepted connection.
            let serverThread = Thread {
                for _ in 0..<clients {
                    let fd = accept(listener, nil, nil)
                    guard fd >= 0 else { return }
                    Self.noDelay(fd)
                    Thread {
                        var buffer = [UInt8](repeating: 0, count: requestSize)
                        while Self.readFully(fd, &buffer) {
                            if !Self.writeFully(fd, reply) { break }
                        }
                        close(fd)
                    }.start()
                }
            }
            serverThread.start()
            let state = BenchState(limit: requests, seconds: nil)
            let group = DispatchGroup()
            let request = [UInt8](repeating: 0x41, count: requestBytes)
            let replySize = replyBytes
            var descriptors: [Int32] = []
            for _ in 0..<clients {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                var target = sockaddr_in()
                target.sin_family = sa_family_t(AF_INET)
                target.sin_addr.s_addr = inet_addr("127.0.0.1")
                target.sin_port = port
                let connected = withUnsafePointer(to: &target) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
                guard connected == 0 else { throw CLIError(SystemError(errno: errno, action: "connect to the echo server").description) }
                Self.noDelay(fd)
                descriptors.append(fd)
            }
            let started = DispatchTime.now()
            for fd in descriptors {
                group.enter()
                Thread {
                    var buffer = [UInt8](repeating: 0, count: replySize)
                    while state.next() != nil {
                        let begin = DispatchTime.now()
                        guard Self.writeFully(fd, request), Self.readFully(fd, &buffer) else {
                            state.fail(CLIError("connection closed"))
                            break
                        }
                        state.record(nanoseconds: DispatchTime.now().uptimeNanoseconds - begin.uptimeNanoseconds, bytes: replySize)
                    }
                    close(fd)
                    group.leave()
                }.start()
            }
            group.wait()
            close(listener)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            let report = BenchReport(histogram: state.histogram, requests: state.completed, errors: state.errors, bytes: state.bytes, seconds: seconds, firstError: state.firstError)
            if json {
                try Output.jsonLine(report)
            } else {
                report.print(label: "tcp-echo \(replyBytes)-byte replies c=\(concurrency)")
            }
        }

        static func noDelay(_ fd: Int32) {
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }

        static func readFully(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
            var done = 0
            let total = buffer.count
            return buffer.withUnsafeMutableBytes { raw in
                while done < total {
                    let n = read(fd, raw.baseAddress! + done, total - done)
                    if n <= 0 { return false }
                    done += n
                }
                return true
            }
        }

        static func writeFully(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
            var done = 0
            return bytes.withUnsafeBytes { raw in
                while done < bytes.count {
                    let n = write(fd, raw.baseAddress! + done, bytes.count - done)
                    if n <= 0 { return false }
                    done += n
                }
                return true
            }
        }
    }
}
