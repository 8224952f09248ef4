import Foundation
import PhotoLibTestSupport
import PhotoLibCore
import Testing

@testable import PhotoLibImaging

@Suite("Hostile inputs are refused with the right code, quickly, never a crash")
struct HostileInputTests {
    /// Runs inspect, validate and render on `bytes`; all three must throw `code`.
    func expectAllFail(_ bytes: [UInt8], _ codes: Set<ImagingError.Code>, limits: ImagingLimits = .default,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        let inspect = imagingError({ () throws(ImagingError) in try JPEGInspector.inspect(bytes, limits: limits) }, sourceLocation: sourceLocation)
        let validate = imagingError({ () throws(ImagingError) in try JPEGInspector.validate(bytes, limits: limits) }, sourceLocation: sourceLocation)
        let render = imagingError({ () throws(ImagingError) in
            try JPEGRenderer.render(bytes, request: RenderRequest(targetSize: PixelSize(width: 64, height: 64), contentMode: .aspectFit), limits: limits)
        }, sourceLocation: sourceLocation)
        for error in [inspect, validate, render] {
            guard let error else { continue }
            #expect(codes.contains(error.code), "\(error)", sourceLocation: sourceLocation)
            #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        }
    }

    @Test("empty input")
    func empty() {
        expectAllFail([], [.notJPEG])
        let error = imagingError { () throws(ImagingError) in try JPEGInspector.inspect([]) }
        #expect(error?.message.contains("empty") == true)
    }

    @Test("not a JPEG: PNG header, text, one byte")
    func notJPEG() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        expectAllFail(png, [.notJPEG])
        expectAllFail(Array("hello, this is not an image\n".utf8), [.notJPEG])
        expectAllFail([0xFF], [.notJPEG])
        let error = imagingError { () throws(ImagingError) in try JPEGInspector.inspect(png) }
        #expect(error?.message.contains("0x89 0x50") == true)
    }

    @Test("SOI and nothing else is truncated")
    func soiOnly() {
        expectAllFail([0xFF, 0xD8], [.truncated])
    }

    @Test("truncated at many offsets: never a success", arguments: [0, 1, 3])
    func truncated(photo: Int) throws {
        let bytes = [Photos.baseline, Photos.landscape, Photos.portrait, Photos.progressive][photo]
        let count = bytes.count
        let offsets = [3, 4, 20, 100, 300, 700, count / 10, count / 3, count / 2, count - 5000, count - 100, count - 2]
        for offset in offsets {
            let cut = Array(bytes.prefix(offset))
            let error = imagingError { () throws(ImagingError) in try JPEGInspector.validate(cut) }
            #expect(error?.code == .truncated || error?.code == .corrupt, "offset \(offset): \(String(describing: error))")
            if offset > 1000 {
                // Past the headers the cut is in entropy data: libjpeg reports the premature end.
                #expect(error?.code == .truncated, "offset \(offset): \(String(describing: error))")
                #expect(error?.message.contains("after \(offset) bytes") == true, "\(String(describing: error))")
            }
        }
        // Rendering a cut file fails too (smallest scale, so it is quick).
        let renderError = imagingError { () throws(ImagingError) in
            try JPEGRenderer.render(Array(bytes.prefix(count / 2)), request: RenderRequest(targetSize: PixelSize(width: 64, height: 64), contentMode: .aspectFit))
        }
        #expect(renderError?.code == .truncated)
    }

    /// Photo bytes with the entropy-coded data damaged in several deterministic ways.
    ///
    /// JPEG has no checksum: arbitrary garbage that happens to keep the Huffman decoder
    /// in step is undetectable by any decoder. These damages are detectable by
    /// construction: a marker inside a scan, a missing chunk (the scans run out of
    /// data), and a run of one-bits (never a valid Huffman code).
    static func damagedCopies(of bytes: [UInt8], scanStart start: Int) -> [(String, [UInt8])] {
        var copies: [(String, [UInt8])] = []
        for fraction in [5, 3, 2] {
            let at = start + (bytes.count - start) / fraction
            var marker = bytes
            marker[at] = 0xFF
            marker[at + 1] = 0xD3  // RST3 without a restart interval
            copies.append(("marker at \(at)", marker))
            var chunk = bytes
            chunk.removeSubrange(at..<(at + 4000))
            copies.append(("4000 bytes missing at \(at)", chunk))
        }
        var ones = bytes
        let at = start + (bytes.count - start) / 4
        for index in stride(from: at, to: at + 256, by: 2) {
            ones[index] = 0xFF
            ones[index + 1] = 0x00  // stuffed 0xFF: eight one-bits
        }
        copies.append(("one-bits at \(at)", ones))
        return copies
    }

    @Test("damaged entropy data is corrupt", arguments: [0, 1, 2])
    func corruptedEntropy(photo: Int) throws {
        let bytes = [Photos.baseline, Photos.landscape, Photos.progressive][photo]
        let start = try #require(Self.firstScanData(bytes))
        for (damage, damaged) in Self.damagedCopies(of: bytes, scanStart: start) {
            let error = imagingError { () throws(ImagingError) in try JPEGInspector.validate(damaged) }
            #expect(error?.code == .corrupt, "\(damage): \(String(describing: error))")
            #expect(error?.message.contains("corrupt JPEG data") == true, "\(damage)")
            // The headers are intact, so inspect alone cannot tell.
            #expect(try JPEGInspector.inspect(damaged).storedWidth > 0)
        }
    }

    @Test("random garbage in baseline entropy data is caught (fixed seed)")
    func randomGarbage() throws {
        let bytes = Photos.baseline
        let start = try #require(Self.firstScanData(bytes))
        var generator = SplitMix64(seed: 7)
        for trial in 0..<3 {
            var damaged = bytes
            let at = start + (bytes.count - start) * (trial + 1) / 5
            for index in at..<(at + 2000) {
                damaged[index] = UInt8.random(in: 0...254, using: &generator)
            }
            let error = imagingError { () throws(ImagingError) in try JPEGInspector.validate(damaged) }
            #expect(error?.code == .corrupt, "\(String(describing: error))")
        }
    }

    @Test("huge declared dimensions are refused fast, before allocating")
    func hugeDimensions() throws {
        var bytes = Photos.baseline
        let sof = try #require(Self.markerOffset(0xC0, in: bytes))
        // SOF0: FF C0, length (2), precision (1), height (2), width (2).
        bytes[sof + 5] = 0xFD; bytes[sof + 6] = 0xE8  // 65000
        bytes[sof + 7] = 0xFD; bytes[sof + 8] = 0xE8
        let clock = ContinuousClock()
        let elapsed = clock.measure { expectAllFail(bytes, [.tooLarge]) }
        #expect(elapsed < .milliseconds(500), "refusing took \(elapsed)")
        let error = imagingError { () throws(ImagingError) in try JPEGInspector.inspect(bytes) }
        #expect(error?.message.contains("65000x65000") == true, "\(String(describing: error))")
    }

    @Test("a zero dimension is corrupt")
    func zeroDimension() throws {
        var bytes = Photos.small
        let sof = try #require(Self.markerOffset(0xC0, in: bytes))
        bytes[sof + 5] = 0; bytes[sof + 6] = 0
        expectAllFail(bytes, [.corrupt])
    }

    @Test("every limit is enforced with tooLarge")
    func limits() {
        expectAllFail(Photos.portrait, [.tooLarge], limits: ImagingLimits(maxPixels: 9_000_000))
        expectAllFail(Photos.portrait, [.tooLarge], limits: ImagingLimits(maxInputBytes: 100_000))
        // Progressive decode needs the whole coefficient buffer (~30 MB here).
        let memory = imagingError { () throws(ImagingError) in
            try JPEGInspector.validate(Photos.portrait, limits: ImagingLimits(maxMemoryBytes: 4 << 20))
        }
        #expect(memory?.code == .tooLarge, "\(String(describing: memory))")
        // Scans: a progressive file has ~10; allow 3.
        let scans = imagingError { () throws(ImagingError) in
            try JPEGInspector.validate(Photos.portrait, limits: ImagingLimits(maxScans: 3))
        }
        #expect(scans?.code == .tooLarge)
        #expect(scans?.message.contains("scans") == true)
        // The work budget: the portrait (2560×3837, progressive) over a budget of two scans' work.
        let work = imagingError { () throws(ImagingError) in
            try JPEGInspector.validate(Photos.portrait, limits: ImagingLimits(maxScanPixels: 2560 * 3837 * 2))
        }
        #expect(work?.code == .tooLarge)
        #expect(work?.message.contains("decode work") == true, "\(String(describing: work))")
        // The defaults take every photo of the repository.
        #expect((try? JPEGInspector.validate(Photos.portrait)) != nil)
        // The same photo passes with the defaults.
        #expect(throws: Never.self) { try JPEGInspector.validate(Photos.portrait) }
    }

    @Test("non-positive limits are invalid arguments")
    func invalidLimits() {
        expectAllFail(Photos.small, [.invalidArgument], limits: ImagingLimits(maxPixels: 0))
        expectAllFail(Photos.small, [.invalidArgument], limits: ImagingLimits(maxScans: -1))
        expectAllFail(Photos.small, [.invalidArgument], limits: ImagingLimits(maxScanPixels: 0))
    }

    @Test("random bytes after SOI never crash")
    func fuzzAfterSOI() {
        var generator = SplitMix64(seed: 99)
        for length in [1, 2, 10, 100, 1000, 10_000] {
            for _ in 0..<10 {
                let bytes = [0xFF, 0xD8] + (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let error = imagingError { () throws(ImagingError) in try JPEGInspector.validate(bytes) }
                #expect(error.map { [.truncated, .corrupt, .unsupported, .tooLarge].contains($0.code) } == true)
            }
        }
    }

    @Test("damaged headers of a small JPEG never crash")
    func damagedHeaders() throws {
        var generator = SplitMix64(seed: 5)
        let bytes = Photos.small
        let scan = try #require(Self.firstScanData(bytes))
        for _ in 0..<300 {
            var damaged = bytes
            for _ in 0..<3 {
                damaged[Int.random(in: 2..<scan, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            // Any outcome but a crash is acceptable; success must still be a valid size.
            do {
                let info = try JPEGInspector.validate(damaged)
                #expect(info.storedWidth > 0 && info.storedHeight > 0)
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
    }

    /// Offset of the first `FF <marker>` segment before the first scan.
    static func markerOffset(_ marker: UInt8, in bytes: [UInt8]) -> Int? {
        var position = 2
        while position + 4 <= bytes.count, bytes[position] == 0xFF {
            if bytes[position + 1] == marker { return position }
            if bytes[position + 1] == 0xDA { return nil }
            position += 2 + (Int(bytes[position + 2]) << 8 | Int(bytes[position + 3]))
        }
        return nil
    }

    /// Offset of the first byte of entropy-coded data (after the first SOS segment).
    static func firstScanData(_ bytes: [UInt8]) -> Int? {
        guard let sos = markerOffset(0xDA, in: bytes) else { return nil }
        return sos + 2 + (Int(bytes[sos + 2]) << 8 | Int(bytes[sos + 3]))
    }
}
