import Foundation

/// A self-contained SVG picture of what a benchmark measured: latency percentiles (p50, p90,
/// p99, max) over time in windows, and a histogram of every latency on a logarithmic axis.
/// No script, no external font or style: it opens in any browser.
struct LatencyChart {
    /// One measured request: when it finished (seconds since the run began) and how long it took.
    struct Sample {
        var time: Double
        var milliseconds: Double
    }

    /// The chart's title (what was measured).
    var title: String
    /// A line under the title (the run's settings and totals).
    var subtitle: String
    /// Every measurement.
    var samples: [Sample]
    /// What one sample is, singular and plural ("request", "requests"; "notification", …).
    var unit: (one: String, many: String) = ("request", "requests")

    static let width = 960.0
    static let panelHeight = 300.0
    static let margin = (left: 70.0, right: 150.0, top: 95.0, gap: 80.0, bottom: 50.0)
    /// How many time windows the percentile lines have.
    static let windows = 60
    /// How many histogram bars.
    static let bins = 48

    /// The series drawn over time: name, colour, percentile (nil: the window's maximum).
    static let series: [(String, String, Double?)] = [
        ("p50", "#1f77b4", 50), ("p90", "#2ca02c", 90), ("p99", "#ff7f0e", 99), ("max", "#d62728", nil),
    ]

    /// The SVG document.
    func svg() -> String {
        let height = Self.margin.top + 2 * Self.panelHeight + Self.margin.gap + Self.margin.bottom
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(Self.width))" height="\(Int(height))" viewBox="0 0 \(Int(Self.width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(Self.margin.left)" y="28" font-size="18" font-weight="bold">\(Self.escape(title))</text>
            <text x="\(Self.margin.left)" y="48" fill="#555">\(Self.escape(subtitle))</text>

            """
        guard !samples.isEmpty else {
            return out + "<text x=\"\(Self.margin.left)\" y=\"100\">no samples</text>\n</svg>\n"
        }
        out += overTime(top: Self.margin.top)
        out += histogram(top: Self.margin.top + Self.panelHeight + Self.margin.gap)
        return out + "</svg>\n"
    }

    /// Writes ``svg()`` to `path`.
    func write(to path: String) throws {
        try Data(svg().utf8).write(to: URL(fileURLWithPath: path))
    }

    // MARK: Panels

    private var plotWidth: Double { Self.width - Self.margin.left - Self.margin.right }

    /// Percentile lines per time window.
    private func overTime(top: Double) -> String {
        let end = max(samples.map(\.time).max() ?? 0, 1e-6)
        var windows = [[Double]](repeating: [], count: Self.windows)
        for sample in samples {
            let index = min(Self.windows - 1, max(0, Int(sample.time / end * Double(Self.windows))))
            windows[index].append(sample.milliseconds)
        }
        let sorted = windows.map { $0.sorted() }
        let peak = Self.niceCeiling(sorted.compactMap(\.last).max() ?? 1)
        let x = { (time: Double) in Self.margin.left + time / end * self.plotWidth }
        let y = { (ms: Double) in top + Self.panelHeight - ms / peak * Self.panelHeight }
        var out = "<text x=\"\(Self.margin.left)\" y=\"\(top - 10)\" font-weight=\"bold\">Latency over time (\(Self.windows) windows of \(Self.duration(end / Double(Self.windows))))</text>\n"
        out += axes(top: top, yTicks: Self.ticks(upTo: peak).map { (y($0), Self.format($0) + " ms") },
                    xTicks: Self.ticks(upTo: end).map { (x($0), Self.format($0) + " s") })
        for (index, (name, colour, percentile)) in Self.series.enumerated() {
            var points: [String] = []
            for (window, values) in sorted.enumerated() where !values.isEmpty {
                let value = percentile.map { Self.percentile(values, $0) } ?? values.last!
                points.append("\(Self.format(x((Double(window) + 0.5) / Double(Self.windows) * end))),\(Self.format(y(value)))")
            }
            out += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>\n"
            let legendY = top + 16 + Double(index) * 18
            out += "<line x1=\"\(Self.width - Self.margin.right + 16)\" y1=\"\(legendY - 4)\" x2=\"\(Self.width - Self.margin.right + 40)\" y2=\"\(legendY - 4)\" stroke=\"\(colour)\" stroke-width=\"3\"/>"
            out += "<text x=\"\(Self.width - Self.margin.right + 46)\" y=\"\(legendY)\">\(name)</text>\n"
        }
        return out
    }

    /// Counts per latency bin, bins spaced logarithmically from the fastest to the slowest.
    private func histogram(top: Double) -> String {
        let values = samples.map { max($0.milliseconds, 1e-3) }
        let low = log10(values.min()!), high = max(log10(values.max()!), low + 1e-3)
        var counts = [Int](repeating: 0, count: Self.bins)
        for value in values {
            counts[min(Self.bins - 1, Int((log10(value) - low) / (high - low) * Double(Self.bins)))] += 1
        }
        let peak = Double(Self.niceCeiling(Double(counts.max() ?? 1)))
        let barWidth = plotWidth / Double(Self.bins)
        let x = { (logValue: Double) in Self.margin.left + (logValue - low) / (high - low) * self.plotWidth }
        let y = { (count: Double) in top + Self.panelHeight - count / peak * Self.panelHeight }
        var xTicks: [(Double, String)] = []
        for decade in Int(floor(low))...Int(ceil(high)) {
            for step in [1.0, 2.0, 5.0] {
                let value = step * pow(10, Double(decade))
                if log10(value) >= low && log10(value) <= high { xTicks.append((x(log10(value)), Self.format(value) + " ms")) }
            }
        }
        var out = "<text x=\"\(Self.margin.left)\" y=\"\(top - 10)\" font-weight=\"bold\">Latency histogram (\(values.count) \(values.count == 1 ? unit.one : unit.many), logarithmic)</text>\n"
        out += axes(top: top, yTicks: Self.ticks(upTo: peak, whole: true).map { (y($0), "\(Int($0))") }, xTicks: xTicks)
        for (index, count) in counts.enumerated() where count > 0 {
            let barTop = y(Double(count))
            out += "<rect x=\"\(Self.format(Self.margin.left + Double(index) * barWidth + 0.5))\" y=\"\(Self.format(barTop))\" width=\"\(Self.format(max(barWidth - 1, 0.5)))\" height=\"\(Self.format(top + Self.panelHeight - barTop))\" fill=\"#4c72b0\"><title>\(count)</title></rect>\n"
        }
        let sorted = values.sorted()
        for (index, (name, colour, percentile)) in Self.series.enumerated() {
            let value = percentile.map { Self.percentile(sorted, $0) } ?? sorted.last!
            let position = x(log10(value))
            out += "<line x1=\"\(Self.format(position))\" y1=\"\(top)\" x2=\"\(Self.format(position))\" y2=\"\(top + Self.panelHeight)\" stroke=\"\(colour)\" stroke-dasharray=\"4 3\"/>"
            out += "<text x=\"\(Self.width - Self.margin.right + 16)\" y=\"\(top + 16 + Double(index) * 18)\" fill=\"\(colour)\">\(name) \(Self.format(value)) ms</text>\n"
        }
        return out
    }

    /// The frame, grid lines and tick labels of one panel.
    private func axes(top: Double, yTicks: [(Double, String)], xTicks: [(Double, String)]) -> String {
        let left = Self.margin.left, right = Self.width - Self.margin.right, bottom = top + Self.panelHeight
        var out = "<rect x=\"\(left)\" y=\"\(top)\" width=\"\(plotWidth)\" height=\"\(Self.panelHeight)\" fill=\"none\" stroke=\"#333\"/>\n"
        for (position, label) in yTicks {
            out += "<line x1=\"\(left)\" y1=\"\(Self.format(position))\" x2=\"\(right)\" y2=\"\(Self.format(position))\" stroke=\"#ddd\"/>"
            out += "<text x=\"\(left - 6)\" y=\"\(Self.format(position + 4))\" text-anchor=\"end\">\(label)</text>\n"
        }
        for (position, label) in xTicks {
            out += "<line x1=\"\(Self.format(position))\" y1=\"\(bottom)\" x2=\"\(Self.format(position))\" y2=\"\(bottom + 5)\" stroke=\"#333\"/>"
            out += "<text x=\"\(Self.format(position))\" y=\"\(bottom + 18)\" text-anchor=\"middle\">\(label)</text>\n"
        }
        return out
    }

    // MARK: Numbers

    /// The nearest-rank percentile of sorted `values`.
    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }

    /// 1, 2 or 5 times a power of ten, at least `value`.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let power = pow(10, floor(log10(value)))
        return [1.0, 2.0, 5.0, 10.0].map { $0 * power }.first { $0 >= value } ?? 10 * power
    }

    /// Five or so round ticks from 0 to `top`.
    /// Tick values from 0 to `top` (about five); `whole`: in steps of at least 1, for counts
    /// (0.2 of a request printed as 0: a tiny run's histogram axis read 0, 0, 0, 0, 0, 1).
    static func ticks(upTo top: Double, whole: Bool = false) -> [Double] {
        let step = whole ? max(1, niceCeiling(top / 5)) : niceCeiling(top / 5)
        return stride(from: 0.0, through: top + step / 1000, by: step).map { $0 }
    }

    /// A window's length with a unit that keeps it short: "24 µs", "3.5 ms", "2 s".
    static func duration(_ seconds: Double) -> String {
        if seconds < 0.001 { return format(seconds * 1e6) + " µs" }
        if seconds < 1 { return format(seconds * 1e3) + " ms" }
        return format(seconds) + " s"
    }

    /// A short decimal: 3 significant digits, no trailing zeros.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        if value != 0 && abs(value) < 0.01 { return String(format: "%.2g", value) }
        let text = String(format: abs(value) >= 100 ? "%.0f" : abs(value) >= 10 ? "%.1f" : "%.2f", value)
        guard text.contains(".") else { return text }
        var trimmed = text
        while trimmed.hasSuffix("0") { trimmed.removeLast() }
        if trimmed.hasSuffix(".") { trimmed.removeLast() }
        return trimmed
    }

    /// `text` safe inside SVG text.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
