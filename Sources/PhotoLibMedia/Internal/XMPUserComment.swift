import PhotoLibImaging
/// Finds `exif:UserComment` in an XMP packet (iPhone screenshots saved as PNG carry
/// "Screenshot" there rather than in an EXIF block), without an XML parser: the value is
/// either an attribute (`exif:UserComment="…"`) or the text of the first `rdf:li` inside the
/// element. Entities other than the five predefined ones are left as they are.
enum XMPUserComment {
    /// Largest packet searched.
    static let maxPacketBytes = 1 << 20

    static func find(in packet: ArraySlice<UInt8>) -> String? {
        guard packet.count <= maxPacketBytes else { return nil }
        let text = String(decoding: packet, as: UTF8.self)
        let key = "exif:UserComment"
        guard let keyRange = text.range(of: key) else { return nil }
        let rest = text[keyRange.upperBound...]
        var value: Substring?
        if rest.hasPrefix("=\"") || rest.hasPrefix("='") {
            let quote = rest[rest.index(after: rest.startIndex)]
            let start = rest.index(rest.startIndex, offsetBy: 2)
            if let end = rest[start...].firstIndex(of: quote) { value = rest[start..<end] }
        } else if let li = rest.range(of: "<rdf:li"), let open = rest[li.upperBound...].firstIndex(of: ">"),
            let close = rest[open...].range(of: "</rdf:li>")
        {
            value = rest[rest.index(after: open)..<close.lowerBound]
        }
        guard let value else { return nil }
        let decoded = value.replacing("&lt;", with: "<").replacing("&gt;", with: ">").replacing("&quot;", with: "\"")
            .replacing("&apos;", with: "'").replacing("&amp;", with: "&")
        let trimmed = decoded.trimmingSpaces()
        return trimmed.isEmpty ? nil : String(trimmed.prefix(256))
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and line breaks.
    fileprivate func trimmingSpaces() -> SubSequence {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}
