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
        for (index, identifier) in identifiers.enumerated() {
            if let uuid = Self.uuid(of: identifier) {
                withUnsafeBytes(of: uuid.uuid) { raw in
                    for offset in 0..<16 { bytes[index * 16 + offset] = raw[offset] }
                }
            } else {
                others[index] = identifier
            }
        }
        self.bytes = bytes
        self.others = others
        self.count = identifiers.count
    }

    /// The bytes this list holds (for memory budgets).
    var byteCount: Int { bytes.count + others.reduce(0) { $0 + 48 + $1.value.utf8.count } + 64 }

    /// The UUID of an identifier stored compactly, or `nil` when it must be kept as text.
    private static func uuid(of identifier: String) -> UUID? {
        let utf8 = identifier.utf8
        guard utf8.count == 36 + LocalIdentifier.assetSuffix.utf8.count, identifier.hasSuffix(LocalIdentifier.assetSuffix) else { return nil }
        let text = String(identifier.prefix(36))
        guard let uuid = UUID(uuidString: text), uuid.uuidString == text else { return nil }
        return uuid
    }

    /// The identifier at `index`.
    subscript(index: Int) -> String {
        if let other = others[index] { return other }
        let uuid = bytes.withUnsafeBytes { raw -> UUID in
            var value = UUID().uuid
            withUnsafeMutableBytes(of: &value) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[(index * 16)..<(index * 16 + 16)]))
            }
            return UUID(uuid: value)
        }
        return uuid.uuidString + LocalIdentifier.assetSuffix
    }

    /// The identifiers at `range`.
    func identifiers(in range: Range<Int>) -> [String] {
        range.map { self[$0] }
    }

    /// All identifiers, in order.
    var all: [String] { identifiers(in: 0..<count) }

    /// The first index of `identifier`, or `nil`.
    func index(of identifier: String) -> Int? {
        guard let uuid = Self.uuid(of: identifier) else {
            return others.filter { $0.value == identifier }.keys.min()
        }
        return withUnsafeBytes(of: uuid.uuid) { key -> Int? in
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
