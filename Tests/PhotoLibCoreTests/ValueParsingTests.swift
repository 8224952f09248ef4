import PhotoLibCore
import XCTest

final class ValueParsingTests: XCTestCase {
    func testSortDescriptorParsing() throws {
        XCTAssertEqual(try AssetSortDescriptor(parsing: "creationDate"), AssetSortDescriptor(key: .creationDate, ascending: true))
        XCTAssertEqual(try AssetSortDescriptor(parsing: "pixelWidth:desc"), AssetSortDescriptor(key: .pixelWidth, ascending: false))
        XCTAssertEqual(try AssetSortDescriptor(parsing: "isFavorite:asc"), AssetSortDescriptor(key: .isFavorite, ascending: true))
        XCTAssertThrowsError(try AssetSortDescriptor(parsing: "size")) { error in
            XCTAssertTrue((error as? PhotoLibError)?.message.contains("unknown sort key 'size'") ?? false)
        }
        XCTAssertThrowsError(try AssetSortDescriptor(parsing: "creationDate:up"))
        XCTAssertThrowsError(try AssetSortDescriptor(parsing: "creationDate:asc:desc"))
    }

    func testPixelSizeParsing() throws {
        XCTAssertEqual(try PixelSize(parsing: "256x128"), PixelSize(width: 256, height: 128))
        XCTAssertEqual(try PixelSize(parsing: "256X128"), PixelSize(width: 256, height: 128))
        XCTAssertEqual(try PixelSize(parsing: "max"), .maximum)
        XCTAssertEqual(try PixelSize(parsing: "0x0"), .maximum, "as on the wire, and as the server's message says")
        for bad in ["256", "0x10", "10x0", "-1x5", "65536x1", "axb", "10x10x10", ""] {
            XCTAssertThrowsError(try PixelSize(parsing: bad), bad)
        }
    }

    func testLocalIdentifiers() throws {
        let asset = LocalIdentifier.newAsset()
        XCTAssertTrue(asset.hasSuffix("/L0/001"))
        XCTAssertNoThrow(try LocalIdentifier.validate(asset))
        XCTAssertEqual(LocalIdentifier.smartAlbum(.smartAlbumUserLibrary), "smart-209/L0/040")
        for bad in ["", "has space", String(repeating: "x", count: 129), "tab\t", "é"] {
            XCTAssertThrowsError(try LocalIdentifier.validate(bad), bad)
        }
    }

    func testLocationRanges() {
        XCTAssertNoThrow(try Location(latitude: -90, longitude: 180).validated())
        XCTAssertThrowsError(try Location(latitude: 91, longitude: 0).validated())
        XCTAssertThrowsError(try Location(latitude: 0, longitude: -181).validated())
        XCTAssertThrowsError(try Location(latitude: .nan, longitude: 0).validated())
    }

    func testMediaNames() {
        for type in MediaType.allCases { XCTAssertEqual(MediaType(name: type.name), type) }
        XCTAssertEqual(MediaSubtypes([.photoScreenshot, .photoLive]).names, ["screenshot", "live"])
    }

    func testErrorDescription() {
        XCTAssertEqual(PhotoLibError(.notFound, "no asset x").description, "NOT_FOUND: no asset x")
    }
}

final class PredicateDateParsingTests: XCTestCase {
    func testStandaloneDates() throws {
        XCTAssertEqual(try PredicateDate.parse("1970-01-02"), 86_400_000_000)
        XCTAssertEqual(try PredicateDate.parse("1970-01-01T00:00:01.5Z"), 1_500_000)
        XCTAssertEqual(try PredicateDate.parse("1970-01-01T02:00:00+02:00"), 0)
        XCTAssertEqual(try PredicateDate.parse("2024-02-29T10:00"), try PredicateDate.parse("2024-02-29T10:00:00Z"))
    }

    /// What the CLI prints parses back to the same second, in the proleptic Gregorian calendar
    /// before 1582 too (Foundation's formatter printed 0001-01-01 as 0001-01-03).
    func testSecondsTextIsProlepticGregorianAndParsesBack() throws {
        for text in ["0001-01-01T00:00:00Z", "1582-10-10T12:00:00Z", "1600-02-29T23:59:59Z", "1969-12-31T23:59:59Z", "2026-11-27T04:05:06Z", "9999-12-31T23:59:59Z"] {
            let date = Date(timeIntervalSince1970: Double(try PredicateDate.parse(text)) / 1_000_000)
            XCTAssertEqual(PredicateDate.secondsText(date), text)
        }
        XCTAssertEqual(PredicateDate.secondsText(Date(timeIntervalSince1970: -0.25)), "1969-12-31T23:59:59Z", "rounded down to the second")
        XCTAssertEqual(PredicateDate.secondsText(Date(timeIntervalSince1970: -1e15)), "0001-01-01T00:00:00Z", "clamped to year 1")
    }

    func testBadDatesSayWhyWithoutAColumn() {
        for (text, why) in [("2023-02-29", "day 29 does not exist in 2023-02"), ("2024-01-01T25:00", "the hour must be 00…23"), ("yesterday", "expected 4 digits for the year"), ("2024-01-01 ", "unexpected")] {
            XCTAssertThrowsError(try PredicateDate.parse(text), text) { error in
                let error = error as? PhotoLibError
                XCTAssertEqual(error?.code, .invalidArgument)
                XCTAssertTrue(error?.message.contains(why) ?? false, "\(text): \(error?.message ?? "")")
                XCTAssertFalse(error?.message.contains("at column") ?? true)
            }
        }
    }
}
