import Foundation
import PhotoLibTestSupport
import Testing

@testable import PhotoLibImaging
import PhotoLibCore

@Suite("EXIF metadata")
struct ExifTests {
    /// 2021-07-04 12:34:56 UTC.
    static let julyFourth = Date(timeIntervalSince1970: 1_625_402_096)

    @Test("DateTimeOriginal without an offset is read as UTC", arguments: [false, true])
    func dateWithoutOffset(bigEndian: Bool) throws {
        let jpeg = ExifFixture.jpegWithExif(
            Photos.small, dateTimeOriginal: "2021:07:04 12:34:56", bigEndian: bigEndian)
        let info = try JPEGInspector.inspect(jpeg)
        #expect(info.creationDate == Self.julyFourth)
    }

    @Test("OffsetTimeOriginal shifts the instant", arguments: [("+02:00", -7200), ("-05:30", 19800), ("+00:00", 0)])
    func dateWithOffset(offset: String, shift: Int) throws {
        let jpeg = ExifFixture.jpegWithExif(Photos.small, dateTimeOriginal: "2021:07:04 12:34:56", offset: offset)
        let info = try JPEGInspector.inspect(jpeg)
        #expect(info.creationDate == Self.julyFourth.addingTimeInterval(TimeInterval(shift)))
    }

    @Test(
        "impossible or placeholder dates are absent",
        arguments: ["0000:00:00 00:00:00", "2021:13:01 00:00:00", "2021:02:29 10:00:00", "2021-07-04 12:34:56", "    :  :     :  :  "])
    func invalidDates(text: String) throws {
        let jpeg = ExifFixture.jpegWithExif(Photos.small, orientation: 3, dateTimeOriginal: text)
        let info = try JPEGInspector.inspect(jpeg)
        #expect(info.creationDate == nil)
        #expect(info.orientation == 3)
    }

    @Test("a leap day is a valid date")
    func leapDay() throws {
        let jpeg = ExifFixture.jpegWithExif(Photos.small, dateTimeOriginal: "2024:02:29 23:59:59")
        let info = try JPEGInspector.inspect(jpeg)
        #expect(info.creationDate == Date(timeIntervalSince1970: 1_709_251_199))
    }

    @Test(
        "GPS position reads back with N/S/E/W applied",
        arguments: [(48.858_37, 2.294_48, false), (-33.856_78, -151.215_30, true), (35.0, 139.0, false), (0.0, -0.5, true)])
    func gps(latitude: Double, longitude: Double, bigEndian: Bool) throws {
        let jpeg = ExifFixture.jpegWithExif(Photos.small, gps: (latitude, longitude), bigEndian: bigEndian)
        let location = try #require(try JPEGInspector.inspect(jpeg).location)
        #expect(abs(location.latitude - latitude) < 1e-6)
        #expect(abs(location.longitude - longitude) < 1e-6)
        #expect(location.altitude == nil)
    }

    @Test("GPS altitude above and below sea level", arguments: [35.5, -10.25])
    func altitude(metres: Double) throws {
        let jpeg = ExifFixture.jpegWithExif(Photos.small, gps: (10, 20), altitude: metres)
        let location = try #require(try JPEGInspector.inspect(jpeg).location)
        #expect(location.altitude == metres)
    }

    @Test("all fields together, and replacing existing EXIF")
    func allFieldsAndReplacement() throws {
        let first = ExifFixture.jpegWithExif(
            Photos.small, orientation: 6, dateTimeOriginal: "2001:01:01 00:00:00", gps: (1, 1))
        let second = ExifFixture.jpegWithExif(
            first, orientation: 8, dateTimeOriginal: "2021:07:04 12:34:56", offset: "+00:00",
            gps: (45.5, -73.5), altitude: 100)
        #expect(second.count < first.count + 200)  // the old segment was removed, not stacked
        let info = try JPEGInspector.inspect(second)
        #expect(info.orientation == 8)
        #expect(info.creationDate == Self.julyFourth)
        #expect(info.location == Location(latitude: 45.5, longitude: -73.5, altitude: 100))
        #expect(ExifFixture.withoutExif(second) == ExifFixture.withoutExif(Photos.small))
    }

    @Test("out-of-range orientation values mean 1", arguments: [0, 9, 300])
    func invalidOrientation(value: Int) throws {
        let info = try JPEGInspector.inspect(ExifFixture.jpegWithExif(Photos.small, orientation: value))
        #expect(info.orientation == 1)
    }

    @Test("garbage EXIF is ignored, never a failure or a crash")
    func garbageExif() throws {
        var generator = SplitMix64(seed: 42)
        var payloads: [[UInt8]] = [
            Array("Exif".utf8) + [0, 0],  // header only
            Array("Exif".utf8) + [0, 0] + [0x49, 0x49, 0x2A, 0x00, 0xFF, 0xFF, 0xFF, 0x7F],  // IFD0 offset far away
            Array("Exif".utf8) + [0, 0] + [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0xFF, 0xFF],  // 65535 entries claimed
            Array("Exif".utf8) + [0, 0] + [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0, 8, 0, 0, 0],  // IFD0 points at itself
        ]
        for length in [1, 7, 64, 4000, 65000] {
            payloads.append(Array("Exif".utf8) + [0, 0] + (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        // A valid EXIF block with random bytes flipped.
        let valid = Array(
            ExifFixture.jpegWithExif(Photos.small, orientation: 6, dateTimeOriginal: "2021:07:04 12:34:56", gps: (1, 2))
                .dropFirst(10).prefix(200))
        for _ in 0..<50 {
            var damaged = Array("Exif".utf8) + [0, 0] + valid
            for _ in 0..<8 {
                damaged[Int.random(in: 6..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            payloads.append(damaged)
        }
        for payload in payloads {
            let jpeg = ExifFixture.jpegWithAPP1(Photos.small, payload: payload)
            let info = try JPEGInspector.inspect(jpeg)
            #expect((1...8).contains(info.orientation))
            #expect(info.storedWidth == 64 && info.storedHeight == 96)
        }
        // And it still renders.
        let rendered = try JPEGRenderer.render(
            ExifFixture.jpegWithAPP1(Photos.small, payload: payloads[1]), request: RenderRequest(targetSize: PixelSize(width: 32, height: 32),
            contentMode: .aspectFit))
        #expect(rendered.width == 21 && rendered.height == 32)
    }
}

