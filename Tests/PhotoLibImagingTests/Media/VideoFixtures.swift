import Foundation
import PhotoLibTestSupport

@testable import PhotoLibImaging
@testable import PhotoLibMedia

/// The committed video fixtures (`Tests/Fixtures/media/video-*`, `live-*`; made by
/// `Scripts/make-video-fixtures`, described in `Tests/Fixtures/media/VIDEO-PROVENANCE.md`).
///
/// Every one shows the same pattern in stored orientation: top-left red, top-right green,
/// bottom-left blue, bottom-right yellow, with a small white square moving along the middle.
enum VideoFixtures {
    /// 320×240 H.264 + AAC, 2 s, rotation 90° (upright 240×320), date, GPS; moov first.
    static let rotated = path("video-rotated-gps.mov")
    /// 320×240 H.264, 1 s, no metadata, no audio; moov last.
    static let plain = path("video-plain.mp4")
    /// 160×120 H.264, 1 s at 120 fps; only `creation_time` and a udta `©xyz` place.
    static let highFrameRate = path("video-120fps.mov")
    /// 64×48 H.264, 0.5 s, capture mode "Time-lapse"; its only keyframe is the first frame.
    static let timelapse = path("video-timelapse.mov")
    /// 240×180 H.264, 1.5 s, the video half of a Live Photo (content identifier).
    static let live = path("live-IMG_0001.mov")
    /// 96×72 MPEG-4 Part 2, 1 s, keyframes every 0.4 s: its size is known only to the decoder.
    static let mpeg4 = path("video-mpeg4.mov")
    /// 180×120 H.264, 1 s, a Live Photo's video paired by content identifier (a width that is
    /// not a multiple of 8).
    static let liveByIdentifier = path("live-IMG_0002.mov")
    /// 120×80 H.264, 1 s, no metadata: a Live Photo's video paired by base name (a width that
    /// is a multiple of 8 but not of 16).
    static let liveByName = path("live-IMG_0003.mov")
    /// The H.264 fixtures.
    static let h264 = [rotated, plain, highFrameRate, timelapse, live]
    /// Every good fixture.
    static let all = h264 + [mpeg4]
    /// The truncated copy of each H.264 fixture (60 % of its bytes).
    static let truncated = h264.map { name in
        let url = URL(fileURLWithPath: name)
        let ext = url.pathExtension
        return url.deletingPathExtension().path + "-truncated." + ext
    }

    /// The Live Photo's content identifier.
    static let contentIdentifier = "5C9B6A4E-3D21-4F3A-9E55-2B7C1D0F8A11"

    /// Files the shim once mishandled (`Tests/Fixtures/media/crashers-video/`).
    static var crashers: [String] {
        let folder = Fixtures.path("Tests/Fixtures/media/crashers-video")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted().map { folder + "/" + $0 }
    }

    static func path(_ name: String) -> String {
        Fixtures.path("Tests/Fixtures/media/" + name)
    }

    static func bytes(_ path: String) -> [UInt8] {
        do {
            return try Fixtures.bytes(at: path)
        } catch {
            fatalError("cannot read video fixture \(path): \(error)")
        }
    }

    /// The mean RGB of a 5×5 patch centred on the unit point (u, v) of a decoded image.
    static func colour(_ image: DecodedPixels, _ u: Double, _ v: Double) -> (r: Int, g: Int, b: Int) {
        let cx = Int(u * Double(image.width)), cy = Int(v * Double(image.height))
        var sums = [0, 0, 0]
        var count = 0
        for y in max(0, cy - 2)...min(image.height - 1, cy + 2) {
            for x in max(0, cx - 2)...min(image.width - 1, cx + 2) {
                for k in 0..<3 { sums[k] += Int(image.sample(x, y, k)) }
                count += 1
            }
        }
        return (sums[0] / count, sums[1] / count, sums[2] / count)
    }

    /// Which of the pattern's four colours (c, within 45 per channel) or nil.
    static func name(_ c: (r: Int, g: Int, b: Int)) -> String? {
        let palette: [(String, Int, Int, Int)] = [
            ("red", 220, 40, 40), ("green", 40, 200, 40), ("blue", 40, 40, 220), ("yellow", 230, 220, 40),
        ]
        for (name, r, g, b) in palette where abs(c.r - r) < 45 && abs(c.g - g) < 45 && abs(c.b - b) < 45 {
            return name
        }
        return nil
    }
}
