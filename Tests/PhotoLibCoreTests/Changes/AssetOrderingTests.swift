import Foundation
import PhotoLibCore
import Testing

private func asset(_ id: String, created: Double = 0, width: Int = 100, favorite: Bool = false, type: MediaType = .image) -> Asset {
    Asset(localIdentifier: id, mediaType: type, pixelWidth: width, pixelHeight: 100,
          creationDate: Date(timeIntervalSince1970: created), modificationDate: Date(timeIntervalSince1970: 0), isFavorite: favorite)
}

@Suite("AssetOrdering: the store's ORDER BY in memory")
struct AssetOrderingTests {
    @Test("matches a plain reference on random assets and descriptors")
    func matchesReference() {
        for seed in changeSeeds(base: 0x0D0, count: 300) {
            var random = ChangesRandom(seed: seed)
            let assets = (0..<random.int(0..<40)).map { random.asset(random.identifier($0)) }
            let descriptors = random.sortDescriptors()
            let ordering = AssetOrdering(descriptors)
            let expected = referenceSorted(assets, descriptors).map(\.localIdentifier)
            #expect(assets.sorted(by: ordering.areInIncreasingOrder).map(\.localIdentifier) == expected, "CHANGES_SEED=\(seed) \(descriptors)")
            for a in assets.prefix(8) {
                for b in assets.prefix(8) {
                    let result = ordering.compare(a, b)
                    let ai = expected.firstIndex(of: a.localIdentifier)!, bi = expected.firstIndex(of: b.localIdentifier)!
                    #expect(result == (ai < bi ? .orderedAscending : (ai > bi ? .orderedDescending : .orderedSame)))
                }
            }
        }
    }

    @Test("default order, tie-break direction and early stop at localIdentifier")
    func handMade() {
        let a = asset("A", created: 10, width: 5), b = asset("B", created: 10, width: 5), c = asset("C", created: 5, width: 9)
        func order(_ descriptors: [AssetSortDescriptor]) -> [String] {
            [b, c, a].sorted(by: AssetOrdering(descriptors).areInIncreasingOrder).map(\.localIdentifier)
        }
        #expect(order([]) == ["C", "A", "B"])
        #expect(order([AssetSortDescriptor(key: .creationDate, ascending: false)]) == ["B", "A", "C"])
        // The identifier follows the LAST descriptor's direction, not the first's.
        #expect(order([AssetSortDescriptor(key: .creationDate, ascending: false), AssetSortDescriptor(key: .pixelWidth)]) == ["A", "B", "C"])
        #expect(order([AssetSortDescriptor(key: .localIdentifier, ascending: false), AssetSortDescriptor(key: .creationDate)]) == ["C", "B", "A"])
        #expect(AssetOrdering([AssetSortDescriptor(key: .localIdentifier), AssetSortDescriptor(key: .pixelWidth)]).terms.count == 1)
        #expect(AssetOrdering([]).terms == [AssetSortDescriptor(key: .creationDate), AssetSortDescriptor(key: .localIdentifier)])
    }

    @Test("booleans false first, media type by raw value, dates by stored microsecond")
    func valueRules() {
        let favorite = AssetOrdering([AssetSortDescriptor(key: .isFavorite)])
        #expect(favorite.areInIncreasingOrder(asset("Z", favorite: false), asset("A", favorite: true)))
        let type = AssetOrdering([AssetSortDescriptor(key: .mediaType)])
        #expect(type.areInIncreasingOrder(asset("Z", type: .image), asset("A", type: .video)))
        #expect(type.areInIncreasingOrder(asset("Z", type: .unknown), asset("A", type: .image)))
        // 0.1 µs apart: the same stored value, so the identifier decides.
        let dates = AssetOrdering()
        #expect(dates.areInIncreasingOrder(asset("A", created: 1_700_000_000.000_000_1), asset("B", created: 1_700_000_000)))
        #expect(dates.areInIncreasingOrder(asset("B", created: 1_700_000_000), asset("A", created: 1_700_000_000.000_001)))
    }

    @Test("identifiers compare by UTF-8 bytes, not Swift string equivalence")
    func identifierBytes() {
        let ordering = AssetOrdering([AssetSortDescriptor(key: .localIdentifier)])
        let decomposed = asset("e\u{301}"), precomposed = asset("\u{E9}")
        #expect("e\u{301}" == "\u{E9}")  // Swift says equal…
        #expect(ordering.compare(decomposed, precomposed) == .orderedAscending)  // …bytes 65 < C3.
        #expect(ordering.compare(asset("Z"), asset("a")) == .orderedAscending)
        #expect(ordering.compare(asset("ab"), asset("abc")) == .orderedAscending)
        #expect(ordering.compare(asset("ab"), asset("ab")) == .orderedSame)
    }
}
