import Foundation
import PhotoLibCore
import Testing

@testable import PhotoLibImaging
@testable import PhotoLibMedia

@Suite("Videos are inspected from their container: size after rotation, dates, place, rates")
struct VideoInspectorTests {
    @Test("a rotated MOV with Apple metadata")
    func rotated() throws {
        let info = try VideoInspector.inspect(path: VideoFixtures.rotated)
        #expect(abs(info.duration - 2) < 0.05)
        #expect(info.storedWidth == 320 && info.storedHeight == 240)
        #expect(info.rotation == 90 && !info.isMirrored && info.orientation == 6)
        #expect(info.pixelWidth == 240 && info.pixelHeight == 320)
        // com.apple.quicktime.creationdate (18:30 at +02:00) wins over creation_time (16:30:05Z).
        #expect(info.creationDate == Date(timeIntervalSince1970: 1_625_416_200))
        let location = try #require(info.location)
        #expect(abs(location.latitude - 48.8584) < 1e-9 && abs(location.longitude - 2.2945) < 1e-9)
        #expect(location.altitude == 35)
        #expect(abs(info.frameRate - 30) < 0.01)
        #expect(info.codec == "h264" && info.hasAudio)
        #expect(info.brand == "qt" && info.contentIdentifier == nil)
        #expect(!info.isHighFrameRate && !info.isTimelapse && !info.isSlowMotion)
        #expect(info.fileSize == (try FileManager.default.attributesOfItem(atPath: VideoFixtures.rotated)[.size] as? Int))
        #expect(info.metadata["com.apple.quicktime.make"] == "PhotoLib")
    }

    @Test("an MP4 without metadata")
    func plain() throws {
        let info = try VideoInspector.inspect(path: VideoFixtures.plain)
        #expect(abs(info.duration - 1) < 0.05)
        #expect(info.rotation == 0 && info.orientation == 1 && info.pixelWidth == 320 && info.pixelHeight == 240)
        #expect(info.creationDate == nil && info.location == nil && info.contentIdentifier == nil)
        #expect(!info.hasAudio && info.brand == "isom")
    }

    @Test("a 120 fps clip is high frame rate; creation_time and the udta place are the fallbacks")
    func highFrameRate() throws {
        let info = try VideoInspector.inspect(path: VideoFixtures.highFrameRate)
        #expect(abs(info.frameRate - 120) < 0.01)
        #expect(info.isHighFrameRate && !info.isSlowMotion && !info.isTimelapse)
        #expect(info.storedWidth == 160 && info.storedHeight == 120)
        #expect(info.creationDate == Date(timeIntervalSince1970: 1_646_121_600))
        let location = try #require(info.location)
        #expect(abs(location.latitude + 33.8568) < 1e-9 && abs(location.longitude - 151.2153) < 1e-9)
        #expect(location.altitude == nil)
    }

    @Test("a time-lapse is recognised by Apple's capture mode")
    func timelapse() throws {
        let info = try VideoInspector.inspect(path: VideoFixtures.timelapse)
        #expect(info.captureMode == "Time-lapse" && info.isTimelapse && !info.isSlowMotion)
    }

    @Test("MPEG-4 Part 2: the size comes from decoding the first keyframe")
    func mpeg4() throws {
        let info = try VideoInspector.inspect(path: VideoFixtures.mpeg4)
        #expect(info.codec == "mpeg4" && info.storedWidth == 96 && info.storedHeight == 72)
        let pixels = imagingError { () throws(ImagingError) in
            try VideoInspector.inspect(path: VideoFixtures.mpeg4, limits: ImagingLimits(maxPixels: 96 * 72 - 1))
        }
        #expect(pixels?.code == .tooLarge)
    }

    @Test("the video half of a Live Photo carries its content identifier and date")
    func livePhoto() throws {
        let info = try VideoInspector.inspect(path: VideoFixtures.live)
        #expect(info.contentIdentifier == VideoFixtures.contentIdentifier)
        #expect(info.creationDate == Date(timeIntervalSince1970: 1_673_791_500))
        #expect(abs(info.duration - 1.5) < 0.05)
    }

    @Test("bytes in memory inspect like the file", arguments: VideoFixtures.all)
    func bytesMatchPath(path: String) throws {
        #expect(try VideoInspector.inspect(VideoFixtures.bytes(path)) == VideoInspector.inspect(path: path))
    }

    @Test("the poster target is min(10 % of the duration, 1 s)")
    func posterTarget() {
        #expect(VideoInspector.posterTargetTime(duration: 2) == 0.2)
        #expect(VideoInspector.posterTargetTime(duration: 60) == 1)
        #expect(VideoInspector.posterTargetTime(duration: 0) == 0)
        #expect(VideoInspector.posterTargetTime(duration: .nan) == 0)
    }
}

@Suite("Video metadata values: ISO 8601 dates and ISO 6709 points")
struct VideoMetadataParsingTests {
    @Test("ISO 8601 forms of Apple and FFmpeg")
    func dates() {
        let instant = Date(timeIntervalSince1970: 1_625_416_200)
        #expect(ISO8601Date.date("2021-07-04T18:30:00+0200") == instant)
        #expect(ISO8601Date.date("2021-07-04T18:30:00+02:00") == instant)
        #expect(ISO8601Date.date("2021-07-04T18:30:00+02") == instant)
        #expect(ISO8601Date.date("2021-07-04T16:30:00Z") == instant)
        #expect(ISO8601Date.date("2021-07-04T16:30:00.000000Z") == instant)
        #expect(ISO8601Date.date("2021-07-04 16:30:00") == instant)
        #expect(ISO8601Date.date("2021-07-04T11:30:00-0500") == instant)
        #expect(ISO8601Date.date("2021-07-04T16:30:00.5Z") == instant.addingTimeInterval(0.5))
        for bad in ["", "2021-07-04", "2021-13-04T16:30:00Z", "2021-02-30T16:30:00Z", "2021-07-04T16:30:00+2", "2021-07-04T16:30:00.Z", "garbage garbage garbage"] {
            #expect(ISO8601Date.date(bad) == nil, "\(bad)")
        }
    }

    @Test("ISO 6709 degrees, degrees-minutes, degrees-minutes-seconds, altitude, CRS")
    func points() throws {
        let paris = try #require(ISO6709.location("+48.8584+002.2945+035.000/"))
        #expect(abs(paris.latitude - 48.8584) < 1e-9 && abs(paris.longitude - 2.2945) < 1e-9 && paris.altitude == 35)
        let west = try #require(ISO6709.location("-33.8688-070.6693/"))
        #expect(west.latitude < 0 && west.longitude < 0 && west.altitude == nil)
        let minutes = try #require(ISO6709.location("+4851.504+00217.670/"))
        #expect(abs(minutes.latitude - (48 + 51.504 / 60)) < 1e-9 && abs(minutes.longitude - (2 + 17.67 / 60)) < 1e-9)
        let seconds = try #require(ISO6709.location("+485130.24+0021740.2-012.5CRSWGS_84/"))
        #expect(abs(seconds.latitude - (48 + 51.0 / 60 + 30.24 / 3600)) < 1e-9)
        #expect(abs(seconds.longitude - (2 + 17.0 / 60 + 40.2 / 3600)) < 1e-9 && seconds.altitude == -12.5)
        #expect(ISO6709.location("+37.7749-122.4194") != nil)
        for bad in ["", "/", "+91.0+000.0/", "+45.0+181.0/", "48.85+002.29/", "+48.8x+002.29/", "+4.8+002.29/", "+48+2/", "+4860.0+00200.0/", "+1+2+3+4/"] {
            #expect(ISO6709.location(bad) == nil, "\(bad)")
        }
    }
}
