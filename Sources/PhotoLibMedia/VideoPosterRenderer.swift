import PhotoLibCore
import PhotoLibImaging

/// Renders a video's poster frame as an upright JPEG at a requested size.
///
/// The poster is the first keyframe at or after
/// ``VideoInspector/posterTargetTime(duration:)`` (min(10 % of the duration, 1 s)); when
/// the track has none there (within a bounded number of packets), its first keyframe. Only
/// that one packet is decoded (FFmpeg's libavcodec, one thread, every non-key frame
/// skipped), converted to RGB by libswscale straight at the smallest size N/8 of the stored
/// frame that still covers the output (area-averaged), then finished by the JPEG
/// pipeline: crop, Lanczos-3 resample, the track's rotation as an EXIF orientation, and a
/// baseline encode.
///
/// `RenderRequest` means exactly what it means for `JPEGRenderer` (target size, fit or
/// fill, resize mode, a crop in upright unit coordinates, quality); see
/// `JPEGRenderer/render(_:request:limits:control:)`.
///
/// Hostile input: the rules of ``VideoInspector`` apply, the decoder refuses frames over
/// `limits.maxPixels`, the RGB frame is bounded by `limits.maxMemoryBytes`, and a damaged
/// keyframe fails with `ImagingError/Code/corrupt` instead of a grey picture.
///
/// Related FFmpeg documentation: avformat.h av_seek_frame, avcodec.h avcodec_send_packet,
/// AVCodecContext.skip_frame, swscale.h sws_scale.
public enum VideoPosterRenderer {
    /// Renders the poster frame of the video file at `path`.
    ///
    /// Throws the errors of ``VideoInspector/inspect(path:limits:control:)``,
    /// `ImagingError/Code/invalidArgument` for a bad request, `ImagingError/Code/corrupt`
    /// for a keyframe that does not decode, `ImagingError/Code/unsupported` for a codec
    /// outside H.264, HEVC, MPEG-4, ProRes, Motion JPEG, AV1, VP9, H.263 and MPEG-2.
    public static func render(
        path: String, request: RenderRequest, limits: ImagingLimits = .default, control: RenderControl? = nil
    ) throws(ImagingError) -> RenderedImage {
        try renderPoster(.path(path), request: request, limits: limits, control: control).image
    }

    /// Renders the poster frame of a video held in memory; as
    /// ``render(path:request:limits:control:)``.
    public static func render(
        _ data: [UInt8], request: RenderRequest, limits: ImagingLimits = .default, control: RenderControl? = nil
    ) throws(ImagingError) -> RenderedImage {
        try renderPoster(.bytes(data), request: request, limits: limits, control: control).image
    }

    /// Checks a video the way an import does, in one pass over the file: inspects it and
    /// decodes its poster frame (at `request`'s size, small by default); returns what the
    /// inspection found. Throws what ``VideoInspector/inspect(path:limits:control:)`` and
    /// ``render(path:request:limits:control:)`` throw.
    public static func validate(
        path: String, request: RenderRequest = validationRequest, limits: ImagingLimits = .default, control: RenderControl? = nil
    ) throws(ImagingError) -> VideoInfo {
        try renderPoster(.path(path), request: request, limits: limits, control: control).info
    }

    /// ``validate(path:request:limits:control:)`` for a video held in memory.
    public static func validate(
        _ data: [UInt8], request: RenderRequest = validationRequest, limits: ImagingLimits = .default, control: RenderControl? = nil
    ) throws(ImagingError) -> VideoInfo {
        try renderPoster(.bytes(data), request: request, limits: limits, control: control).info
    }

    /// The poster ``validate(path:request:limits:control:)`` decodes by default: 64 px, enough
    /// to prove a keyframe decodes.
    public static let validationRequest = RenderRequest(targetSize: PixelSize(width: 64, height: 64))

    /// The rendered poster, the presentation time of the frame it shows (seconds), and the
    /// video's inspection, from one session.
    static func renderPoster(
        _ source: LibVideo.Source, request: RenderRequest, limits: ImagingLimits, control: RenderControl?
    ) throws(ImagingError) -> (image: RenderedImage, time: Double, info: VideoInfo) {
        try JPEGRenderer.checkRequest(request)
        return try LibVideo.withSession(source, limits: limits, control: control) { session throws(ImagingError) in
            let info = VideoInspector.info(session)
            // Frames convert at N/8 of the stored size, like a DCT-scaled JPEG decode.
            let plan = try JPEGRenderer.plan(
                request: request, storedWidth: info.storedWidth, storedHeight: info.storedHeight, orientation: info.orientation, isProgressive: false
            ) { storedCrop, width, height in
                JPEGRenderer.coveringScale(storedCrop, storedWidth: info.storedWidth, storedHeight: info.storedHeight, outputWidth: width, outputHeight: height)
            }
            try control?.check()
            let width = LibJPEG.scaledDimension(info.storedWidth, scale: plan.dctScale)
            let height = LibJPEG.scaledDimension(info.storedHeight, scale: plan.dctScale)
            let poster = try session.poster(
                target: VideoInspector.posterTargetTime(duration: info.duration), width: width, height: height)
            var pixels = poster.pixels
            if request.crop != nil {
                let rect = JPEGRenderer.scaledCrop(
                    plan.storedCrop, storedWidth: info.storedWidth, storedHeight: info.storedHeight, scale: plan.dctScale)
                if rect.width != width || rect.height != height {
                    pixels = try LibJPEG.crop(pixels, rect)
                }
            }
            let image = try JPEGRenderer.finish(
                pixels, plan: plan, request: request, quality: request.quality, limits: limits, control: control)
            return (image, poster.time, info)
        }
    }
}
