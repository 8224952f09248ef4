import PhotoLibCore
import Testing

/// What a file is by its name and its first bytes, and what two halves of a Live Photo share.
@Suite("OriginalFileType: extensions, signatures, Live Photo keys")
struct OriginalFileTypeTests {
    @Test("a file's type by its extension, case ignored; other files are no originals")
    func byExtension() {
        #expect(OriginalFileType(path: "DCIM/IMG_0001.HEIC") == .heic)
        #expect(OriginalFileType(path: "a.JPE") == .jpeg)
        #expect(OriginalFileType(path: "clip.qt") == .quickTimeMovie)
        #expect(OriginalFileType(path: "clip.MP4")?.isVideo == true)
        #expect(OriginalFileType(path: "notes.txt") == nil)
        #expect(OriginalFileType(path: "README") == nil)
    }

    @Test("a short name for people, found from the uniform type identifier")
    func displayName() {
        #expect(OriginalFileType(uniformTypeIdentifier: "public.jpeg")?.displayName == "JPEG")
        #expect(OriginalFileType(uniformTypeIdentifier: "org.webmproject.webp")?.displayName == "WebP")
        #expect(OriginalFileType(uniformTypeIdentifier: "com.apple.quicktime-movie")?.displayName == "MOV")
        #expect(Set(OriginalFileType.allCases.map(\.displayName)).count == OriginalFileType.allCases.count, "each type its own name")
    }

    @Test("a movie's type by its box and brand; a HEIF brand is no movie")
    func movieType() {
        func head(_ box: String, _ brand: String) -> [UInt8] { [0, 0, 0, 24] + Array(box.utf8) + Array(brand.utf8) }
        #expect(OriginalFileType.movieType(of: head("ftyp", "qt  ")) == .quickTimeMovie)
        #expect(OriginalFileType.movieType(of: head("ftyp", "isom")) == .mpeg4Movie)
        #expect(OriginalFileType.movieType(of: head("ftyp", "M4V ")) == .m4vMovie)
        #expect(OriginalFileType.movieType(of: head("ftyp", "heic")) == nil)
        #expect(OriginalFileType.movieType(of: head("moov", "abcd")) == .quickTimeMovie)
        #expect(OriginalFileType.movieType(of: [0xFF, 0xD8, 0xFF, 0xE0, 0, 0, 0, 0, 0, 0, 0, 0]) == nil)
    }

    @Test("a file's type by its first bytes: movies by brand, HEIF brands as HEIC, stills by signature")
    func bySignature() {
        func head(_ box: String, _ brand: String) -> [UInt8] { [0, 0, 0, 24] + Array(box.utf8) + Array(brand.utf8) }
        #expect(OriginalFileType(signature: head("ftyp", "qt  ")) == .quickTimeMovie)
        #expect(OriginalFileType(signature: head("ftyp", "isom")) == .mpeg4Movie)
        #expect(OriginalFileType(signature: head("ftyp", "heic")) == .heic)
        #expect(OriginalFileType(signature: [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0, count: 8)) == .jpeg)
        #expect(OriginalFileType(signature: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) == .png)
        #expect(OriginalFileType(signature: Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8)) == .webp)
        #expect(OriginalFileType(signature: Array("GIF89a......".utf8)) == nil)
        #expect(OriginalFileType(signature: [0xFF, 0xD8, 0xFF]) == nil, "shorter than the signature")
    }

    @Test("the two halves of a Live Photo share a key: folder and base name, case-folded")
    func livePhotoKey() {
        #expect(OriginalFileType.livePhotoKey("DCIM/IMG_0001.HEIC") == OriginalFileType.livePhotoKey("dcim/img_0001.mov"))
        #expect(OriginalFileType.livePhotoKey("a/IMG_0001.HEIC") != OriginalFileType.livePhotoKey("b/IMG_0001.MOV"))
        #expect(OriginalFileType.livePhotoKey("IMG_0001.JPG") == "img_0001")
    }
}
