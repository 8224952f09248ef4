import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing

@testable import PhotoLibImaging
@testable import PhotoLibMedia

@Suite("Hostile still images: truncated, corrupt, oversized and unsupported files fail cleanly")
struct StillImageHostileTests {
    let request = RenderRequest(targetSize: PixelSize(width: 64, height: 64))

    @Test("the truncated fixtures fail validate and render with truncated or corrupt", arguments: Media.truncated)
    func truncatedFixtures(name: String) throws {
        let bytes = try Media.bytes(name)
        for error in [
            imagingError { () throws(ImagingError) in try StillImageRenderer.validate(bytes) },
            imagingError { () throws(ImagingError) in try StillImageRenderer.render(bytes, request: request) },
        ] {
            #expect(error?.code == .truncated || error?.code == .corrupt, "\(name): \(String(describing: error))")
            #expect(error?.message.isEmpty == false)
            // One line (libheif's own text may end in a newline), nothing blank at the end.
            let message = error?.message ?? ""
            #expect(!message.contains(where: { $0.isNewline }) && message.last?.isWhitespace != true, "\(name): \(message.debugDescription)")
        }
    }

    @Test("every prefix of every fixture: validate never succeeds, nothing crashes", arguments: Media.complete.map(\.name))
    func prefixes(name: String) throws {
        let bytes = try Media.bytes(name)
        var offsets = Set([0, 1, 2, 4, 8, 11, 12, 16, 20, 24, 30, 33, 40, 64, 100, 200, 300, 500, 1000])
        for tenth in 1...9 { offsets.insert(bytes.count * tenth / 10) }
        offsets.insert(bytes.count - 1)
        for offset in offsets.sorted() where offset < bytes.count {
            let cut = Array(bytes.prefix(offset))
            let error = imagingError { () throws(ImagingError) in try StillImageRenderer.validate(cut) }
            let allowed: Set<ImagingError.Code> = offset < 12 ? [.unsupportedFormat, .truncated, .corrupt] : [.truncated, .corrupt]
            #expect(error.map { allowed.contains($0.code) } == true, "\(name) cut at \(offset): \(String(describing: error))")
        }
    }

    @Test("damaged bytes never crash; a damaged PNG is corrupt", arguments: Media.complete.map(\.name))
    func damaged(name: String) throws {
        let original = try Media.bytes(name)
        var generator = SplitMix64(seed: UInt64(original.count))
        for round in 0..<40 {
            var bytes = original
            let start = Int(generator.next() % UInt64(bytes.count))
            for index in start..<min(bytes.count, start + 1 + round % 9) {
                bytes[index] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
            }
            do {
                _ = try StillImageRenderer.render(bytes, request: request)
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
        if name.hasSuffix(".png") {
            var bytes = original
            bytes[bytes.count / 2] ^= 0x5A  // inside IDAT: the CRC no longer matches
            let error = imagingError { () throws(ImagingError) in try StillImageRenderer.validate(bytes) }
            #expect(error?.code == .corrupt, "\(String(describing: error))")
        }
    }

    @Test("maxPixels refuses every format from its header", arguments: Media.complete.map(\.name))
    func pixelCap(name: String) throws {
        let bytes = try Media.bytes(name)
        let limits = ImagingLimits(maxPixels: 1000)
        for error in [
            imagingError { () throws(ImagingError) in try StillImageRenderer.inspect(bytes, limits: limits) },
            imagingError { () throws(ImagingError) in try StillImageRenderer.render(bytes, request: request, limits: limits) },
        ] {
            #expect(error?.code == .tooLarge, "\(name): \(String(describing: error))")
        }
    }

    @Test("a PNG header declaring 60000x60000 is refused before any pixel buffer (10 GB) exists")
    func hugePNG() {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", be32(60000) + be32(60000) + [8, 2, 0, 0, 0])
        png += chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
        png += chunk("IEND", [])
        let started = Date()
        for error in [
            imagingError { () throws(ImagingError) in try StillImageRenderer.inspect(png) },
            imagingError { () throws(ImagingError) in try StillImageRenderer.render(png, request: request) },
        ] {
            #expect(error?.code == .tooLarge, "\(String(describing: error))")
            #expect(error?.message.contains("60000x60000") == true)
        }
        #expect(Date().timeIntervalSince(started) < 1)
    }

    @Test("a WebP header declaring 16384x16384 is refused from its header")
    func hugeWebP() {
        // VP8L: signature 0x2F, then 14 bits width-1, 14 bits height-1, alpha, 3-bit version.
        let bits: UInt32 = 16383 | (16383 << 14)
        var payload: [UInt8] = [0x2F] + [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24)]
        payload += [UInt8](repeating: 0, count: 16)
        let webp = Array("RIFF".utf8) + le32(UInt32(4 + 8 + payload.count)) + Array("WEBPVP8L".utf8) + le32(UInt32(payload.count)) + payload
        let error = imagingError { () throws(ImagingError) in try StillImageRenderer.render(webp, request: request) }
        #expect(error?.code == .tooLarge, "\(String(describing: error))")
    }

    @Test("other file types are refused naming what they are", arguments: [
        ("GIF89a\u{01}\u{00}\u{01}\u{00}", "GIF"), ("II*\u{00}\u{08}\u{00}\u{00}\u{00}", "TIFF"), ("%PDF-1.7\n", "PDF"),
        ("\u{00}\u{00}\u{00}\u{18}ftypisom\u{00}\u{00}\u{02}\u{00}isomiso2", "MP4/MOV video"),
        ("\u{00}\u{00}\u{00}\u{14}ftypqt  \u{00}\u{00}\u{02}\u{00}qt  ", "MP4/MOV video"),
        ("\u{00}\u{00}\u{00}\u{1C}ftypavif\u{00}\u{00}\u{00}\u{00}avifmif1miaf", "AVIF"),
        ("hello, this is text", "unknown"), ("", "empty data"),
        ("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>", "XML/SVG"),
        // An iPhone's edit sidecar beside IMG_0001.HEIC, as Photos exports it.
        ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n<dict>\n\t<key>adjustmentBaseVersion</key>\n\t<integer>0</integer>\n\t<key>adjustmentData</key>\n\t<data>AAAA</data>\n\t<key>adjustmentFormatIdentifier</key>\n\t<string>com.apple.photo</string>\n</dict>\n</plist>\n", "an edit sidecar (.AAE"),
    ])
    func unsupported(text: String, name: String) {
        let bytes = Array(text.utf8)
        #expect(ImageFormat.detect(bytes) == nil)
        #expect(ImageFormat.describeContent(of: bytes).hasPrefix(name))
        let error = imagingError { () throws(ImagingError) in try StillImageRenderer.inspect(bytes) }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.message.contains(name) == true, "\(String(describing: error))")
        let render = imagingError { () throws(ImagingError) in try StillImageRenderer.render(bytes, request: request) }
        #expect(render?.code == .unsupportedFormat)
    }

    @Test("every fixture's format is detected from its first bytes")
    func detection() throws {
        for fixture in Media.complete {
            #expect(ImageFormat.detect(try Media.bytes(fixture.name)) == fixture.format, "\(fixture.name)")
        }
        #expect(ImageFormat.detect(try Fixtures.bytes(at: Fixtures.landscape)) == .jpeg)
    }

    private func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private func le32(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }

    /// A PNG chunk with its CRC-32.
    private func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in body {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return be32(UInt32(data.count)) + body + be32(~crc)
    }
}
