import ArgumentParser
import Dispatch
import Foundation
import Histogram
import PhotoLibClient


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
                fetchAssets does not expose, so they go through PhotoLibrary.call with the wire \
                messages; 'client fetchAssets().count' is the same count through fetchAssets, which \
                also ships the first page of 200 assets.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "Measured runs per figure.")
        var runs: Int = 50

        @Option(name: .long, help: "Unmeasured runs per figure first.")
        var warmup: Int = 3

        @Flag(name: .long, help: "Measure only the 100-row pages (what Scripts/bench-fetch compares with its C baseline), e.g. to profile them with many --runs.")
        var pagesOnly = false

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

        /// `offsets` without repeats, in order (a library of under 200 assets has the same
        /// first and last page: it was measured and printed twice).
        static func distinct(_ offsets: [Int]) -> [Int] {
            var seen = Set<Int>()
            return offsets.filter { seen.insert($0).inserted }
        }

        func run() async throws {
            let endpoint = connection.resolvedServer
            let token = try connection.resolvedToken()
            // Large windows so that no call waits for credit.
            var configuration = try connection.clientConfiguration()
            configuration.initialStreamWindow = 64 << 20
            configuration.initialConnectionWindow = 256 << 20
            let library = try await PhotoLibrary.connect(
                to: endpoint, token: token, clientName: "photolib-bench-fetch/0.1.0", configuration: configuration)
            defer { library.close() }
            var figures: [Figure] = []

            func measure(_ name: String, count: Int? = nil, _ body: () async throws -> Void) async throws {
                for _ in 0..<warmup { try await body() }
                var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1_000, highestTrackableValue: 600_000_000_000, numberOfSignificantValueDigits: .three)
                for _ in 0..<runs {
                    let begin = DispatchTime.now().uptimeNanoseconds
                    try await body()
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
            func countOnly(_ options: Wire.FetchOptions) async throws -> Int {
                let snapshot = try await library.call(PhotoLibraryMethods.fetchAssets, Wire.FetchAssetsRequest(options: options, prefetchCount: 0))
                _ = try await library.call(PhotoLibraryMethods.releaseFetchResult, Wire.ReleaseFetchResultRequest(fetchResultID: snapshot.fetchResultID))
                return Int(snapshot.count)
            }

            let all = Wire.FetchOptions()
            let total = try await countOnly(all)
            guard total > 0 else { throw CLIError("the library has no assets to measure") }
            if !connection.json { print("library: \(total) assets; \(runs) runs per figure after \(warmup) warm-up runs; latency per call (count-only figures include the release call)") }

            if pagesOnly {
                let snapshot = try await library.call(PhotoLibraryMethods.fetchAssets, Wire.FetchAssetsRequest(options: all))
                for offset in Self.distinct([0, total / 2, max(0, total - 100)]) {
                    let request = Wire.FetchResultObjectsRequest(fetchResultID: snapshot.fetchResultID, offset: UInt64(offset), length: 100)
                    try await measure("FetchResultObjects 100 assets at offset \(offset)") {
                        _ = try await library.call(PhotoLibraryMethods.fetchResultObjects, request)
                    }
                }
                if connection.json { try Output.json(figures) }
                return
            }
            try await measure("fetchAssets count-only: All Photos", count: total) { _ = try await countOnly(all) }
            let favorites = try Wire.FetchOptions(FetchOptions(), collectionIdentifier: LocalIdentifier.smartAlbum(.smartAlbumFavorites))
            try await measure("fetchAssets count-only: Favorites", count: try await countOnly(favorites)) { _ = try await countOnly(favorites) }
            let predicate = try Wire.FetchOptions(FetchOptions(predicate: "pixelWidth > 3000 AND isFavorite == true"))
            try await measure("fetchAssets count-only: pixelWidth > 3000 AND isFavorite", count: try await countOnly(predicate)) { _ = try await countOnly(predicate) }
            let sorted = try Wire.FetchOptions(FetchOptions(sortDescriptors: [AssetSortDescriptor(key: .creationDate, ascending: false)]))
            try await measure("fetchAssets count-only: sorted creationDate:desc", count: try await countOnly(sorted)) { _ = try await countOnly(sorted) }
            let limited = Wire.FetchAssetsRequest(
                options: try Wire.FetchOptions(FetchOptions(sortDescriptors: [AssetSortDescriptor(key: .creationDate, ascending: false)], fetchLimit: 100)),
                prefetchCount: 100)
            try await measure("fetchAssets limit 100 + 100 prefetched, sorted desc") {
                let snapshot = try await library.call(PhotoLibraryMethods.fetchAssets, limited)
                _ = try await library.call(PhotoLibraryMethods.releaseFetchResult, Wire.ReleaseFetchResultRequest(fetchResultID: snapshot.fetchResultID))
            }

            // Pages and index(of:) on one snapshot of the whole library.
            let snapshot = try await library.call(PhotoLibraryMethods.fetchAssets, Wire.FetchAssetsRequest(options: all))
            let id = snapshot.fetchResultID
            for offset in Self.distinct([0, total / 2, max(0, total - 100)]) {
                let request = Wire.FetchResultObjectsRequest(fetchResultID: id, offset: UInt64(offset), length: 100)
                var received = 0
                try await measure("FetchResultObjects 100 assets at offset \(offset)") {
                    received = try await library.call(PhotoLibraryMethods.fetchResultObjects, request).assets.count
                }
                guard received == min(100, total - offset) else { throw CLIError("a page at \(offset) held \(received) assets") }
            }
            let identifiersOnly = Wire.FetchResultObjectsRequest(fetchResultID: id, offset: UInt64(total / 2), length: 100, identifiersOnly: true)
            try await measure("FetchResultObjects 100 identifiers at offset \(total / 2)") {
                _ = try await library.call(PhotoLibraryMethods.fetchResultObjects, identifiersOnly)
            }
            for offset in Self.distinct([0, total / 2, total - 1]) {
                let page = try await library.call(
                    PhotoLibraryMethods.fetchResultObjects,
                    Wire.FetchResultObjectsRequest(fetchResultID: id, offset: UInt64(offset), length: 1, identifiersOnly: true))
                guard let identifier = page.localIdentifiers.first else { throw CLIError("no identifier at \(offset)") }
                let request = Wire.FetchResultIndexRequest(fetchResultID: id, localIdentifier: identifier)
                var found: Int?
                try await measure("index(of:) the asset at \(offset)") {
                    let answer = try await library.call(PhotoLibraryMethods.fetchResultIndex, request)
                    found = answer.found ? Int(answer.index) : nil
                }
                guard found == offset else { throw CLIError("index(of:) answered \(found.map(String.init) ?? "nil") for the asset at \(offset)") }
            }
            let absent = Wire.FetchResultIndexRequest(fetchResultID: id, localIdentifier: LocalIdentifier.newAsset())
            try await measure("index(of:) an asset not in the snapshot") {
                _ = try await library.call(PhotoLibraryMethods.fetchResultIndex, absent)
            }

            // The same count through PhotoLibClient's fetchAssets (fetch + first page of 200 assets).
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
