/// What the first bytes of a file say it is: one of the still formats PhotoLib reads, or
/// the name of something else (for error messages).
enum FileSignature: Hashable {
    case still(ImageFormat)
    case other(String)

    /// HEIF brands whose images are HEVC-coded (ISO/IEC 23008-12 Annex B) or generic HEIF.
    private static let heifBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx"]
    private static let genericHEIFBrands: Set<String> = ["mif1", "msf1", "miaf"]
    private static let avifBrands: Set<String> = ["avif", "avis"]
    private static let videoBrands: Set<String> = [
        "qt  ", "isom", "iso2", "iso4", "iso5", "iso6", "mp41", "mp42", "M4V ", "M4VH", "M4VP",
        "avc1", "3gp4", "3gp5", "3gp6", "3g2a", "dash", "f4v ", "mmp4", "MSNV",
    ]

    init(_ bytes: [UInt8]) {
        self = Self.classify(bytes)
    }

    private static func starts(_ bytes: [UInt8], with prefix: [UInt8], at offset: Int = 0) -> Bool {
        bytes.count >= offset + prefix.count && Array(bytes[offset..<(offset + prefix.count)]) == prefix
    }

    private static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

    private static func classify(_ bytes: [UInt8]) -> FileSignature {
        if bytes.isEmpty { return .other("empty data") }
        if starts(bytes, with: [0xFF, 0xD8, 0xFF]) { return .still(.jpeg) }
        if starts(bytes, with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .still(.png) }
        if starts(bytes, with: ascii("RIFF")) {
            if starts(bytes, with: ascii("WEBP"), at: 8) { return .still(.webp) }
            if starts(bytes, with: ascii("AVI "), at: 8) { return .other("AVI video") }
            if starts(bytes, with: ascii("WAVE"), at: 8) { return .other("WAV audio") }
            return .other("RIFF container")
        }
        if starts(bytes, with: ascii("ftyp"), at: 4) { return isoMedia(bytes) }
        for box in ["moov", "mdat", "wide", "free", "skip", "pnot"] where starts(bytes, with: ascii(box), at: 4) {
            return .other("MP4/MOV video")
        }
        if starts(bytes, with: ascii("GIF87a")) || starts(bytes, with: ascii("GIF89a")) { return .other("GIF") }
        if starts(bytes, with: [0x49, 0x49, 0x2A, 0x00]) || starts(bytes, with: [0x4D, 0x4D, 0x00, 0x2A]) {
            return .other("TIFF (or a TIFF-based camera raw)")
        }
        if starts(bytes, with: ascii("%PDF-")) { return .other("PDF") }
        if starts(bytes, with: ascii("BM")) && bytes.count >= 26 { return .other("BMP") }
        if starts(bytes, with: ascii("8BPS")) { return .other("Photoshop PSD") }
        if starts(bytes, with: [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20]) { return .other("JPEG 2000") }
        if starts(bytes, with: [0xFF, 0x0A]) || starts(bytes, with: [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) {
            return .other("JPEG XL")
        }
        if starts(bytes, with: [0x1A, 0x45, 0xDF, 0xA3]) { return .other("Matroska/WebM video") }
        if starts(bytes, with: ascii("PK")) && bytes.count >= 4 && bytes[2] == 3 && bytes[3] == 4 { return .other("ZIP archive") }
        if starts(bytes, with: ascii("<?xml")) || starts(bytes, with: ascii("<svg")) {
            // An iPhone's `.AAE` beside a photo is a property list holding an edit's adjustments.
            let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
            if head.contains("<plist") && head.contains("adjustmentFormatIdentifier") {
                return .other("an edit sidecar (.AAE: the adjustments of an edit made in Photos on an iPhone, not a photo; PhotoLib imports the photo beside it)")
            }
            return .other("XML/SVG")
        }
        return .other("unknown")
    }

    /// An ISO-BMFF file: HEIF still, AVIF, video, or something else, from the `ftyp` brands.
    private static func isoMedia(_ bytes: [UInt8]) -> FileSignature {
        let declared = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = min(bytes.count, max(16, min(declared, 4096)))
        var brands: [String] = []
        if bytes.count >= 12 {
            brands.append(String(decoding: bytes[8..<12], as: UTF8.self))
        }
        var offset = 16
        while offset + 4 <= end {
            brands.append(String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self))
            offset += 4
        }
        let major = brands.first ?? ""
        if avifBrands.contains(major) { return .other("AVIF") }
        if heifBrands.contains(major) || brands.contains(where: heifBrands.contains) { return .still(.heic) }
        if brands.contains(where: avifBrands.contains) { return .other("AVIF") }
        if genericHEIFBrands.contains(major) { return .still(.heic) }
        if major == "crx " { return .other("Canon CR3 raw") }
        if major == "M4A " || major == "M4B " { return .other("M4A audio") }
        if videoBrands.contains(major) || brands.contains(where: videoBrands.contains) { return .other("MP4/MOV video") }
        let printable = String(major.unicodeScalars.filter { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F })
        return .other("ISO media file (brand '\(printable)')")
    }
}
