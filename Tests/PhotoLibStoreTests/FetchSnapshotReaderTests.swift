import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

/// A fetch answered from its count and first page must finish as the library was then.
@Suite("Fetch snapshot reader")
struct FetchSnapshotReaderTests {
    @Test("count, first page and the full list come from one consistent read")
    func consistentAcrossCommits() throws {
        let directory = try TestDirectory()
        defer { directory.cleanUp() }
        let library = try PhotoLibrary.open(at: directory.library)
        _ = try library.addSyntheticAssetsForBenchmark(count: 300)
        let query = AssetQuery(sortDescriptors: [AssetSortDescriptor(key: .creationDate, ascending: false)])
        let before = try library.fetchAssetIdentifiers(query)

        let reader = try library.beginFetch(query, prefetch: 20)
        #expect(reader.count == 300)
        #expect(reader.firstIdentifiers == Array(before.prefix(20)))

        // Commits from another connection (another process in production) after the answer.
        let other = try PhotoLibrary.open(at: directory.library)
        _ = try other.addSyntheticAssetsForBenchmark(count: 50, newest: Date().addingTimeInterval(3600))
        try other.setHidden(true, forAssets: Array(before.suffix(10)))
        #expect(try library.countAssets(query) == 340)

        #expect(try reader.readAll() == before)
        #expect(throws: PhotoLibError.self) { try reader.readAll() }
    }

    @Test("limits and empty results")
    func limits() throws {
        let directory = try TestDirectory()
        defer { directory.cleanUp() }
        let library = try PhotoLibrary.open(at: directory.library)
        _ = try library.addSyntheticAssetsForBenchmark(count: 30)
        let limited = try library.beginFetch(AssetQuery(fetchLimit: 7), prefetch: 100)
        #expect(limited.count == 7)
        #expect(try limited.readAll() == (try library.fetchAssetIdentifiers(AssetQuery(fetchLimit: 7))))
        let none = try library.beginFetch(AssetQuery(collection: LocalIdentifier.smartAlbum(.smartAlbumVideos)), prefetch: 10)
        #expect(none.count == 0)
        #expect(try none.readAll().isEmpty)
    }
}
