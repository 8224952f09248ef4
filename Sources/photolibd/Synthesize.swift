import ArgumentParser
import Foundation
import PhotoLibStore

extension PhotoLibDaemon {
    /// `photolibd synthesize`: bulk-creates metadata-only assets for benchmarks (hidden).
    struct Synthesize: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add N synthetic assets (metadata only, no image files) to a library, for benchmarks.",
            shouldDisplay: false)

        @Option(name: .long, help: "The library directory (created if missing).")
        var library: String

        @Option(name: .long, help: "How many assets to add.")
        var count: Int

        func validate() throws {
            guard (1...10_000_000).contains(count) else { throw ValidationError("--count must be within 1…10000000") }
        }

        func run() throws {
            do {
                let photoLibrary = try PhotoLibrary.open(at: library)
                let started = Date()
                let added = try photoLibrary.addSyntheticAssetsForBenchmark(count: count)
                print("synthesized \(added) assets in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
            } catch {
                throw Failure.exit("photolibd synthesize: \(error.message)")
            }
        }
    }
}
