/// The pixel size of a JPEG, read from its SOF marker segment — a tiny, independent parser so
/// that the tests do not trust the product's own imaging code.
struct JPEGSize: Hashable, CustomStringConvertible {
    var width: Int
    var height: Int

    var description: String { "\(width)x\(height)" }

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Walks the marker segments from SOI to the first SOFn (n ≠ 4, 8, 12) and returns its
    /// size; `nil` when the bytes are not a JPEG or there is no frame header before the scan.
    init?(jpeg bytes: [UInt8]) {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var position = 2
        while position + 4 <= bytes.count {
            guard bytes[position] == 0xFF else { return nil }
            let marker = bytes[position + 1]
            if marker == 0xFF { position += 1; continue }  // fill byte
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { position += 2; continue }
            if marker == 0xD9 || marker == 0xDA { return nil }  // EOI or SOS before any SOF
            let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            guard length >= 2, position + 2 + length <= bytes.count else { return nil }
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                // SOFn: length(2) precision(1) height(2) width(2) components(1) ...
                guard length >= 7 else { return nil }
                let p = position + 4
                height = Int(bytes[p + 1]) << 8 | Int(bytes[p + 2])
                width = Int(bytes[p + 3]) << 8 | Int(bytes[p + 4])
                return
            }
            position += 2 + length
        }
        return nil
    }
}

/// Whether `bytes` begin with the JPEG SOI marker FF D8.
func startsWithSOI(_ bytes: [UInt8]) -> Bool {
    bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] == 0xD8
}

/// Test photo variants, built from the checked-in JPEGs.
enum PhotoVariants {
    /// `jpeg` with a COM segment holding `text` right after SOI: same image, different bytes.
    static func withComment(_ jpeg: [UInt8], _ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        precondition(payload.count <= 65533)
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(jpeg[2...])
    }

    /// The offset of the first byte of entropy-coded data (after the first SOS header).
    static func scanDataStart(_ jpeg: [UInt8]) -> Int? {
        var position = 2
        while position + 4 <= jpeg.count, jpeg[position] == 0xFF {
            let marker = jpeg[position + 1]
            let length = Int(jpeg[position + 2]) << 8 | Int(jpeg[position + 3])
            if marker == 0xDA { return position + 2 + length }
            position += 2 + length
        }
        return nil
    }

    /// `jpeg` with a run of stuffed 0xFF bytes (eight one-bits each: never a valid Huffman
    /// code) written into the middle of its entropy-coded data — detectably damaged.
    static func damaged(_ jpeg: [UInt8]) -> [UInt8] {
        guard let start = scanDataStart(jpeg) else { preconditionFailure("no scan in the photo") }
        var bytes = jpeg
        let at = start + (jpeg.count - start) / 4
        for index in stride(from: at, to: at + 256, by: 2) {
            bytes[index] = 0xFF
            bytes[index + 1] = 0x00
        }
        return bytes
    }
}
