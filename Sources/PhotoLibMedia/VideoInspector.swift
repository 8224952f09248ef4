internal import CPhotoLibVideo
import Foundation
import PhotoLibCore
import PhotoLibImaging

/// Reads what a MOV/MP4/M4V video is without decoding it: size, rotation, duration, dates,
/// place, frame rate, codec and the Live Photo identifier.
///
/// Only the mov/mp4 demuxer of FFmpeg (libavformat) ever parses the bytes: the first bytes
/// are sniffed, and anything else is refused with `ImagingError/Code/notVideo` and a
/// message naming what the file is ("the file is a JPEG image, not a MOV/MP4 video"; HEIF
/// and AVIF images share the box layout and are refused by their `ftyp` brand). A file is
/// read piece by piece, never loaded whole.
///
/// Limits (`ImagingLimits`): `maxPixels` refuses a video track larger than that
/// (`ImagingError/Code/tooLarge`) before any decoder exists; `maxInputBytes` bounds the
/// bytes read from the file in one call (not the file's size: a 4 GB movie needs only its
/// header and one keyframe). A file whose top-level boxes or sample table reach past its
/// end is `ImagingError/Code/truncated`; `control` cancels the work at its next read.
///
/// Related FFmpeg documentation: avformat.h "Demuxing", display.h av_display_rotation_get.
public enum VideoInspector {
    /// Inspects the video file at `path`.
    ///
    /// Throws `ImagingError/Code/unreadable` when it cannot be opened,
    /// `ImagingError/Code/notVideo`, `ImagingError/Code/truncated`,
    /// `ImagingError/Code/corrupt`, `ImagingError/Code/tooLarge`,
    /// `ImagingError/Code/unsupported` (no video track), `ImagingError/Code/cancelled`.
    public static func inspect(
        path: String, limits: ImagingLimits = .default, control: RenderControl? = nil
    ) throws(ImagingError) -> VideoInfo {
        try LibVideo.withSession(.path(path), limits: limits, control: control) { session throws(ImagingError) in
            info(session)
        }
    }

    /// Inspects a video held in memory; as ``inspect(path:limits:control:)``.
    public static func inspect(
        _ data: [UInt8], limits: ImagingLimits = .default, control: RenderControl? = nil
    ) throws(ImagingError) -> VideoInfo {
        try LibVideo.withSession(.bytes(data), limits: limits, control: control) { session throws(ImagingError) in
            info(session)
        }
    }

    /// Where the poster frame is looked for: min(10 % of `duration`, 1 s) (0 for an unknown
    /// duration). The poster is the first keyframe at or after this time.
    public static func posterTargetTime(duration: Double) -> Double {
        guard duration.isFinite, duration > 0 else { return 0 }
        return min(duration * 0.1, 1)
    }

    static func info(_ session: LibVideo.Session) -> VideoInfo {
        let raw = session.info
        let tags = session.metadata()
        let container = tags.container
        let orientation = (1...8).contains(raw.orientation) ? Int(raw.orientation) : 1
        // The same transform as "mirror left-right (or not), then turn clockwise".
        let target = Orientation(exif: orientation)
        var rotation = 0
        var mirrored = false
        for quarters in 0..<4 {
            let turn = Orientation(exif: [1, 6, 3, 8][quarters])
            if turn == target { (rotation, mirrored) = (quarters * 90, false) }
            if turn.after(.mirror) == target { (rotation, mirrored) = (quarters * 90, true) }
        }
        let width = Int(raw.width)
        let height = Int(raw.height)
        let (pixelWidth, pixelHeight) = target.sides(width: width, height: height)
        let creationDate =
            container["com.apple.quicktime.creationdate"].flatMap(ISO8601Date.date)
            ?? container["creation_time"].flatMap(ISO8601Date.date)
            ?? tags.track["creation_time"].flatMap(ISO8601Date.date)
        let location =
            container["com.apple.quicktime.location.ISO6709"].flatMap(ISO6709.location)
            ?? container["location"].flatMap(ISO6709.location)
            ?? container["location-eng"].flatMap(ISO6709.location)
        let frameRate = raw.frame_rate.isFinite && raw.frame_rate > 0 ? raw.frame_rate : 0
        let captureMode = container["com.apple.photos.captureMode"]
        let captureFrameRate = container["com.android.capture.fps"]
            .flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            .flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        let mode = captureMode?.lowercased() ?? ""
        let isTimelapse =
            mode.contains("time-lapse") || mode.contains("timelapse")
            || (captureFrameRate.map { frameRate > 0 && $0 < frameRate / 2 } ?? false)
        let isSlowMotion =
            mode.contains("slo-mo") || mode.contains("slow")
            || (captureFrameRate.map { frameRate > 0 && $0 > frameRate * 1.5 } ?? false)
        let brand = withUnsafeBytes(of: raw.brand) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }.trimmingCharacters(in: .whitespaces)
        let codec = withUnsafeBytes(of: raw.codec) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        return VideoInfo(
            duration: raw.duration.isFinite && raw.duration > 0 ? raw.duration : 0,
            storedWidth: width, storedHeight: height, rotation: rotation, isMirrored: mirrored,
            orientation: orientation, pixelWidth: pixelWidth, pixelHeight: pixelHeight,
            creationDate: creationDate, location: location, frameRate: frameRate, codec: codec,
            hasAudio: raw.has_audio != 0,
            contentIdentifier: container["com.apple.quicktime.content.identifier"].flatMap { $0.isEmpty ? nil : $0 },
            captureMode: captureMode, captureFrameRate: captureFrameRate,
            isHighFrameRate: frameRate >= 100 || (captureFrameRate ?? 0) >= 100,
            isTimelapse: isTimelapse, isSlowMotion: isSlowMotion, brand: brand.isEmpty ? nil : brand,
            fileSize: Int(clamping: raw.file_size), metadata: container)
    }
}
