import PhotoLibCore
/// A still-image format PhotoLib reads, recognised from the first bytes of a file.
///
/// Detection looks at magic numbers only (never the file name): JPEG's SOI marker, PNG's
/// signature, RIFF/WEBP, and an ISO-BMFF `ftyp` box with a HEIF brand (`heic`, `heix`,
/// `heim`, `heis`, `hevc`, `hevx`, or the generic `mif1`/`msf1` without an AVIF brand).
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    /// JPEG (JFIF/EXIF).
    case jpeg
    /// HEIF with HEVC-coded images: HEIC, as iPhones write it.
    case heic
    /// PNG.
    case png
    /// WebP (lossy or lossless, still).
    case webp

    /// A short human name: "JPEG", "HEIC", "PNG", "WebP".
    public var name: String {
        switch self {
        case .jpeg: "JPEG"
        case .heic: "HEIC"
        case .png: "PNG"
        case .webp: "WebP"
        }
    }

    /// The MIME type: `image/jpeg`, `image/heic`, `image/png`, `image/webp`.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .heic: "image/heic"
        case .png: "image/png"
        case .webp: "image/webp"
        }
    }

    /// The Apple uniform type identifier: `public.jpeg`, `public.heic`, `public.png`,
    /// `org.webmproject.webp`.
    public var uniformTypeIdentifier: String { fileType.uniformTypeIdentifier }

    /// The library's name for this kind of original file (extension, type identifier,
    /// signature): one home, in PhotoLibCore, for what the store records.
    public var fileType: OriginalFileType {
        switch self {
        case .jpeg: .jpeg
        case .heic: .heic
        case .png: .png
        case .webp: .webp
        }
    }

    /// The format of `bytes`, or `nil` when it is none PhotoLib reads (see
    /// ``describeContent(of:)`` for what it is instead).
    public static func detect(_ bytes: [UInt8]) -> ImageFormat? {
        switch FileSignature(bytes) {
        case .still(let format): format
        case .other: nil
        }
    }

    /// A human name for what `bytes` hold, for messages: the format's ``name`` when it is one
    /// PhotoLib reads, else e.g. "GIF", "TIFF", "PDF", "MP4/MOV video", "AVIF", "empty data",
    /// or "unknown".
    public static func describeContent(of bytes: [UInt8]) -> String {
        switch FileSignature(bytes) {
        case .still(let format): format.name
        case .other(let name): name
        }
    }

    /// The ``ImagingError/Code/unsupportedFormat`` error for `bytes`, naming what was
    /// detected: "unsupported file type: GIF (PhotoLib reads JPEG, HEIC, PNG and WebP photos)".
    public static func unsupportedError(for bytes: [UInt8]) -> ImagingError {
        let supported = "PhotoLib reads JPEG, HEIC, PNG and WebP photos"
        return ImagingError(
            code: .unsupportedFormat,
            message: "unsupported file type: \(describeContent(of: bytes)) (\(supported))")
    }
}
