import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing

@testable import PhotoLibImaging
@testable import PhotoLibMedia

/// Inputs in `Tests/Fixtures/media/crashers/` crashed (or tripped AddressSanitizer in) a
/// decoder shim under `Scripts/fuzz-stills` before their fix. Each must now inspect, validate
/// and render to a value or an ``ImagingError`` with a message, in well under a second.
/// (`Scripts/fuzz-stills` replays them under AddressSanitizer too: they seed its corpus.)
@Suite("Fuzzer crashers stay fixed")
struct StillImageCrasherTests {
    static let folder = Media.folder + "/crashers"

    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted()
    }

    @Test("the crasher folder is not empty")
    func present() {
        #expect(!Self.files.isEmpty)
    }

    @Test("every crasher fails cleanly or succeeds", arguments: files)
    func crasher(name: String) throws {
        let bytes = try Fixtures.bytes(at: Self.folder + "/" + name)
        let started = Date()
        let request = RenderRequest(targetSize: PixelSize(width: 64, height: 64))
        do { _ = try StillImageRenderer.inspect(bytes) } catch { #expect(!error.message.isEmpty, "\(name): \(error)") }
        do { _ = try StillImageRenderer.validate(bytes) } catch { #expect(!error.message.isEmpty, "\(name): \(error)") }
        do { _ = try StillImageRenderer.render(bytes, request: request) } catch { #expect(!error.message.isEmpty, "\(name): \(error)") }
        do { _ = try StillImageRenderer.renderDegraded(bytes, request: request) } catch {
            #expect(!error.message.isEmpty, "\(name): \(error)")
        }
        #expect(Date().timeIntervalSince(started) < 5, "\(name) took too long")
    }
}
