/// The lines `photolibd import` prints: `added ID PATH`, `paired ID PATH` (the file completed
/// a Live Photo), `already present ID PATH`, a summary, and `refused PATH: reason` on stderr.
struct ImportOutput {
    /// path → identifier of the photos added.
    var added: [String: String] = [:]
    /// path → identifier of the photos already present.
    var alreadyPresent: [String: String] = [:]
    /// path → identifier of the files that completed a Live Photo.
    var paired: [String: String] = [:]
    /// The order of the `added` lines.
    var addedOrder: [String] = []

    init(_ result: ProcessResult) {
        for line in result.stdoutLines {
            if let (id, path) = Self.split(line, "added ") {
                added[path] = id
                addedOrder.append(id)
            } else if let (id, path) = Self.split(line, "paired ") {
                paired[path] = id
            } else if let (id, path) = Self.split(line, "already present ") {
                alreadyPresent[path] = id
            }
        }
    }

    private static func split(_ line: String, _ prefix: String) -> (String, String)? {
        guard line.hasPrefix(prefix) else { return nil }
        let rest = line.dropFirst(prefix.count)
        guard let space = rest.firstIndex(of: " ") else { return nil }
        return (String(rest[..<space]), String(rest[rest.index(after: space)...]))
    }
}
