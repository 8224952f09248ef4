import ArgumentParser
import Dispatch
import Foundation
import Histogram
import PhotoLibClient
import PhotoLibWire

#if canImport(Glibc)
import Glibc
#endif

extension PhotoLibCommand {
    /// `photolib bench fetch` (hidden): latency of fetches, counts, pages and `index(of:)`.
    struct BenchFetch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fetch",
            abstract: "Measure fetch latency: counting, predicates, sorts, 100-row pages at any offset, index(of:).",
            discussion: """
                Every figure is one unary call on one connection, measured from sending the CALL \
                to reading the STATUS, --runs times after --warmup unmeasured runs. Count-only fetches \
                ask for prefetch 0 (the snapshot's count, no objects), which PhotoLibClient's \
                fetchAssets does not expose, so the calls are made on a bare protocol connection; \
                'client fetchAssets().count' is the same count through PhotoLibClient, which also \
                ships the first page of 200 assets.
                """,
            shouldDisplay: false)

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "Measured runs per figure.")
        var runs: Int = 50

        @Option(name: .long, help: "Unmeasured runs per figure first.")
        var warmup: Int = 3

        func validate() throws {
            guard (1...100_000).contains(runs), (0...1000).contains(warmup) else { throw ValidationError("--runs must be within 1…100000 and --warmup within 0…1000") }
        }

        struct Figure: Encodable {
            var name: String
            var runs: Int
            var count: Int?
            var latencyMs: [String: Double]
        }

        /// One figure as a table row.
        static func line(_ figure: Figure) -> String {
            let l = figure.latencyMs
            return figure.name.padding(toLength: 58, withPad: " ", startingAt: 0)
                + String(format: "p50 %9.3f ms   p99 %9.3f ms   max %9.3f ms", l["p50"]!, l["p99"]!, l["max"]!)
                + (figure.count.map { "   count \($0)" } ?? "")
        }

        func run() async throws {
            let endpoint = connection.resolvedServer
            let token = try connection.resolvedToken()
            let wire = try BareConnection(server: endpoint, token: token)
            defer { wire.close() }
            var figures: [Figure] = []

            func measure(_ name: String, count: Int? = nil, _ body: () throws -> Void) throws {
                for _ in 0..<warmup { try body() }
                var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1_000, highestTrackableValue: 600_000_000_000, numberOfSignificantValueDigits: .three)
                for _ in 0..<runs {
                    let begin = DispatchTime.now().uptimeNanoseconds
                    try body()
                    _ = histogram.record(max(1_000, DispatchTime.now().uptimeNanoseconds - begin))
                }
                func ms(_ nanoseconds: UInt64) -> Double { (Double(nanoseconds) / 1e3).rounded() / 1e3 }
                let figure = Figure(name: name, runs: runs, count: count, latencyMs: [
                    "p50": ms(histogram.valueAtPercentile(50)), "p99": ms(histogram.valueAtPercentile(99)),
                    "max": ms(histogram.max), "mean": (histogram.mean / 1e3).rounded() / 1e3,
                ])
                figures.append(figure)
                if !connection.json {
                    print(Self.line(figure))
                }
            }

            /// A count-only fetch (prefetch 0), released at once so snapshots do not pile up.
            func countOnly(_ request: FetchAssetsRequest) throws -> Int {
                var request = request
                request.prefetchCount = 0
                let snapshot = try wire.call(PhotoLibraryMethods.fetchAssets, request, FetchResultSnapshot.self)
                let _: EmptyMessage = try wire.call(PhotoLibraryMethods.releaseFetchResult, ReleaseFetchResultRequest(fetchResultID: snapshot.fetchResultID), EmptyMessage.self)
                return snapshot.count
            }

            let all = FetchAssetsRequest()
            let total = try countOnly(all)
            guard total > 0 else { throw CLIError("the library has no assets to measure") }
            if !connection.json { print("library: \(total) assets; \(runs) runs per figure after \(warmup) warm-up runs; latency per call (count-only figures include the release call)") }

            try measure("fetchAssets count-only: All Photos", count: total) { _ = try countOnly(all) }
            let favorites = FetchAssetsRequest(collectionIdentifier: LocalIdentifier.smartAlbum(.smartAlbumFavorites))
            try measure("fetchAssets count-only: Favorites", count: try countOnly(favorites)) { _ = try countOnly(favorites) }
            let predicate = FetchAssetsRequest(options: FetchOptions(predicate: "pixelWidth > 3000 AND isFavorite == true"))
            try measure("fetchAssets count-only: pixelWidth > 3000 AND isFavorite", count: try countOnly(predicate)) { _ = try countOnly(predicate) }
            let sorted = FetchAssetsRequest(options: FetchOptions(sortDescriptors: [AssetSortDescriptor(key: .creationDate, ascending: false)]))
            try measure("fetchAssets count-only: sorted creationDate:desc", count: try countOnly(sorted)) { _ = try countOnly(sorted) }
            let limited = FetchAssetsRequest(options: FetchOptions(sortDescriptors: [AssetSortDescriptor(key: .creationDate, ascending: false)], fetchLimit: 100), prefetchCount: 100)
            try measure("fetchAssets limit 100 + 100 prefetched, sorted desc") {
                let snapshot = try wire.call(PhotoLibraryMethods.fetchAssets, limited, FetchResultSnapshot.self)
                let _: EmptyMessage = try wire.call(PhotoLibraryMethods.releaseFetchResult, ReleaseFetchResultRequest(fetchResultID: snapshot.fetchResultID), EmptyMessage.self)
            }

            // Pages and index(of:) on one snapshot of the whole library.
            let snapshot = try wire.call(PhotoLibraryMethods.fetchAssets, all, FetchResultSnapshot.self)
            for offset in [0, total / 2, max(0, total - 100)] {
                let request = FetchResultObjectsRequest(fetchResultID: snapshot.fetchResultID, offset: offset, length: 100)
                var received = 0
                try measure("FetchResultObjects 100 assets at offset \(offset)") {
                    received = try wire.call(PhotoLibraryMethods.fetchResultObjects, request, FetchResultObjectsResponse.self).objects.count
                }
                guard received == min(100, total - offset) else { throw CLIError("a page at \(offset) held \(received) assets") }
            }
            let identifiersOnly = FetchResultObjectsRequest(fetchResultID: snapshot.fetchResultID, offset: total / 2, length: 100, identifiersOnly: true)
            try measure("FetchResultObjects 100 identifiers at offset \(total / 2)") {
                _ = try wire.call(PhotoLibraryMethods.fetchResultObjects, identifiersOnly, FetchResultObjectsResponse.self)
            }
            for offset in [0, total / 2, total - 1] {
                let page = try wire.call(PhotoLibraryMethods.fetchResultObjects, FetchResultObjectsRequest(fetchResultID: snapshot.fetchResultID, offset: offset, length: 1, identifiersOnly: true), FetchResultObjectsResponse.self)
                guard let identifier = page.localIdentifiers.first else { throw CLIError("no identifier at \(offset)") }
                let request = FetchResultIndexRequest(fetchResultID: snapshot.fetchResultID, localIdentifier: identifier)
                var found: Int?
                try measure("index(of:) the asset at \(offset)") {
                    found = try wire.call(PhotoLibraryMethods.fetchResultIndex, request, FetchResultIndexResponse.self).index
                }
                guard found == offset else { throw CLIError("index(of:) answered \(found.map(String.init) ?? "nil") for the asset at \(offset)") }
            }
            let absent = FetchResultIndexRequest(fetchResultID: snapshot.fetchResultID, localIdentifier: LocalIdentifier.newAsset())
            try measure("index(of:) an asset not in the snapshot") {
                _ = try wire.call(PhotoLibraryMethods.fetchResultIndex, absent, FetchResultIndexResponse.self)
            }

            // The same count through PhotoLibClient (fetch + first page of 200 assets).
            let library = try await PhotoLibrary.connect(to: endpoint, token: token, clientName: "photolib-bench/0.1.0")
            defer { library.close() }
            var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1_000, highestTrackableValue: 600_000_000_000, numberOfSignificantValueDigits: .three)
            for index in 0..<(warmup + runs) {
                let begin = DispatchTime.now().uptimeNanoseconds
                let result = try await library.fetchAssets()
                _ = result.count
                if index >= warmup { _ = histogram.record(max(1_000, DispatchTime.now().uptimeNanoseconds - begin)) }
                try await result.release()
            }
            func ms(_ nanoseconds: UInt64) -> Double { (Double(nanoseconds) / 1e3).rounded() / 1e3 }
            let clientFigure = Figure(name: "client fetchAssets().count (prefetch 200)", runs: runs, count: total, latencyMs: [
                "p50": ms(histogram.valueAtPercentile(50)), "p99": ms(histogram.valueAtPercentile(99)), "max": ms(histogram.max), "mean": (histogram.mean / 1e3).rounded() / 1e3,
            ])
            figures.append(clientFigure)
            if connection.json {
                try Output.json(figures)
            } else {
                print(Self.line(clientFigure))
            }
        }
    }
}

/// A bare, blocking protocol connection for sequential unary calls (docs/PROTOCOL.md): HELLO /
/// WELCOME, then CALL + one MESSAGE with END_STREAM per call, reading frames until the call's
/// STATUS, granting flow-control credit back and answering PINGs.
private final class BareConnection {
    private var fd: Int32 = -1
    private var buffer: [UInt8] = []
    private var nextStream: UInt32 = 1

    init(server: String, token: String) throws {
        let parts = server.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let port = UInt16(parts[1]) else { throw CLIError("--server must be HOST:PORT") }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(String(parts[0]), String(port), &hints, &list) == 0, let first = list else { throw CLIError("cannot resolve \(server)") }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let candidate = entry {
            let socketFD = socket(candidate.pointee.ai_family, candidate.pointee.ai_socktype, candidate.pointee.ai_protocol)
            if socketFD >= 0 {
                if connect(socketFD, candidate.pointee.ai_addr, candidate.pointee.ai_addrlen) == 0 {
                    fd = socketFD
                    break
                }
                Glibc.close(socketFD)
            }
            entry = candidate.pointee.ai_next
        }
        guard fd >= 0 else { throw CLIError("cannot connect to \(server)", code: .unavailable) }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // Large windows so that no call waits for credit.
        try send(Frame(.hello, payload: Hello(token: token, clientName: "photolib-bench-fetch/0.1.0", maxFrameSize: 16 << 20, initialStreamWindow: 64 << 20, initialConnectionWindow: 256 << 20).encoded()))
        let answer = try readFrame()
        guard answer.type == .welcome else {
            let status = answer.type == .goAway ? (try? GoAway(decoding: answer.payload)).map { " \($0.status.code): \($0.status.message)" } ?? "" : ""
            throw CLIError("the server answered HELLO with \(answer.type)\(status)")
        }
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// One unary call; a non-OK STATUS becomes an error.
    func call<Response: WireMessage>(_ method: MethodDescriptor, _ request: some WireMessage, _: Response.Type) throws -> Response {
        let stream = nextStream
        nextStream += 2
        try send(Frame(.call, stream: stream, payload: CallStart(method: method.path).encoded()) .encoded + Frame(.message, stream: stream, flags: .endStream, payload: request.encoded()).encoded)
        var response: [UInt8]?
        while true {
            let frame = try readFrame()
            switch frame.type {
            case .message where frame.streamID == stream:
                response = frame.payload
                if !frame.payload.isEmpty {
                    let credit = WindowUpdate(increment: UInt32(frame.payload.count)).encoded()
                    try send(Frame(.windowUpdate, stream: 0, payload: credit).encoded)
                }
            case .status where frame.streamID == stream:
                let status = try CallStatus(decoding: frame.payload)
                guard status.code == .ok else { throw CLIError("\(method.name): \(status.message)", code: status.code) }
                guard let response else { throw CLIError("\(method.name): no response message") }
                return try Response(decoding: response)
            case .ping where !frame.flags.contains(.ack):
                try send(Frame(.ping, flags: .ack, payload: frame.payload).encoded)
            case .goAway:
                throw CLIError("the server sent GOAWAY: \((try? GoAway(decoding: frame.payload)).map { $0.status.message } ?? "")", code: .unavailable)
            default:
                continue
            }
        }
    }

    private func send(_ frame: Frame) throws { try send(frame.encoded) }

    private func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw CLIError("the connection was closed", code: .unavailable) }
            sent += n
        }
    }

    private func readFrame() throws -> Frame {
        while true {
            if buffer.count >= Frame.headerSize {
                let length = Int(buffer[0]) << 24 | Int(buffer[1]) << 16 | Int(buffer[2]) << 8 | Int(buffer[3])
                guard let type = FrameType(rawValue: buffer[4]) else { throw CLIError("unknown frame type \(buffer[4])") }
                if buffer.count >= Frame.headerSize + length {
                    let stream = UInt32(buffer[6] & 0x7F) << 24 | UInt32(buffer[7]) << 16 | UInt32(buffer[8]) << 8 | UInt32(buffer[9])
                    let frame = Frame(type, stream: stream, flags: FrameFlags(rawValue: buffer[5]), payload: Array(buffer[Frame.headerSize..<(Frame.headerSize + length)]))
                    buffer.removeFirst(Frame.headerSize + length)
                    return frame
                }
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw CLIError(n == 0 ? "the server closed the connection" : "read failed (errno \(errno))", code: .unavailable) }
            buffer += chunk[0..<n]
        }
    }
}
