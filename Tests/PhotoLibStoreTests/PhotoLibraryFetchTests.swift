import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

@Suite("Fetching, sorting and counting assets")
struct PhotoLibraryFetchTests {
    /// Twelve assets with many ties, so that every key needs the identifier tie-break.
    static func fixture() -> [SyntheticAsset] {
        (0..<12).map { (index: Int) -> SyntheticAsset in
            let identifier = String(format: "%08X-0000-0000-0000-000000000000", (index * 7) % 12) + LocalIdentifier.assetSuffix
            let created = Date(timeIntervalSince1970: 1_000_000 + Double(index / 2) * 60)
            let modified = Date(timeIntervalSince1970: 2_000_000 - Double(index % 5))
            let isVideo = index % 4 == 0
            return SyntheticAsset(
                identifier: identifier, mediaType: isVideo ? .video : .image,
                pixelWidth: 1000 + (index % 3) * 100, pixelHeight: 800 + (index % 2) * 100,
                creationDate: created, modificationDate: modified,
                isFavorite: index % 3 == 0, duration: isVideo ? Double(index) : 0)
        }
    }

    /// The expected order: PhotoLib's rule, computed in Swift.
    static func expectedOrder(_ assets: [SyntheticAsset], by descriptors: [AssetSortDescriptor]) -> [String] {
        func compare(_ a: SyntheticAsset, _ b: SyntheticAsset, _ key: AssetSortKey) -> Int {
            func sign<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x > y ? 1 : 0) }
            switch key {
            case .creationDate: return sign(a.creationDate, b.creationDate)
            case .modificationDate: return sign(a.modificationDate!, b.modificationDate!)
            case .pixelWidth: return sign(a.pixelWidth, b.pixelWidth)
            case .pixelHeight: return sign(a.pixelHeight, b.pixelHeight)
            case .duration: return sign(a.duration, b.duration)
            case .isFavorite: return sign(a.isFavorite ? 1 : 0, b.isFavorite ? 1 : 0)
            case .isHidden: return sign(a.isHidden ? 1 : 0, b.isHidden ? 1 : 0)
            case .mediaType: return sign(a.mediaType.rawValue, b.mediaType.rawValue)
            case .localIdentifier: return sign(a.identifier, b.identifier)
            }
        }
        let terms = descriptors + [AssetSortDescriptor(key: .localIdentifier, ascending: descriptors.last?.ascending ?? true)]
        return assets.sorted { a, b in
            for term in terms {
                let order = compare(a, b, term.key)
                if order != 0 { return term.ascending ? order < 0 : order > 0 }
            }
            return false
        }.map(\.identifier)
    }

    @Test("every sort key, ascending and descending, breaks ties by identifier", arguments: AssetSortKey.allCases)
    func sortByEachKey(_ key: AssetSortKey) throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let assets = Self.fixture()
        try library.insertSyntheticAssets(assets)
        for ascending in [true, false] {
            let descriptors = [AssetSortDescriptor(key: key, ascending: ascending)]
            let fetched = try library.fetchAssetIdentifiers(AssetQuery(sortDescriptors: descriptors))
            #expect(fetched == Self.expectedOrder(assets, by: descriptors), "\(key) ascending: \(ascending)")
        }
        // Two keys in opposite directions.
        let mixed = [AssetSortDescriptor(key: key, ascending: false), AssetSortDescriptor(key: .creationDate)]
        #expect(try library.fetchAssetIdentifiers(AssetQuery(sortDescriptors: mixed)) == Self.expectedOrder(assets, by: mixed))
    }

    @Test("the default order is creation date then identifier; fetchLimit takes a prefix")
    func defaultOrderAndLimit() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let assets = Self.fixture()
        try library.insertSyntheticAssets(assets)
        let all = try library.fetchAssetIdentifiers(AssetQuery())
        #expect(all == Self.expectedOrder(assets, by: [AssetSortDescriptor(key: .creationDate)]))
        #expect(try library.fetchAssetIdentifiers(AssetQuery(fetchLimit: 5)) == Array(all.prefix(5)))
        #expect(try library.countAssets(AssetQuery(fetchLimit: 5)) == 5)
        #expect(try library.countAssets(AssetQuery(fetchLimit: 50)) == 12)
        #expect(try library.countAssets(AssetQuery()) == 12)
        let negative = thrownError { () throws(PhotoLibError) in _ = try library.countAssets(AssetQuery(fetchLimit: -1)) }
        #expect(negative?.code == .invalidArgument)

        // Media type and identifier filters keep the order.
        let videos = try library.fetchAssetIdentifiers(AssetQuery(mediaType: .video))
        #expect(videos == all.filter { id in assets.first { $0.identifier == id }!.mediaType == .video })
        #expect(videos.count == 3)
        let chosen = [all[7], all[2], LocalIdentifier.newAsset(), all[4]]
        #expect(try library.fetchAssetIdentifiers(AssetQuery(identifiers: chosen)) == [all[2], all[4], all[7]])
        // By identifiers: in the order given, unknown skipped, each once.
        #expect(try library.assets(withIdentifiers: chosen + [all[7]]).map(\.localIdentifier) == [all[7], all[2], all[4]])
    }

    @Test("hidden assets are excluded unless asked for; the Hidden album shows only them")
    func hiddenAssets() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let assets = Self.fixture()
        try library.insertSyntheticAssets(assets)
        let all = try library.fetchAssetIdentifiers(AssetQuery())
        let hidden = [all[0], all[5], all[11]]
        try library.setHidden(true, forAssets: hidden)

        let visible = try library.fetchAssetIdentifiers(AssetQuery())
        #expect(visible == all.filter { !hidden.contains($0) })
        #expect(try library.fetchAssetIdentifiers(AssetQuery(includeHiddenAssets: true)) == all)
        #expect(try library.countAssets(AssetQuery(includeHiddenAssets: true)) == 12)
        let hiddenAlbum = LocalIdentifier.smartAlbum(.smartAlbumAllHidden)
        #expect(try library.fetchAssetIdentifiers(AssetQuery(collection: hiddenAlbum)) == hidden)
        #expect(try library.asset(withIdentifier: hidden[1])?.isHidden == true)

        try library.setHidden(false, forAssets: [hidden[1]])
        #expect(try library.countAssets(AssetQuery()) == 10)
        #expect(try library.countAssets(AssetQuery(collection: hiddenAlbum)) == 2)

        // All or nothing: one unknown identifier and nothing changes.
        let unknown = LocalIdentifier.newAsset()
        let error = thrownError { () throws(PhotoLibError) in try library.setHidden(true, forAssets: [all[3], unknown]) }
        #expect(error?.code == .notFound && error?.message.contains(unknown) == true)
        #expect(try library.asset(withIdentifier: all[3])?.isHidden == false)
    }

    @Test("20,000 assets through the bulk path: counts, pages and smart albums agree")
    func bulkLibrary() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        var generator = SystemRandomNumberGenerator()
        let assets = (0..<20_000).map { index in
            SyntheticAsset(
                mediaType: index % 10 == 0 ? .video : .image,
                mediaSubtypes: index % 97 == 0 ? .photoScreenshot : [],
                creationDate: Date(timeIntervalSince1970: Double(Int.random(in: 0..<5_000, using: &generator)) * 3_600),
                isFavorite: index % 7 == 0, isHidden: index % 50 == 0)
        }
        try library.insertSyntheticAssets(assets)
        let visible = assets.filter { !$0.isHidden }
        #expect(try library.countAssets(AssetQuery()) == visible.count)

        // Page through the whole library 1,000 at a time with the paging query a server uses.
        let expected = Self.expectedOrder(visible, by: [AssetSortDescriptor(key: .creationDate, ascending: false)])
        let descending = try library.fetchAssetIdentifiers(AssetQuery(sortDescriptors: [AssetSortDescriptor(key: .creationDate, ascending: false)]))
        #expect(descending == expected)
        #expect(try library.fetchAssetIdentifiers(AssetQuery(sortDescriptors: [AssetSortDescriptor(key: .creationDate, ascending: false)], fetchLimit: 1_000)) == Array(expected.prefix(1_000)))

        let collections = Dictionary(uniqueKeysWithValues: try library.assetCollections().map { ($0.subtype, $0) })
        #expect(collections[.smartAlbumUserLibrary]?.estimatedAssetCount == visible.count)
        #expect(collections[.smartAlbumFavorites]?.estimatedAssetCount == visible.filter(\.isFavorite).count)
        #expect(collections[.smartAlbumVideos]?.estimatedAssetCount == visible.filter { $0.mediaType == .video }.count)
        #expect(collections[.smartAlbumScreenshots]?.estimatedAssetCount == visible.filter { $0.mediaSubtypes.contains(.photoScreenshot) }.count)
        #expect(collections[.smartAlbumAllHidden]?.estimatedAssetCount == assets.filter(\.isHidden).count)
        #expect(collections[.smartAlbumUserLibrary]?.keyAssetIdentifier == expected.first)
        #expect(collections[.smartAlbumUserLibrary]?.endDate == visible.map(\.creationDate).max())
        #expect(collections[.smartAlbumUserLibrary]?.startDate == visible.map(\.creationDate).min())
    }
}
