/// The kinds of original file a library stores: what an asset's `photo` resource may be.
/// Originals are kept as they came (never transcoded); the type names their file extension,
/// their uniform type identifier, and the signature their first bytes must have.
public enum OriginalFileType: String, Sendable, Hashable, CaseIterable {
    /// JPEG (`public.jpeg`).
    case jpeg
    /// HEIC/HEIF, an ISO base media file (`public.heic`).
    case heic
    /// PNG (`public.png`).
    case png
    /// WebP (`org.webmproject.webp`).
    case webp

    /// The uniform type identifier recorded with the resource.
    public var uniformTypeIdentifier: String {
        switch self {
        case .jpeg: return "public.jpeg"
        case .heic: return "public.heic"
        case .png: return "public.png"
        case .webp: return "org.webmproject.webp"
        }
    }

    /// The extension of the file under `originals/`.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .heic: return "heic"
        case .png: return "png"
        case .webp: return "webp"
        }
    }

    /// The type whose uniform type identifier is `identifier`.
    public init?(uniformTypeIdentifier identifier: String) {
        guard let type = Self.allCases.first(where: { $0.uniformTypeIdentifier == identifier }) else { return nil }
        self = type
    }

    /// How many leading bytes ``matches(_:complete:)`` reads.
    public static let signatureLength = 12

    /// Whether `head` (the file's first bytes) starts like this type: JPEG `FF D8 FF`, PNG's
    /// eight-byte signature, `RIFF····WEBP`, or an ISO `····ftyp` box for HEIC (its brand is
    /// checked by the decoder). With `complete` false, a head shorter than the signature is
    /// checked as far as it goes.
    public func matches(_ head: [UInt8], complete: Bool = true) -> Bool {
        let pattern: [UInt8?]
        switch self {
        case .jpeg: pattern = [0xFF, 0xD8, 0xFF]
        case .png: pattern = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        case .webp: pattern = [0x52, 0x49, 0x46, 0x46, nil, nil, nil, nil, 0x57, 0x45, 0x42, 0x50]
        case .heic: pattern = [nil, nil, nil, nil, 0x66, 0x74, 0x79, 0x70]
        }
        guard !complete || head.count >= pattern.count else { return false }
        return zip(head, pattern).allSatisfy { byte, expected in expected.map { $0 == byte } ?? true }
    }
}
