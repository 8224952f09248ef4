import Foundation
import PhotoLibCore
import PhotoLibImaging

/// What a MOV/MP4/M4V video's container says about it, read by
/// ``VideoInspector/inspect(path:limits:control:)`` without decoding a frame.
public struct VideoInfo: Sendable, Hashable {
    /// Length in seconds (0 when the container does not say).
    public var duration: Double
    /// Width of the coded frames, before rotation.
    public var storedWidth: Int
    /// Height of the coded frames, before rotation.
    public var storedHeight: Int
    /// Clockwise rotation a player applies to show the frames upright: 0, 90, 180 or 270
    /// (from the track's display matrix, else its `rotate` tag), after the mirroring of
    /// ``isMirrored``. A phone held upright records 90.
    public var rotation: Int
    /// Whether the display matrix mirrors the picture left to right before ``rotation``
    /// turns it (a vertical flip is a mirror and 180°).
    public var isMirrored: Bool
    /// The display transform as an EXIF orientation, 1...8 (90° is 6, 180° is 3, 270° is 8,
    /// a mirror 2); the poster is rendered through it.
    public var orientation: Int
    /// Upright width: `storedHeight` for 90° and 270°, else `storedWidth`.
    public var pixelWidth: Int
    /// Upright height: `storedWidth` for 90° and 270°, else `storedHeight`.
    public var pixelHeight: Int
    /// When it was recorded: `com.apple.quicktime.creationdate` (local time with its offset),
    /// else the movie header's `creation_time` (UTC). `nil` when absent or not a valid date.
    public var creationDate: Date?
    /// Where it was recorded: the ISO 6709 point of `com.apple.quicktime.location.ISO6709`,
    /// else of the `©xyz` atom (`location`). `nil` when absent or invalid.
    public var location: Location?
    /// Average frame rate of the video track, in frames per second (0 when unknown).
    public var frameRate: Double
    /// FFmpeg's name of the video codec: `"h264"`, `"hevc"`, `"prores"`, ...
    public var codec: String
    /// Whether the file has an audio track.
    public var hasAudio: Bool
    /// The Live Photo content identifier (`com.apple.quicktime.content.identifier`), which
    /// pairs this video with the still whose MakerNote carries the same identifier.
    public var contentIdentifier: String?
    /// Apple's capture mode tag (`com.apple.photos.captureMode`: "Time-lapse", "Slo-mo", ...).
    public var captureMode: String?
    /// The capture frame rate Android records for slow-motion and time-lapse videos
    /// (`com.android.capture.fps`), when present.
    public var captureFrameRate: Double?
    /// At least 100 frames per second, recorded or played (PhotoKit's `videoHighFrameRate`).
    public var isHighFrameRate: Bool
    /// Recorded as a time-lapse: the capture mode says so, or frames were captured at less
    /// than half the playback rate.
    public var isTimelapse: Bool
    /// Recorded for slow-motion playback: the capture mode says so, or frames were captured
    /// at more than 1.5 times the playback rate.
    public var isSlowMotion: Bool
    /// The `ftyp` box's major brand (`"qt"`, `"isom"`, `"mp42"`, `"M4V"`; trailing spaces
    /// removed), or `nil` when the file has no `ftyp` box (old QuickTime movies).
    public var brand: String?
    /// Size of the file in bytes.
    public var fileSize: Int
    /// Every container-level metadata tag, as FFmpeg names them (at most 256).
    public var metadata: [String: String]
}
