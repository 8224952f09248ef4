internal import CPhotoLibJPEG
internal import CPhotoLibVideo
import PhotoLibImaging

/// Swift face of the CPhotoLibVideo shim (FFmpeg behind C): sessions over a file or bytes,
/// and one ``call(_:)`` that turns a C status and message into a thrown `ImagingError`.
enum LibVideo {
    /// Where a video's bytes are.
    enum Source {
        /// A file, read piece by piece (never loaded whole).
        case path(String)
        /// Bytes in memory.
        case bytes([UInt8])
    }

    /// Packets read while looking for the poster keyframe (all tracks together): a phone's
    /// 4K video has a keyframe every 30–60 video packets, so this covers any real group of
    /// pictures and stops a hostile file from making the search read a whole movie.
    static let maxPacketsSearched = 4096

    /// Runs a C function that returns a status and writes a message; throws on failure.
    static func call(_ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) throws(ImagingError) {
        var message = [CChar](repeating: 0, count: Int(CPhotoLibVideo_MESSAGE_CAPACITY))
        let status = message.withUnsafeMutableBufferPointer { buffer in
            body(buffer.baseAddress!, buffer.count)
        }
        guard status != CPhotoLibVideo_OK else { return }
        let bytes = message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        var text = String(decoding: bytes, as: UTF8.self)
        if text.isEmpty { text = "video operation failed with status \(status)" }
        throw ImagingError(code: code(for: status), message: text)
    }

    /// The Swift code for a C status.
    static func code(for status: Int32) -> ImagingError.Code {
        switch status {
        case CPhotoLibVideo_NOT_VIDEO: .notVideo
        case CPhotoLibVideo_TRUNCATED: .truncated
        case CPhotoLibVideo_CORRUPT: .corrupt
        case CPhotoLibVideo_TOO_LARGE: .tooLarge
        case CPhotoLibVideo_UNSUPPORTED: .unsupported
        case CPhotoLibVideo_INVALID_ARGUMENT: .invalidArgument
        case CPhotoLibVideo_CANCELLED: .cancelled
        case CPhotoLibVideo_UNREADABLE: .unreadable
        default: .internalError
        }
    }

    /// The C limits for a session, after checking they are positive.
    static func cLimits(_ limits: ImagingLimits) throws(ImagingError) -> CPhotoLibVideo_Limits {
        guard limits.maxPixels > 0, limits.maxInputBytes > 0, limits.maxMemoryBytes > 0 else {
            throw ImagingError(code: .invalidArgument, message: "imaging limits must be positive (got \(limits))")
        }
        return CPhotoLibVideo_Limits(
            max_pixels: UInt64(limits.maxPixels), max_read_bytes: UInt64(limits.maxInputBytes),
            max_memory_bytes: UInt64(limits.maxMemoryBytes), max_packets: UInt32(maxPacketsSearched))
    }

    /// Opens `source`, runs `body` with the session, and closes it (the bytes of a
    /// `.bytes` source stay pinned for the whole session).
    static func withSession<T>(
        _ source: Source, limits: ImagingLimits, control: RenderControl?,
        _ body: (Session) throws(ImagingError) -> T
    ) throws(ImagingError) -> T {
        let cLimits = try cLimits(limits)
        switch source {
        case .path(let path):
            let session = try Session(path: path, data: nil, limits: cLimits, control: control)
            return try body(session)
        case .bytes(let data):
            // Typed throws do not pass through withUnsafeBufferPointer: carry the result out.
            let result: Result<T, ImagingError> = data.withUnsafeBufferPointer { buffer in
                do throws(ImagingError) {
                    let session = try Session(path: nil, data: buffer, limits: cLimits, control: control)
                    return .success(try body(session))
                } catch {
                    return .failure(error)
                }
            }
            return try result.get()
        }
    }

    /// One open video (`CPhotoLibVideo_Session`), closed on deinit.
    final class Session {
        private let pointer: OpaquePointer
        /// What the container says, read when the session opened.
        let info: CPhotoLibVideo_Info

        init(
            path: String?, data: UnsafeBufferPointer<UInt8>?, limits: CPhotoLibVideo_Limits, control: RenderControl?
        ) throws(ImagingError) {
            var limits = limits
            var session: OpaquePointer? = nil
            var info = CPhotoLibVideo_Info()
            try LibVideo.call { message, capacity in
                if let path {
                    CPhotoLibVideo_open(path, nil, 0, &limits, control?.pointer, &session, &info, message, capacity)
                } else {
                    CPhotoLibVideo_open(nil, data?.baseAddress, data?.count ?? 0, &limits, control?.pointer, &session, &info, message, capacity)
                }
            }
            guard let session else {
                throw ImagingError(code: .internalError, message: "the video shim returned no session")
            }
            self.pointer = session
            self.info = info
        }

        deinit {
            CPhotoLibVideo_close(pointer)
        }

        /// The container's tags, then the video track's (first value wins for a repeated key).
        func metadata() -> (container: [String: String], track: [String: String]) {
            var container: [String: String] = [:]
            var track: [String: String] = [:]
            var index: UInt32 = 0
            var key: UnsafePointer<CChar>? = nil
            var value: UnsafePointer<CChar>? = nil
            var isTrack: Int32 = 0
            while CPhotoLibVideo_metadata(pointer, index, &key, &value, &isTrack) != 0 {
                index += 1
                guard let key, let value else { continue }
                let name = String(cString: key)
                let text = String(cString: value)
                if isTrack != 0 {
                    if track[name] == nil { track[name] = text }
                } else if container[name] == nil {
                    container[name] = text
                }
            }
            return (container, track)
        }

        /// Decodes the poster keyframe at or after `target` seconds, converted to RGB at
        /// `width` × `height` (stored orientation), and its presentation time.
        func poster(target: Double, width: Int, height: Int) throws(ImagingError) -> (pixels: PixelBuffer, time: Double) {
            var image = CPhotoLibJPEG_Image()
            var time = 0.0
            try LibVideo.call { message, capacity in
                CPhotoLibVideo_poster(
                    pointer, target, UInt32(clamping: width), UInt32(clamping: height), &image, &time, message, capacity)
            }
            return (PixelBuffer(taking: image), time)
        }
    }
}

@available(*, unavailable)
extension LibVideo.Session: Sendable {}
