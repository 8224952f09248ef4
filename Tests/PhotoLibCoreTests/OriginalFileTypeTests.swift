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

    @Test("the two halves of a Live Photo share a key: folder and base name, case-folded")
    func livePhotoKey() {
        #expect(OriginalFileType.livePhotoKey("DCIM/IMG_0001.HEIC") == OriginalFileType.livePhotoKey("dcim/img_0001.mov"))
        #expect(OriginalFileType.livePhotoKey("a/IMG_0001.HEIC") != OriginalFileType.livePhotoKey("b/IMG_0001.MOV"))
        #expect(OriginalFileType.livePhotoKey("IMG_0001.JPG") == "img_0001")
    }
}
