import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibServer

/// What maintenance reads to record the size of assets edited before schema 9: a JPEG's
/// upright size from its head (`WholeFile.head`, also what a commit reads for a JPEG's size).
@Suite("Maintenance: the size of older edits")
struct MaintenanceTests {
    @Test("a JPEG's upright size is read from its header; anything else gives nil")
    func jpegSize() throws {
        #expect(Maintenance.jpegSize(Fixtures.landscape) == PixelSize(width: 4352, height: 2448))
        #expect(Maintenance.jpegSize(Fixtures.path("Tests/Fixtures/media/png_alpha.png")) == nil)
        #expect(Maintenance.jpegSize("/nonexistent/render.jpg") == nil)
    }

    @Test("a file's head is its first bytes, or all of a shorter file")
    func head() throws {
        let whole = try Fixtures.bytes(at: Fixtures.landscape)
        #expect(try WholeFile.head(Fixtures.landscape, what: "x", count: 100) == Array(whole.prefix(100)))
        #expect(try WholeFile.head(Fixtures.landscape, what: "x", count: whole.count + 10) == whole)
        #expect(throws: PhotoLibError.self) { try WholeFile.head("/nonexistent/render.jpg", what: "x", count: 10) }
    }
}
