import ArgumentParser
import Dispatch
import Foundation
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib bench busy` (hidden): many clients at once, each mixing fetches, image
    /// requests at various sizes (some bypassing the caches) and exports, for a server-memory
    /// figure (`Scripts/bench-busy` reads the server's peak resident memory around it).
    struct BenchBusy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "busy",
            abstract: "Run many busy clients at once: fetches, images at various sizes (warm and cold) and exports.",
            discussion: """
                Each client has its own connection and runs its own loop for --duration seconds, one \
                operation at a time, in turn: a fetch (fetchAssets, 100 objects of it, release), an \
                image at a size picked from 64…2048 px and 'max' (every third one with bypass_cache: \
                the owner's token is needed), and, every fourth operation, an export of an original \
                (writeData into --export-dir, then deleted). Prints operations, errors and rates.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "Clients (connections) running at once.")
        var clients: Int = 50

        @Option(name: .long, help: "Seconds each client runs.")
        var duration: Double = 20

        @Option(name: .long, help: "Folder for the exported files (each deleted once written).")
        var exportDir: String = NSTemporaryDirectory()

        func validate() throws {
            guard (1...1000).contains(clients) else { throw ValidationError("--clients must be within 1…1000") }
            guard duration > 0, duration <= 3600 else { throw ValidationError("--duration must be more than 0 and at most 3600 s") }
        }

        /// What one client did.
        struct Tally: Sendable {
            var fetches = 0, images = 0, coldImages = 0, exports = 0, errors = 0
            var bytes = 0
            var firstError: String?

            mutating func add(_ other: Tally) {
                fetches += other.fetches
                images += other.images
                coldImages += other.coldImages
                exports += other.exports
                errors += other.errors
                bytes += other.bytes
                if firstError == nil { firstError = other.firstError }
            }
        }

        static let sizes: [PixelSize?] = [
            PixelSize(width: 64, height: 64), PixelSize(width: 256, height: 256), PixelSize(width: 512, height: 512),
            PixelSize(width: 1024, height: 1024), PixelSize(width: 2048, height: 2048), nil,
        ]

        func run() async throws {
            let server = connection.resolvedServer, token = try connection.resolvedToken()
            let configuration = try connection.clientConfiguration()
            let identifiers = try await connection.withLibrary { library in
                try await library.fetchAssets(with: FetchOptions(fetchLimit: 1000)).allObjects().map(\.localIdentifier)
            }
            guard !identifiers.isEmpty else { throw CLIError("the library has no assets to request") }
            let deadline = DispatchTime.now() + duration, exportDir = exportDir
            let started = DispatchTime.now()
            let total = await withTaskGroup(of: Tally.self) { group in
                for client in 0..<clients {
                    group.addTask {
                        var tally = Tally()
                        let library: PhotoLibrary
                        do {
                            library = try await PhotoLibrary.connect(to: server, token: token, clientName: "photolib-bench-busy/0.1.0", configuration: configuration)
                        } catch {
                            tally.errors += 1
                            tally.firstError = "connect: \(error)"
                            return tally
                        }
                        defer { library.close() }
                        var warm = library.imageManager, cold = library.imageManager
                        warm.bypassCache = false
                        cold.bypassCache = true
                        let resources = AssetResourceManager(library: library)
                        var step = client
                        while DispatchTime.now() < deadline {
                            step += 1
                            let identifier = identifiers[(step &* 7919 &+ client) % identifiers.count]
                            do {
                                switch step % 4 {
                                case 0:
                                    let path = "\(exportDir)/busy-\(client)-\(step).export"
                                    // The original: a photo's photo, a video's video (a video has no .photo).
                                    let resource = try await resources.writeData(for: identifier, type: nil, toFile: path)
                                    try? FileManager.default.removeItem(atPath: path)
                                    tally.exports += 1
                                    tally.bytes += resource.size
                                case 1:
                                    let result = try await library.fetchAssets()
                                    _ = try await result.objects(in: 0..<min(100, result.count))
                                    try await result.release()
                                    tally.fetches += 1
                                default:
                                    let isCold = step % 3 == 0
                                    let size = Self.sizes[(step / 4 + client) % Self.sizes.count]
                                    let image = try await (isCold ? cold : warm).image(
                                        forAssetIdentifier: identifier, targetSize: size ?? PixelSize(width: 0, height: 0), contentMode: .aspectFit,
                                        options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: size == nil ? .none : .exact,
                                                                     version: size == nil ? .original : .current))
                                    tally.images += 1
                                    if isCold { tally.coldImages += 1 }
                                    tally.bytes += image.data.count
                                }
                            } catch {
                                tally.errors += 1
                                if tally.firstError == nil { tally.firstError = "\(error)" }
                            }
                        }
                        return tally
                    }
                }
                var total = Tally()
                for await tally in group { total.add(tally) }
                return total
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            if connection.json {
                struct BusyReport: Encodable {
                    var clients: Int, seconds: Double, fetches: Int, images: Int, coldImages: Int, exports: Int, bytes: Int, errors: Int
                    var firstError: String?
                }
                try Output.jsonLine(BusyReport(
                    clients: clients, seconds: seconds, fetches: total.fetches, images: total.images, coldImages: total.coldImages,
                    exports: total.exports, bytes: total.bytes, errors: total.errors, firstError: total.firstError))
            } else {
                print(String(
                    format: "busy: %d clients for %.1f s: %d fetches, %d images (%d cold), %d exports, %.0f MB received, %d errors",
                    clients, seconds, total.fetches, total.images, total.coldImages, total.exports, Double(total.bytes) / 1e6, total.errors))
                if let first = total.firstError { print("first error: \(first)") }
            }
            // Nothing done at all is a failed run, not a figure.
            if total.fetches + total.images + total.exports == 0 && total.errors > 0 {
                throw CLIError("every request failed: \(total.firstError ?? "no detail")")
            }
        }
    }
}
