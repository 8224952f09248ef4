@testable import PhotoLibServer
import XCTest

/// A client's error messages lose the library's server path, and only that: a library
/// opened as `lib` used to turn "library" into "<library>rary" and "libjpeg" into
/// "<library>jpeg".
final class ServerPathScrubberTests: XCTestCase {
    private let scrubber = ServerPathScrubber(paths: ["lib", "/home/ana/photos/lib", "/srv/real/lib"])

    func testThePathIsReplacedWhereItStandsAsAPath() {
        XCTAssertEqual(scrubber.scrubbed("cannot open /home/ana/photos/lib/originals/a.jpg: no such file"), "cannot open <library>/originals/a.jpg: no such file")
        XCTAssertEqual(scrubber.scrubbed("cannot open lib/originals/a.jpg"), "cannot open <library>/originals/a.jpg")
        XCTAssertEqual(scrubber.scrubbed("'/srv/real/lib' is locked"), "'<library>' is locked")
        XCTAssertEqual(scrubber.scrubbed("the library at lib."), "the library at <library>.")
        XCTAssertEqual(scrubber.scrubbed("(lib)"), "(<library>)")
    }

    func testWordsThatContainThePathAreLeftAlone() {
        for message in [
            "change token 99999 is newer than this library's current token 76; was it issued by another library?",
            "not a change token or photolib token",
            "the upload is damaged (libjpeg: Premature end of JPEG file)",
            "lib.db is not a file of ours", "calibrate", "lib_x", "lib-2",
        ] {
            XCTAssertEqual(scrubber.scrubbed(message), message)
        }
    }

    func testAnAbsolutePathIsReplacedWholeBeforeARelativeOneInsideIt() {
        XCTAssertEqual(scrubber.scrubbed("/home/ana/photos/lib and lib/x"), "<library> and <library>/x")
    }
}
