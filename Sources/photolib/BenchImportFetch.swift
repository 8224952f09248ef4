import ArgumentParser
import Dispatch
import Foundation
import Histogram
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib bench import-fetch` (hidden): fetch latency while another client imports.
    struct BenchImportFetch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import-fetch",
            abstract: "Measure fetch latency alone, then while another connection imports photos (upload + createAsset each).",
            discussion: """
                The importer uploads --count copies of --photo, each made unique by a JPEG comment \
                naming this run and the copy (so none dedupes, in later runs either), and creates \
                one asset per PerformChanges: one write transaction \
                each. Meanwhile the reader repeats one fetch (limit 100, sorted by creation date, \
                100 prefetched, then released) back to back on its own connection and records \
                every latency. Prints p50/p99/max alone and during the import, and the import rate. \
                The imported photos stay in the library: run it on a library made for benchmarks.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "A small JPEG the importer uploads copies of.")
        var photo: String

        @Option(name: .long, help: "How many photos the importer adds.")
        var count: Int = 10_000

        @Option(name: .long, help: "Fetches measured alone, before the import.")
        var baselineRuns: Int = 300

        func validate() throws {
            guard (1...1_000_000).contains(count), (1...1_000_000).contains(baselineRuns) else {
                throw ValidationError("--count and --baseline-runs must be within 1…1000000")
            }
        }

        /// One latency distribution.
        struct Figure: Encodable {
            var name: String
            var runs: Int
            var latencyMs: [String: Double]
        }

        /// What the run printed, for `--json`.
        struct Report: Encodable {
            var alone: Figure
            var duringImport: Figure
            var imported: Int
            var importSeconds: Double
            var importsPerSecond: Double
        }

        /// `jpeg` with a comment segment (`FF FE`) right after SOI holding `run` and `index`:
        /// the same picture, different bytes, in every run.
        static func unique(_ jpeg: [UInt8], run: String, _ index: Int) -> [UInt8] {
            let text = Array("photolib bench import \(run) \(index)".utf8)
            let length = text.count + 2
            return Array(jpeg[0..<2]) + [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + text + Array(jpeg[2...])
        }

        func run() async throws {
            let jpeg: [UInt8]
            do { jpeg = try FileInput.readWhole(photo, limit: 16 << 20, what: "the photo copied") } catch { throw CLIError(error.message) }
            let run = UUID().uuidString
            guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { throw CLIError("\(photo) is not a JPEG") }
            let endpoint = connection.resolvedServer
            let token = try connection.resolvedToken()
            let configuration = try connection.clientConfiguration()
            let reader = try await PhotoLibrary.connect(to: endpoint, token: token, clientName: "photolib-bench-import-fetch/reader", configuration: configuration)
            defer { reader.close() }
            let importer = try await PhotoLibrary.connect(to: endpoint, token: token, clientName: "photolib-bench-import-fetch/importer", configuration: configuration)
            defer { importer.close() }

            let request = Wire.FetchAssetsRequest(
                options: try Wire.FetchOptions(FetchOptions(sortDescriptors: [AssetSortDescriptor(key: .creationDate, ascending: false)], fetchLimit: 100)),
                prefetchCount: 100)
            @Sendable func fetchOnce() async throws -> UInt64 {
                let begin = DispatchTime.now().uptimeNanoseconds
                let snapshot = try await reader.call(PhotoLibraryMethods.fetchAssets, request)
                _ = try await reader.call(PhotoLibraryMethods.releaseFetchResult, Wire.ReleaseFetchResultRequest(fetchResultID: snapshot.fetchResultID))
                return max(1_000, DispatchTime.now().uptimeNanoseconds - begin)
            }
            func figure(_ name: String, _ samples: [UInt64]) -> Figure {
                var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1_000, highestTrackableValue: 600_000_000_000, numberOfSignificantValueDigits: .three)
                for sample in samples { _ = histogram.record(sample) }
                func ms(_ nanoseconds: UInt64) -> Double { (Double(nanoseconds) / 1e3).rounded() / 1e3 }
                return Figure(name: name, runs: samples.count, latencyMs: [
                    "p50": ms(histogram.valueAtPercentile(50)), "p99": ms(histogram.valueAtPercentile(99)), "max": ms(histogram.max),
                ])
            }

            for _ in 0..<20 { _ = try await fetchOnce() }
            var alone: [UInt64] = []
            for _ in 0..<baselineRuns { alone.append(try await fetchOnce()) }

            let started = DispatchTime.now().uptimeNanoseconds
            let count = self.count
            let importTask = Task {
                for index in 0..<count {
                    let upload = try await importer.upload(Self.unique(jpeg, run: run, index), filename: "bench-\(index).jpg")
                    _ = try await importer.performChanges { batch in _ = batch.createAsset(from: upload) }
                }
                return DispatchTime.now().uptimeNanoseconds
            }
            let done = ManagedAtomicFlag()
            Task {
                _ = try? await importTask.value
                done.set()
            }
            var during: [UInt64] = []
            while !done.isSet { during.append(try await fetchOnce()) }
            let finished = try await importTask.value
            let seconds = Double(finished - started) / 1e9
            let report = Report(
                alone: figure("fetch alone", alone), duringImport: figure("fetch during the import", during),
                imported: count, importSeconds: (seconds * 1000).rounded() / 1000, importsPerSecond: (Double(count) / seconds).rounded())
            if connection.json {
                try Output.json(report)
            } else {
                for item in [report.alone, report.duringImport] {
                    let l = item.latencyMs
                    print(item.name.padding(toLength: 26, withPad: " ", startingAt: 0)
                        + String(format: "p50 %8.3f ms   p99 %8.3f ms   max %8.3f ms   (%d fetches)", l["p50"]!, l["p99"]!, l["max"]!, item.runs))
                }
                print(String(format: "imported %d photos in %.1f s (%.0f/s), one upload + one PerformChanges each", count, seconds, Double(count) / seconds))
            }
        }
    }
}

/// A flag one task sets and another polls.
final class ManagedAtomicFlag: @unchecked Sendable {
    /// Guards ``value``; a leaf lock held for one load or store.
    private let lock = NSLock()
    private var value = false

    /// Whether ``set()`` was called.
    var isSet: Bool { lock.withLock { value } }

    /// Sets the flag.
    func set() { lock.withLock { value = true } }
}
