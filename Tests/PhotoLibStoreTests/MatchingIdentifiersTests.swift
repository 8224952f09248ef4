import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

/// `matchingIdentifiers` (the change feed's membership probe) must agree with the full query.
@Suite("Matching identifiers")
struct MatchingIdentifiersTests {
    @Test("equals the full fetch restricted to the candidates, for every scope")
    func agreesWithFullFetch() throws {
        let directory = try TestDirectory()
        defer { directory.cleanUp() }
        let library = try PhotoLibrary.open(at: directory.library)
        _ = try library.addSyntheticAssetsForBenchmark(count: 500)
        let all = try library.fetchAssetIdentifiers(AssetQuery(includeHiddenAssets: true))
        try library.setHidden(true, forAssets: Array(all.prefix(40)))
        let album = try library.createAlbum(title: "Some")
        try library.addAssets(Array(all.dropFirst(30).prefix(60)), toAlbum: album.localIdentifier)
        try library.executeForTesting("UPDATE asset SET trashed = 1, trashed_date = 1 WHERE id % 17 = 0")
        var rng = SystemRandomNumberGenerator()
        let candidates = all.shuffled(using: &rng).prefix(120) + ["NOPE-0000/L0/001"]
        let queries: [AssetQuery] = [
            AssetQuery(),
            AssetQuery(includeHiddenAssets: true),
            AssetQuery(collection: LocalIdentifier.smartAlbum(.smartAlbumFavorites)),
            AssetQuery(collection: LocalIdentifier.smartAlbum(.smartAlbumAllHidden)),
            AssetQuery(collection: LocalIdentifier.smartAlbum(.smartAlbumRecentlyDeleted)),
            AssetQuery(collection: album.localIdentifier),
            AssetQuery(sortDescriptors: [AssetSortDescriptor(key: .creationDate, ascending: false)], fetchLimit: 5, predicate: try AssetPredicate(parsing: "pixelWidth > 4000 OR isFavorite == true")),
            AssetQuery(mediaType: .image),
        ]
        for query in queries {
            var unlimited = query
            unlimited.fetchLimit = 0
            let expected = Set(try library.fetchAssetIdentifiers(unlimited)).intersection(candidates)
            #expect(try library.matchingIdentifiers(query, among: Array(candidates)) == expected, "\(query)")
        }
        #expect(try library.matchingIdentifiers(AssetQuery(), among: []) == [])
    }
}
