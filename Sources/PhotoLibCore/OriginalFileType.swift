import Foundation

/// The kinds of original file a library stores: what an asset's `photo`, `video` or
/// `pairedVideo` resource may be. Originals are kept as they came (never transcoded); the
/// type names their file extension, their uniform type identifier, and the signature their
/// first bytes must have.
public enum OriginalFileType: String, Sendable, Hashable, CaseIterable {
    /// JPEG (`public.jpeg`).
    case jpeg
    /// HEIC/HEIF, an ISO base media file (`public.heic`).
    case heic
    /// PNG (`public.png`).
    case png
    /// WebP (`org.webmproject.webp`).
    case webp
    /// A QuickTime movie, `.mov` (`com.apple.quicktime-movie`): iPhone videos and the video
    /// half of a Live Photo.
    case quickTimeMovie = "mov"
    /// An MPEG-4 movie, `.mp4` (`public.mpeg-4`).
    case mpeg4Movie = "mp4"
    /// An iTunes MPEG-4 video, `.m4v` (`com.apple.m4v-video`).
    case m4vMovie = "m4v"

    /// The uniform type identifier recorded with the resource.
    public var uniformTypeIdentifier: String {
        switch self {
        case .jpeg: return "public.jpeg"
        case .heic: return "public.heic"
        case .png: return "public.png"
        case .webp: return "org.webmproject.webp"
        case .quickTimeMovie: return "com.apple.quicktime-movie"
        case .mpeg4Movie: return "public.mpeg-4"
        case .m4vMovie: return "com.apple.m4v-video"
        }
    }

    /// A short name for people: `JPEG`, `HEIC`, `PNG`, `WebP`, `MOV`, `MP4`, `M4V`.
    public var displayName: String {
        switch self {
        case .jpeg: return "JPEG"
        case .heic: return "HEIC"
        case .png: return "PNG"
        case .webp: return "WebP"
        case .quickTimeMovie: return "MOV"
        case .mpeg4Movie: return "MP4"
        case .m4vMovie: return "M4V"
        }
    }

    /// The extension of the file under `originals/`.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .heic: return "heic"
        case .png: return "png"
        case .webp: return "webp"
        case .quickTimeMovie: return "mov"
        case .mpeg4Movie: return "mp4"
        case .m4vMovie: return "m4v"
        }
    }

    /// Whether files of this type are videos (their asset's media type is `video`, or they
    /// are a Live Photo's paired video).
    public var isVideo: Bool {
        switch self {
        case .quickTimeMovie, .mpeg4Movie, .m4vMovie: return true
        case .jpeg, .heic, .png, .webp: return false
        }
    }

    /// The file name extensions (lower-case) a file of this type has on a disk or a phone:
    /// what importers and uploaders pick from a folder.
    public var fileExtensions: Set<String> {
        switch self {
        case .jpeg: return ["jpg", "jpeg", "jpe"]
        case .heic: return ["heic", "heif"]
        case .png: return ["png"]
        case .webp: return ["webp"]
        case .quickTimeMovie: return ["mov", "qt"]
        case .mpeg4Movie: return ["mp4"]
        case .m4vMovie: return ["m4v"]
        }
    }

    /// The type a file named `path` has by its extension (case ignored), if it is an original.
    public init?(path: String) {
        let fileExtension = (path as NSString).pathExtension.lowercased()
        guard let type = Self.allCases.first(where: { $0.fileExtensions.contains(fileExtension) }) else { return nil }
        self = type
    }

    /// What the two files of a Live Photo share when their content identifiers are missing:
    /// the path (or file name) without its extension, case-folded — `DCIM/IMG_0001.HEIC` and
    /// `DCIM/IMG_0001.MOV` share `dcim/img_0001`.
    public static func livePhotoKey(_ path: String) -> String {
        (path as NSString).deletingPathExtension.lowercased()
    }

    /// The type whose uniform type identifier is `identifier`.
    public init?(uniformTypeIdentifier identifier: String) {
        guard let type = Self.allCases.first(where: { $0.uniformTypeIdentifier == identifier }) else { return nil }
        self = type
    }

    /// The type `head` (a file's first bytes, at least ``signatureLength`` of them) starts
    /// like, if any: a movie by its box and brand (``movieType(of:)``), an ISO file of a
    /// HEIF brand as HEIC, otherwise JPEG, PNG or WebP by their signatures.
    public init?(signature head: [UInt8]) {
        guard head.count >= Self.signatureLength else { return nil }
        if let movie = Self.movieType(of: head) {
            self = movie
        } else if let type = ([.jpeg, .png, .webp, .heic] as [Self]).first(where: { $0.matches(head) }) {
            self = type
        } else {
            return nil
        }
    }

    /// How many leading bytes ``matches(_:complete:)`` reads.
    public static let signatureLength = 12

    /// Whether `head` (the file's first bytes) starts like this type: JPEG `FF D8 FF`, PNG's
    /// eight-byte signature, `RIFF····WEBP`, or an ISO `····ftyp` box for HEIC (its brand is
    /// checked by the decoder). A movie starts with an ISO/QuickTime box: `ftyp`, or for
    /// older QuickTime files `moov`, `mdat`, `wide`, `free` or `skip`; ``movieType(of:)``
    /// tells the three movie types apart by brand. With `complete` false, a head shorter
    /// than the signature is checked as far as it goes.
    public func matches(_ head: [UInt8], complete: Bool = true) -> Bool {
        let patterns: [[UInt8?]]
        switch self {
        case .jpeg: patterns = [[0xFF, 0xD8, 0xFF]]
        case .png: patterns = [[0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]]
        case .webp: patterns = [[0x52, 0x49, 0x46, 0x46, nil, nil, nil, nil, 0x57, 0x45, 0x42, 0x50]]
        case .heic, .mpeg4Movie, .m4vMovie: patterns = [Self.box("ftyp")]
        case .quickTimeMovie: patterns = ["ftyp", "moov", "mdat", "wide", "free", "skip"].map(Self.box)
        }
        return patterns.contains { pattern in
            guard !complete || head.count >= pattern.count else { return false }
            return zip(head, pattern).allSatisfy { byte, expected in expected.map { $0 == byte } ?? true }
        }
    }

    /// The movie type `head` (at least 12 bytes) names, or `nil` when it does not start like
    /// a movie: an `ftyp` box's major brand `qt  ` is QuickTime, `M4V ` iTunes video, a HEIF
    /// brand (`heic`, `mif1`…) no movie at all, any other brand MPEG-4; a file starting with
    /// a bare `moov`, `mdat`, `wide`, `free` or `skip` box is an old QuickTime movie.
    public static func movieType(of head: [UInt8]) -> OriginalFileType? {
        guard head.count >= signatureLength, Self.quickTimeMovie.matches(head) else { return nil }
        let box = String(decoding: head[4..<8], as: UTF8.self)
        guard box == "ftyp" else { return .quickTimeMovie }
        let brand = String(decoding: head[8..<12], as: UTF8.self)
        switch brand {
        case "qt  ": return .quickTimeMovie
        case "M4V ", "M4VH", "M4VP": return .m4vMovie
        case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif", "avis", "mif2": return nil
        default: return .mpeg4Movie
        }
    }

    /// `····` followed by a four-letter box type.
    private static func box(_ type: String) -> [UInt8?] {
        [nil, nil, nil, nil] + Array(type.utf8).map { Optional($0) }
    }
}
