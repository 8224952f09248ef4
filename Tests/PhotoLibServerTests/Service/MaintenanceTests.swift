import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibServer

/// What maintenance reads to record the size of assets edited before schema 9: a JPEG's
/// upright size from its first 256 KiB.
@Suite("Maintenance: the size of older edits")
struct MaintenanceTests {
    @Test("a JPEG's upright size is read from its header; anything else gives nil")
    func jpegSize() throws {
        #expect(Maintenance.jpegSize(Fixtures.landscape) == PixelSize(width: 4352, height: 2448))
        #expect(Maintenance.jpegSize(Fixtures.path("Tests/Fixtures/media/png_alpha.png")) == nil)
        #expect(Maintenance.jpegSize("/nonexistent/render.jpg") == nil)
    }
}
