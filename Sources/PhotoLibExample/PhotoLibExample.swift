// The program of README's "Use PhotoLibClient in your package": connect, fetch, request an
// image, watch changes. It is built with the package (so it cannot go stale) and run by
// EndToEndTests against a real photolibd.
//
//   photolib-example HOST:PORT TOKEN OUTPUT.jpg
//
// Prints the library's asset count, writes the newest photo as a JPEG of at most 512 x 512,
// then toggles its favourite flag (a change to watch: it changes the library) and prints the
// change details the subscription receives for it.
import Foundation
import PhotoLibClient

@main
struct PhotoLibExample {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 4 else {
            FileHandle.standardError.write(Data("usage: photolib-example HOST:PORT TOKEN OUTPUT.jpg\n".utf8))
            exit(2)
        }
        do {
            try await run(server: arguments[1], token: arguments[2], output: arguments[3])
        } catch {
            FileHandle.standardError.write(Data("photolib-example: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(server: String, token: String, output: String) async throws {
        // Connect with the owner's token (DIR/owner.token) or a client token.
        let library = try await PhotoLibrary.connect(to: server, token: token, clientName: "photolib-example/1.0")
        defer { library.close() }

        // Fetch: every photo, newest first. The result is a server-side snapshot, paged lazily.
        let options = FetchOptions(predicate: "mediaType == image", sortDescriptors: [AssetSortDescriptor(key: .creationDate, ascending: false)])
        let photos = try await library.fetchAssets(with: options)
        print("assets: \(photos.count)")
        guard photos.count > 0 else { return }
        let newest = try await photos.object(at: 0)

        // Request an image: at most 512 x 512 (resize mode exact: the default, fast, may give a
        // larger one, as in PhotoKit), aspect fit, the high-quality image only.
        let image = try await library.imageManager.image(
            forAssetIdentifier: newest.localIdentifier, targetSize: PixelSize(width: 512, height: 512), contentMode: .aspectFit,
            options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact))
        try Data(image.data).write(to: URL(fileURLWithPath: output))
        print("image: \(image.width)x\(image.height) -> \(output)")

        // Watch changes: register the fetch result, change the photo, read the details.
        let subscription = try await library.subscribe()
        try await subscription.register(photos)
        _ = try await library.performChanges { batch in
            batch.setProperties(of: newest.localIdentifier, isFavorite: !newest.isFavorite)
        }
        for try await change in subscription.changes {
            guard let details = change.changeDetails(for: photos) else { continue }
            print("changed indexes: \(details.changedIndexes), favourite now: \(details.changedObjects.first?.isFavorite ?? false)")
            break
        }
        subscription.cancel()
    }
}
