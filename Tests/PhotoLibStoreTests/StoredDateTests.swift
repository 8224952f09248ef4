import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

@Suite("Stored dates are whole milliseconds, so the wire's dates match them exactly")
struct StoredDateTests {
    @Test("modification and creation dates written by the library match a millisecond predicate")
    func millisecondDates() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let asset = try library.addPhoto(try SamplePhotos.uniqueBytes(3), metadata: SamplePhotos.metadata()).asset.localIdentifier
        try library.setFavorite(true, forAssets: [asset])
        let stored = try #require(try library.asset(withIdentifier: asset))
        for date in [stored.modificationDate, stored.creationDate] {
            let microseconds = (date.timeIntervalSince1970 * 1_000_000).rounded()
            #expect(microseconds.truncatingRemainder(dividingBy: 1_000) == 0, "\(date) has sub-millisecond digits")
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let text = formatter.string(from: stored.modificationDate)
        let query = AssetQuery(predicate: try AssetPredicate(parsing: "modificationDate == \(text)"))
        #expect(try library.fetchAssetIdentifiers(query) == [asset], "modificationDate == \(text)")
    }

    @Test("a date given with microseconds is kept to the nearest millisecond")
    func rounding() {
        #expect(Microseconds.from(Date(timeIntervalSince1970: 1.0004)) == 1_000_000)
        #expect(Microseconds.from(Date(timeIntervalSince1970: 1.0006)) == 1_001_000)
        #expect(Microseconds.from(Date(timeIntervalSince1970: -1.0006)) == -1_001_000)
    }
}
