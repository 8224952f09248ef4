import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

/// `assets(page:of:)` (keyset pages of a snapshot) answers exactly what
/// `assets(withIdentifiers:)` answers for the same identifiers: for every sort, every page,
/// and after the library changed under the snapshot (moved, trashed, hidden, new assets).
@Suite("Snapshot pages read as keyset ranges")
struct SnapshotPageTests {
    /// The queries to page: every sort key both ways, the default order, a smart album, a
    /// predicate, a two-key sort, and the shapes that fall back to lookups by identifier.
    static func queries() throws -> [AssetQuery] {
        var queries = [AssetQuery(), AssetQuery(predicate: try AssetPredicate(parsing: "pixelWidth > 1000")), AssetQuery(collection: LocalIdentifier.smartAlbum(.smartAlbumFavorites))]
        for key in AssetSortKey.allCases {
            for ascending in [true, false] { queries.append(AssetQuery(sortDescriptors: [AssetSortDescriptor(key: key, ascending: ascending)])) }
        }
        queries.append(AssetQuery(sortDescriptors: [AssetSortDescriptor(key: .mediaType, ascending: false), AssetSortDescriptor(key: .pixelWidth, ascending: false)]))
        queries.append(AssetQuery(sortDescriptors: [AssetSortDescriptor(key: .mediaType, ascending: true), AssetSortDescriptor(key: .pixelWidth, ascending: false)]))
        queries.append(AssetQuery(sortDescriptors: [AssetSortDescriptor(key: .localIdentifier, ascending: true), AssetSortDescriptor(key: .pixelWidth, ascending: false)]))
        return queries
    }

    /// Every page of up to `length` identifiers of every query's listing `lists`, both ways.
    /// With `unchanged` (the lists are the library's current listings), every page of a query
    /// with ``PageKeys`` must also be read as one keyset range (`visitAssets(page:of:)`
    /// answers it, visiting exactly the page), and no other: `assets(page:of:)` falls back to
    /// lookups, so a wrong range would otherwise go unnoticed.
    static func expectSamePages(_ library: PhotoLibrary, _ lists: [(AssetQuery, [String])], unchanged: Bool = false) throws {
        for (query, list) in lists {
            for length in [1, 3, 7] {
                for start in 0..<list.count {
                    let page = Array(list[start..<min(list.count, start + length)])
                    let paged = try library.assets(page: page, of: query)
                    let lookedUp = try library.assets(withIdentifiers: page)
                    #expect(paged == lookedUp, "\(query) page at \(start) of \(length)")
                    if unchanged {
                        var visited: [String] = []
                        let ranged = try library.visitAssets(page: page, of: query) { (columns) in
                            visited.append(columns.withLocalIdentifier { String(decoding: $0, as: UTF8.self) })
                        }
                        let keyed = PageKeys(query) != nil
                        #expect(ranged == keyed, "\(query) page at \(start) of \(length): keyset range \(ranged), keys \(keyed)")
                        if keyed { #expect(visited == page, "\(query) page at \(start) of \(length)") }
                    }
                }
            }
        }
    }

    @Test("pages of an unchanged library, and after it changed under the snapshots")
    func pagesMatchLookups() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let assets = PhotoLibraryFetchTests.fixture()
        try library.insertSyntheticAssets(assets)
        let lists = try Self.queries().map { query in (query, try library.fetchAssetIdentifiers(query)) }
        #expect(lists.allSatisfy { !$0.1.isEmpty })
        try Self.expectSamePages(library, lists, unchanged: true)

        // One asset moves to the end, one is trashed, one hidden, one favourite toggled, and
        // a new one lands in the middle of the default order.
        let ids = assets.map(\.identifier)
        try library.executeForTesting("UPDATE asset SET creation_date = creation_date + 86400000000, pixel_width = 1, duration = 99 WHERE local_identifier = '\(ids[1])'")
        try library.executeForTesting("UPDATE asset SET trashed = 1, trashed_date = 1 WHERE local_identifier = '\(ids[4])'")
        try library.executeForTesting("UPDATE asset SET hidden = 1 WHERE local_identifier = '\(ids[6])'")
        try library.executeForTesting("UPDATE asset SET favorite = 1 - favorite WHERE local_identifier = '\(ids[9])'")
        try library.insertSyntheticAssets([SyntheticAsset(creationDate: Date(timeIntervalSince1970: 1_000_000 + 2 * 60), isFavorite: true)])
        try Self.expectSamePages(library, lists)
    }

    @Test("a page of a limited view holds only its selection")
    func limitedView() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let assets = PhotoLibraryFetchTests.fixture()
        try library.insertSyntheticAssets(assets)
        let list = try library.fetchAssetIdentifiers(AssetQuery())
        let client = try library.registerClient(name: "Frame", level: .readWrite).0.clientIdentifier
        let selected = [list[1], list[2], list[5], list[9]]
        try library.limit(client: client, to: selected)
        let view = library.limited(to: client)
        let page = try view.assets(page: list, of: AssetQuery())
        #expect(page == (try view.assets(withIdentifiers: list)))
        #expect(page.map(\.localIdentifier) == selected)
        let inView = try view.fetchAssetIdentifiers(AssetQuery())
        #expect(try view.assets(page: inView, of: AssetQuery()).map(\.localIdentifier) == selected)
    }

    @Test("keys of the sorts a range can follow; album order and mixed directions fall back")
    func keys() {
        #expect(PageKeys(AssetQuery())?.names == ["creation_date", "local_identifier"])
        let descending = PageKeys(AssetQuery(sortDescriptors: [AssetSortDescriptor(key: .pixelWidth, ascending: false)]))
        #expect(descending?.names == ["pixel_width", "local_identifier"])
        #expect(descending?.ascending == false)
        #expect(PageKeys(AssetQuery(sortDescriptors: [AssetSortDescriptor(key: .localIdentifier, ascending: true), AssetSortDescriptor(key: .duration, ascending: false)]))?.names == ["local_identifier"])
        #expect(PageKeys(AssetQuery(sortDescriptors: [AssetSortDescriptor(key: .mediaType, ascending: true), AssetSortDescriptor(key: .duration, ascending: false)])) == nil)
        #expect(PageKeys(AssetQuery(collection: "0F0F0F0F-0000-0000-0000-000000000000/L0/020")) == nil)
        #expect(PageKeys(AssetQuery(collection: LocalIdentifier.smartAlbum(.smartAlbumVideos))) != nil)
    }
}
