import ArgumentParser
import Foundation
import PhotoLibClient
import PhotoLibStore

extension PhotoLibDaemon {
    /// `photolibd stats`: asks a running server what each of its budgets holds.
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what a running server's bounded resources hold beside their limits (memory, snapshots, live results, image cache, connections, disk reserve).")

        @Option(name: .long, help: "The library directory the server serves (its owner token is read from there).")
        var library: String

        @Option(name: .long, help: "The server's address (default: $PHOTOLIB_SERVER or 127.0.0.1:7800, as photolib's).")
        var server: String = ProcessInfo.processInfo.environment["PHOTOLIB_SERVER"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1:7800"

        @Flag(name: .long, help: "Print JSON.")
        var json = false

        func run() async throws {
            let token: String
            do {
                token = try PhotoLibStore.PhotoLibrary.open(at: library, createIfMissing: false, diskReserveSize: 0).ownerToken()
            } catch {
                throw Failure.exit("photolibd stats: cannot read the owner token of \(library): \(error.message)")
            }
            let budgets: [ResourceBudget]
            do {
                let client = try await PhotoLibClient.PhotoLibrary.connect(to: server, token: token, clientName: "photolibd-stats/0.1")
                defer { client.close() }
                budgets = try await client.libraryInfo().budgets
            } catch let error as PhotoLibError {
                throw Failure.exit("photolibd stats: \(server): \(error.message)")
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(budgets), as: UTF8.self))
                return
            }
            for budget in budgets {
                var parts: [String] = []
                if budget.bytesLimit > 0 { parts.append("\(Self.mebibytes(budget.bytesHeld)) of \(Self.mebibytes(budget.bytesLimit)) MiB") }
                if budget.itemsLimit > 0 { parts.append("\(budget.itemsHeld) of \(budget.itemsLimit)") }
                // The memory limit divides the budgets; resident memory also holds what is
                // bounded by counts (connections, calls, decodes), so it may pass the limit.
                let note = budget.name == "memory" ? "  (resident; the limit divides the budgets below, see photolibd serve --help)" : ""
                print("\(budget.name.padding(toLength: 14, withPad: " ", startingAt: 0)) \(parts.joined(separator: ", "))\(note)")
            }
        }

        private static func mebibytes(_ bytes: Int) -> String {
            String(format: "%.1f", Double(bytes) / 1_048_576)
        }
    }
}
