import Foundation

/// A one-line progress bar on stderr, redrawn in place (only used on a terminal).
final class ProgressBar: @unchecked Sendable {
    private let label: String
    private let lock = NSLock()
    private var lastDrawn = -1

    init(label: String) {
        self.label = label
    }

    /// Redraws for `done` of `total` units (bytes).
    func update(_ done: Int, of total: Int) {
        guard total > 0 else { return }
        let percent = min(100, done * 100 / total)
        lock.withLock {
            guard percent != lastDrawn else { return }
            lastDrawn = percent
            let width = 30
            let filled = width * percent / 100
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(percent)% \(done)/\(total) bytes".utf8))
        }
    }

    /// Ends the line.
    func finish() {
        lock.withLock {
            if lastDrawn >= 0 { FileHandle.standardError.write(Data("\n".utf8)) }
        }
    }
}
