import Foundation
import PhotoLibCore
import PhotoLibTestSupport

/// The property tests' generator (SplitMix64, so that every random case can be replayed
/// from its seed), with the draws they use.
typealias ChangesRandom = SplitMix64

extension SplitMix64 {
    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func chance(_ numerator: Int, in denominator: Int) -> Bool { int(0..<denominator) < numerator }
    mutating func pick<T>(_ values: [T]) -> T { values[int(0..<values.count)] }
}

/// The seeds a property test runs: `CHANGES_SEED` alone when set (to replay a failure),
/// otherwise `count` seeds derived from `base`.
func changeSeeds(base: UInt64, count: Int) -> [UInt64] {
    if let text = ProcessInfo.processInfo.environment["CHANGES_SEED"], let seed = UInt64(text) { return [seed] }
    return (0..<UInt64(count)).map { base &+ $0 &* 0x1_0000_0001 }
}

/// Small value pools, so that sorts hit ties.
enum ChangesPool {
    /// Seconds since 1970, with pairs that round to the same stored microsecond
    /// (1_700_000_000.000_000_1 vs …000) and pairs one microsecond apart.
    static let dates: [Double] = [
        1_700_000_000, 1_700_000_000.000_000_1, 1_700_000_000.000_001, 1_600_000_000.5,
        -86_400, 0, 1_700_000_100,
    ]
    static let widths = [0, 640, 1920, 4032]
    static let heights = [480, 1080, 3024]
    static let durations: [Double] = [0, 1.5, 2, 12.25]
    /// Identifier stems: upper- and lower-case hex and a non-ASCII pair that Swift's
    /// `String` thinks equal but bytes do not.
    static let stems = ["0", "1", "9", "A", "F", "a", "f", "e\u{301}", "\u{E9}", "Z"]
}

extension ChangesRandom {
    /// A fresh identifier with a random prefix (so identifier order is not creation order),
    /// unique through `serial`.
    mutating func identifier(_ serial: Int) -> String {
        pick(ChangesPool.stems) + pick(ChangesPool.stems) + String(serial, radix: 16) + "/L0/001"
    }

    /// A random asset called `identifier`.
    mutating func asset(_ identifier: String) -> Asset {
        Asset(
            localIdentifier: identifier, mediaType: pick(MediaType.allCases),
            pixelWidth: pick(ChangesPool.widths), pixelHeight: pick(ChangesPool.heights),
            creationDate: Date(timeIntervalSince1970: pick(ChangesPool.dates)),
            modificationDate: Date(timeIntervalSince1970: pick(ChangesPool.dates)),
            isFavorite: chance(1, in: 3), isHidden: chance(1, in: 4), duration: pick(ChangesPool.durations))
    }

    /// 0 to 3 random sort descriptors.
    mutating func sortDescriptors() -> [AssetSortDescriptor] {
        (0..<int(0..<4)).map { _ in AssetSortDescriptor(key: pick(AssetSortKey.allCases), ascending: chance(1, in: 2)) }
    }
}

/// The store's order written plainly, independently of ``AssetOrdering``: the descriptors
/// (default creation date ascending) then the identifier bytes in the last direction.
func referenceSorted(_ assets: [Asset], _ descriptors: [AssetSortDescriptor]) -> [Asset] {
    func micros(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) }
    func cmp<T: Comparable>(_ x: T, _ y: T) -> Int { x == y ? 0 : (x < y ? -1 : 1) }
    func order(_ a: (Asset, [UInt8]), _ b: (Asset, [UInt8]), _ key: AssetSortKey) -> Int {
        switch key {
        case .creationDate: return cmp(micros(a.0.creationDate), micros(b.0.creationDate))
        case .modificationDate: return cmp(micros(a.0.modificationDate), micros(b.0.modificationDate))
        case .pixelWidth: return cmp(a.0.pixelWidth, b.0.pixelWidth)
        case .pixelHeight: return cmp(a.0.pixelHeight, b.0.pixelHeight)
        case .duration: return cmp(a.0.duration, b.0.duration)
        case .isFavorite: return cmp(a.0.isFavorite ? 1 : 0, b.0.isFavorite ? 1 : 0)
        case .isHidden: return cmp(a.0.isHidden ? 1 : 0, b.0.isHidden ? 1 : 0)
        case .mediaType: return cmp(a.0.mediaType.rawValue, b.0.mediaType.rawValue)
        case .localIdentifier: return a.1 == b.1 ? 0 : (a.1.lexicographicallyPrecedes(b.1) ? -1 : 1)
        }
    }
    let terms = (descriptors.isEmpty ? [AssetSortDescriptor(key: .creationDate)] : descriptors)
        + [AssetSortDescriptor(key: .localIdentifier, ascending: descriptors.last?.ascending ?? true)]
    return assets.map { ($0, Array($0.localIdentifier.utf8)) }.sorted { a, b in
        for term in terms {
            let result = order(a, b, term.key)
            if result != 0 { return term.ascending ? result < 0 : result > 0 }
        }
        return false
    }.map(\.0)
}
