import Foundation
import PhotoLibCore

/// A list of asset local identifiers stored in 16 bytes each.
///
/// Every identifier this library makes is an upper-case UUID followed by `/L0/001`; such an
/// identifier is stored as its UUID's 16 bytes, and anything else (rare: identifiers made
/// elsewhere) as itself on the side. A 50,000-asset snapshot takes 0.8 MB instead of the
/// ~8 MB of an array of strings with a position dictionary. Lookups by identifier scan the
/// bytes (a 50,000-asset list in well under a millisecond); nothing else is indexed.
struct CompactIdentifiers: Sendable {
    /// 16 bytes per identifier, in order (zero for an identifier kept in ``others``).
    private let bytes: [UInt8]
    /// Identifiers that are not `UUID/L0/001`, by index.
    private let others: [Int: String]
    /// How many identifiers.
    let count: Int

    init(_ identifiers: [String]) {
        var bytes = [UInt8](repeating: 0, count: identifiers.count * 16)
        var others: [Int: String] = [:]
        bytes.withUnsafeMutableBufferPointer { buffer in
            for (index, identifier) in identifiers.enumerated() where !Self.pack(identifier, into: buffer.baseAddress! + index * 16) {
                others[index] = identifier
            }
        }
        self.bytes = bytes
        self.others = others
        self.count = identifiers.count
    }

    /// The bytes this list holds (for memory budgets).
    var byteCount: Int { bytes.count + others.reduce(0) { $0 + 48 + $1.value.utf8.count } + 64 }

    /// Whether a UUID's text has a dash at `position`, and the length of `UUID/L0/001`.
    private static func isDash(_ position: Int) -> Bool {
        position == 8 || position == 13 || position == 18 || position == 23
    }
    private static let suffix = Array(LocalIdentifier.assetSuffix.utf8)
    private static let length = 36 + suffix.count
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Writes the 16 bytes of `identifier` to `target` when it is an upper-case UUID followed
    /// by `/L0/001` (exactly as this library makes them), `false` otherwise.
    private static func pack(_ identifier: String, into target: UnsafeMutablePointer<UInt8>) -> Bool {
        var identifier = identifier
        return identifier.withUTF8 { utf8 -> Bool in
            guard utf8.count == length else { return false }
            for offset in 0..<suffix.count where utf8[36 + offset] != suffix[offset] { return false }
            var out = 0
            var position = 0
            while position < 36 {
                if isDash(position) {
                    guard utf8[position] == UInt8(ascii: "-") else { return false }
                    position += 1
                    continue
                }
                guard let high = nibble(utf8[position]), let low = nibble(utf8[position + 1]) else { return false }
                target[out] = high << 4 | low
                out += 1
                position += 2
            }
            return true
        }
    }

    /// The value of an upper-case hex digit.
    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return character - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The identifier at `index`.
    subscript(index: Int) -> String {
        identifier(at: index, hexDigits: Self.hexDigits, suffix: Self.suffix)
    }

    /// The identifier at `index`, given the statics (read once per list rather than once
    /// per character: each read of a static checks its lazy initialization).
    private func identifier(at index: Int, hexDigits: [UInt8], suffix: [UInt8]) -> String {
        if !others.isEmpty, let other = others[index] { return other }
        let length = 36 + suffix.count
        return String(unsafeUninitializedCapacity: length) { output in
            bytes.withUnsafeBufferPointer { raw in
                var position = 0
                for byte in raw[(index * 16)..<(index * 16 + 16)] {
                    if Self.isDash(position) {
                        output[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    output[position] = hexDigits[Int(byte >> 4)]
                    output[position + 1] = hexDigits[Int(byte & 0x0F)]
                    position += 2
                }
            }
            for (offset, character) in suffix.enumerated() { output[36 + offset] = character }
            return length
        }
    }

    /// The identifiers at `range`.
    func identifiers(in range: Range<Int>) -> [String] {
        let hexDigits = Self.hexDigits, suffix = Self.suffix
        return range.map { identifier(at: $0, hexDigits: hexDigits, suffix: suffix) }
    }

    /// All identifiers, in order.
    var all: [String] { identifiers(in: 0..<count) }

    /// The first index of `identifier`, or `nil`.
    func index(of identifier: String) -> Int? {
        var key = [UInt8](repeating: 0, count: 16)
        guard key.withUnsafeMutableBufferPointer({ Self.pack(identifier, into: $0.baseAddress!) }) else {
            return others.filter { $0.value == identifier }.keys.min()
        }
        return key.withUnsafeBytes { key -> Int? in
            bytes.withUnsafeBytes { raw -> Int? in
                var index = 0
                while index < count {
                    if memcmp(raw.baseAddress! + index * 16, key.baseAddress!, 16) == 0, others.isEmpty || others[index] == nil { return index }
                    index += 1
                }
                return nil
            }
        }
    }
}
