/// Removes the library's path on the server from messages meant for clients: each spelling
/// of it (as given, absolute, with symlinks resolved) becomes "<library>" where it stands as
/// a path — not inside a word. A library opened as `lib` must not turn "this library's
/// token" into "this <library>rary's token", nor "libjpeg" into "<library>jpeg".
struct ServerPathScrubber: Sendable {
    /// The spellings, longest first (an absolute path is replaced before a relative one it
    /// contains).
    let paths: [String]

    /// Scrubs the spellings of `paths` (empty and "/" are ignored).
    init(paths: [String]) {
        self.paths = Set(paths).filter { $0.count > 1 }.sorted { $0.count > $1.count }
    }

    /// Whether `message` names the library's path anywhere (a quick test before scrubbing).
    func mayName(in message: String) -> Bool {
        paths.contains { message.contains($0) }
    }

    /// `message` with each spelling of the path that stands as a path replaced by "<library>".
    func scrubbed(_ message: String) -> String {
        var text = Array(message.unicodeScalars)
        for path in paths {
            let needle = Array(path.unicodeScalars)
            var result: [Unicode.Scalar] = []
            result.reserveCapacity(text.count)
            var index = 0
            while index < text.count {
                if index + needle.count <= text.count, text[index..<(index + needle.count)].elementsEqual(needle),
                   Self.startsPath(before: index, in: text), Self.endsPath(after: index + needle.count, in: text) {
                    result.append(contentsOf: "<library>".unicodeScalars)
                    index += needle.count
                } else {
                    result.append(text[index])
                    index += 1
                }
            }
            text = result
        }
        var scrubbed = ""
        scrubbed.unicodeScalars.append(contentsOf: text)
        return scrubbed
    }

    /// A path can start at `index`: at the start, or after a character that cannot be part
    /// of the same file name or path (not a letter, digit, `_`, `-`, `.`, `/`, `~` or `<`).
    private static func startsPath(before index: Int, in text: [Unicode.Scalar]) -> Bool {
        guard index > 0 else { return true }
        let previous = text[index - 1]
        return !(isNameCharacter(previous) || previous == "/" || previous == "~" || previous == "<")
    }

    /// A path can end before `index`: at the end, at a `/` (a file inside it follows), or
    /// before a character that cannot continue the name (a `.` only when no name
    /// character follows it: the end of a sentence, not `lib.db`).
    private static func endsPath(after index: Int, in text: [Unicode.Scalar]) -> Bool {
        guard index < text.count else { return true }
        let next = text[index]
        if next == "." { return index + 1 == text.count || !isNameCharacter(text[index + 1]) }
        return !isNameCharacter(next)
    }

    private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-"
    }
}
