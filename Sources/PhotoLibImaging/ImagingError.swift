/// An error from decoding, inspecting or rendering an image: a code to branch on and a
/// message a person can act on.
///
/// `Code` is an extensible struct rather than an enum, so new codes can be added
/// without breaking exhaustive `switch`es in callers (the shape of grpc-swift's
/// `RPCError.Code`).
public struct ImagingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public var code: Code
    /// A readable explanation, e.g. "truncated JPEG data: premature end of file after 12345 bytes".
    public var message: String

    /// Creates an error with a code and a message.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `"<code>: <message>"`.
    public var description: String {
        "\(code): \(message)"
    }
}

extension ImagingError {
    /// The kind of an ``ImagingError``.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Wrapped: String, Sendable, Hashable {
            case notJPEG, unsupportedFormat, notVideo, truncated, corrupt, tooLarge, unsupported, invalidArgument, internalError, cancelled, unreadable
        }

        private let wrapped: Wrapped

        private init(_ wrapped: Wrapped) {
            self.wrapped = wrapped
        }

        /// The bytes are not a JPEG stream (empty input, or no SOI marker).
        public static let notJPEG = Code(.notJPEG)
        /// The bytes are not in any still-image format PhotoLib reads (JPEG, HEIC/HEIF, PNG,
        /// WebP); the message names what was detected ("GIF", "MP4/MOV video", "unknown", ...).
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// The bytes are not a MOV/MP4-family video; the message names what they are
        /// ("the file is a PNG image, not a MOV/MP4 video").
        public static let notVideo = Code(.notVideo)
        /// The image data (JPEG stream, PNG chunks, WebP bitstream, HEIF boxes) ends before the
        /// image is complete, or a video file before its data does.
        public static let truncated = Code(.truncated)
        /// The image data is damaged (bad markers, bad entropy data, any libjpeg warning; a bad
        /// PNG CRC or zlib stream; a WebP or HEVC bitstream error), or a video's container or
        /// poster frame is.
        public static let corrupt = Code(.corrupt)
        /// A configured ``ImagingLimits`` value refuses the input.
        public static let tooLarge = Code(.tooLarge)
        /// A valid image this library does not handle (12-bit JPEG samples, an unknown colour
        /// space, an animated WebP, a HEIF feature libheif lacks, ...).
        public static let unsupported = Code(.unsupported)
        /// The caller passed an invalid argument (target size, quality, limits).
        public static let invalidArgument = Code(.invalidArgument)
        /// Out of memory or an unexpected library state; not the input's fault.
        public static let internalError = Code(.internalError)
        /// The work was stopped through its ``RenderControl`` (the caller cancelled it).
        public static let cancelled = Code(.cancelled)
        /// A file could not be opened or read (missing, permissions, an I/O error).
        public static let unreadable = Code(.unreadable)

        /// The code's name, e.g. `"truncated"`.
        public var description: String {
            wrapped.rawValue
        }
    }
}
