import Foundation
import PhotoLibClient
import XCTest
import PhotoLibTestSupport

/// The server's `FetchAssets` against an in-memory reference, through the real server and
/// client: a random library (small distinct photos uploaded with random EXIF dates and
/// orientations, then random favourite / hidden flags, exact creation dates and a few
/// deletions), random predicate texts from the whole grammar (every spelling of the
/// operators and keywords, IN lists, NOT, parentheses, dates with offsets and fractions),
/// random sorts, limits, `includeHiddenAssets` and scopes (all, media type, All Photos,
/// Favorites, Hidden, an identifier list).
///
/// Replay a failure with `LIBRARY_FETCH_SEED=<seed> swift test --filter EndToEndTests.FetchPropertyTests`.
final class FetchPropertyTests: XCTestCase {
    static let seed: UInt64 = ProcessInfo.processInfo.environment["LIBRARY_FETCH_SEED"].flatMap { UInt64($0) } ?? 0x00E2_E5EE_D4_0001

    func testServerFetchEqualsReferenceEvaluatorForRandomPredicatesSortsAndLimits() async throws {
        let fixture = try UploadLibrary("fetch-property")
        defer { fixture.shutDown() }
        let library = try await connectClient(fixture.server)
        defer { library.close() }
        var random = SplitMix64(seed: Self.seed)
        let seedNote = "seed \(Self.seed) (LIBRARY_FETCH_SEED)"

        // A random library.
        let bases = try await fixture.smallBases(library)
        // Every uploaded photo gets an EXIF date: without one the server takes the time of the
        // upload, in microseconds, which the client only sees rounded to the millisecond.
        let exifDates: [String] = ["2019:07:14 08:30:00", "2019:07:14 08:30:00", "2021:02:28 23:59:59", "2024:01:31 10:00:00", "2000:01:01 00:00:00", "2030:06:01 12:00:00"]
        var photos: [PhotoToCreate] = []
        for index in 0..<59 {
            let base = bases[Int.random(in: 0..<bases.count, using: &random)]
            let orientation = Int.random(in: 0..<3, using: &random) == 0 ? nil : Int.random(in: 1...8, using: &random)
            let exif = exifDates[Int.random(in: 0..<exifDates.count, using: &random)]
            photos.append(PhotoToCreate(
                bytes: photoVariant(base, tag: "property \(index)", exifDate: exif, orientation: orientation),
                filename: "p\(index).jpg", isFavorite: Int.random(in: 0..<3, using: &random) == 0, isHidden: Int.random(in: 0..<4, using: &random) == 0))
        }
        let created = try await createAssets(library, photos)
        // Exact creation dates (ties, microseconds) for some, flags flipped for others, some deleted.
        let instants: [Int64] = [1_706_695_200_000_000, 1_706_695_200_000_001, 1_706_695_200_999_999, 1_563_093_000_000_000, 946_684_800_123_456, 1_900_000_000_500_000]
        var trashed: [String] = []
        let changed = try await library.performChanges { batch in
            for id in created {
                switch Int.random(in: 0..<6, using: &random) {
                case 0, 1: batch.setProperties(of: id, creationDate: Date(timeIntervalSince1970: Double(instants[Int.random(in: 0..<instants.count, using: &random)]) / 1e6))
                case 2: batch.setProperties(of: id, isFavorite: Bool.random(using: &random), isHidden: Bool.random(using: &random))
                default: break
                }
            }
            trashed = Array(created.shuffled(using: &random).prefix(4))
            batch.deleteAssets(trashed)
        }
        XCTAssertFalse(changed.changeToken.isEmpty)

        // The reference: the client's full list (trashed assets excluded, checked here).
        let everything = try await fetchEveryAsset(library)
        XCTAssertEqual(Set(everything.map(\.localIdentifier)), Set(created + [fixture.landscapeID]).subtracting(trashed), "every live asset, no trashed one")
        XCTAssertEqual(everything.count, created.count + 1 - trashed.count)
        XCTAssertTrue(everything.contains { $0.isHidden } && everything.contains { !$0.isHidden } && everything.contains { $0.isFavorite })
        XCTAssertGreaterThan(Set(everything.map(\.pixelWidth)).count, 2, "varied pixel widths")

        let generator = PredicateTextGenerator(assets: everything, exactCreationDates: Set(created))
        let allPhotosID = LocalIdentifier.smartAlbum(.smartAlbumUserLibrary)
        let favoritesID = LocalIdentifier.smartAlbum(.smartAlbumFavorites)
        let hiddenID = LocalIdentifier.smartAlbum(.smartAlbumAllHidden)
        var nonEmpty = 0, partial = 0, limited = 0
        var scopesSeen = Set<String>()
        for caseIndex in 0..<150 {
            let text = generator.predicate(depth: Int.random(in: 0..<4, using: &random), &random)
            let predicate: AssetPredicate
            do {
                predicate = try AssetPredicate(parsing: text)
            } catch {
                XCTFail("\(seedNote), case \(caseIndex): the generator made a predicate the parser refuses: \(text): \(error)")
                continue
            }
            let descriptors = (0..<Int.random(in: 0..<4, using: &random)).map { _ in
                AssetSortDescriptor(key: AssetSortKey.allCases[Int.random(in: 0..<AssetSortKey.allCases.count, using: &random)], ascending: Bool.random(using: &random))
            }
            let includeHidden = Bool.random(using: &random)
            let limit = Int.random(in: 0..<3, using: &random) == 0 ? Int.random(in: 1..<40, using: &random) : 0
            let options = FetchOptions(predicate: text, sortDescriptors: descriptors, fetchLimit: limit, includeHiddenAssets: includeHidden)

            var candidates = everything.filter { (includeHidden || !$0.isHidden) && predicate.matches($0) }
            let scope: String
            let result: FetchResult<Asset>
            switch Int.random(in: 0..<8, using: &random) {
            case 0:
                scope = "mediaType image"
                result = try await library.fetchAssets(with: .image, options: options)
            case 1:
                scope = "mediaType video"
                candidates = []
                result = try await library.fetchAssets(with: .video, options: options)
            case 2:
                scope = "All Photos"
                result = try await library.fetchAssets(in: allPhotosID, options: options)
            case 3:
                scope = "Favorites"
                candidates = candidates.filter(\.isFavorite)
                result = try await library.fetchAssets(in: favoritesID, options: options)
            case 4:
                scope = "Hidden"
                candidates = everything.filter { $0.isHidden && predicate.matches($0) }
                result = try await library.fetchAssets(in: hiddenID, options: options)
            case 5:
                let wanted = Array(everything.map(\.localIdentifier).shuffled(using: &random).prefix(Int.random(in: 1..<30, using: &random))) + trashed.prefix(1)
                scope = "identifiers (\(wanted.count))"
                let set = Set(wanted)
                candidates = candidates.filter { set.contains($0.localIdentifier) }
                result = try await library.fetchAssets(withLocalIdentifiers: wanted, options: options)
            default:
                scope = "all"
                result = try await library.fetchAssets(with: options)
            }
            scopesSeen.insert(scope.components(separatedBy: " (").first!)
            let ordering = AssetOrdering(descriptors)
            var expected = candidates.sorted(by: ordering.areInIncreasingOrder).map(\.localIdentifier)
            if limit > 0 {
                if expected.count > limit { limited += 1 }
                expected = Array(expected.prefix(limit))
            }
            let fetched = try await result.allObjects().map(\.localIdentifier)
            let context = "\(seedNote), case \(caseIndex): scope \(scope), predicate \(text), sort \(descriptors.map { "\($0.key.rawValue):\($0.ascending ? "asc" : "desc")" }), limit \(limit), includeHidden \(includeHidden)"
            XCTAssertEqual(result.count, expected.count, "count: \(context)")
            XCTAssertEqual(fetched, expected, context)
            if !expected.isEmpty { nonEmpty += 1 }
            if !expected.isEmpty && expected.count < everything.count - 5 { partial += 1 }
            try await result.release()
        }
        // The generator must produce interesting cases, not 150 empty or full results.
        XCTAssertGreaterThan(nonEmpty, 50, "non-empty results")
        XCTAssertGreaterThan(partial, 40, "results that select a proper subset")
        XCTAssertGreaterThan(limited, 3, "results cut by fetchLimit")
        XCTAssertEqual(scopesSeen.count, 7, "every scope was used: \(scopesSeen)")
    }

    /// Bad predicates fail with `invalidPredicate` and a message with the column.
    func testBadPredicatesFailWithInvalidPredicateAndColumn() async throws {
        let fixture = try UploadLibrary("fetch-bad-predicates")
        defer { fixture.shutDown() }
        let library = try await connectClient(fixture.server)
        defer { library.close() }
        let cases: [(String, String)] = [
            ("pixelWidth == \"x\"", "at column 15:"),
            ("foo == 1", "at column 1: unknown key 'foo'"),
            ("(isFavorite == true", "at column 20:"),
            ("creationDate > 2023-02-29", "at column 16: invalid date"),
            ("isFavorite < true", "at column 12:"),
        ]
        for (text, prefix) in cases {
            do {
                _ = try await library.fetchAssets(with: FetchOptions(predicate: text))
                XCTFail("\(text) should fail")
            } catch let error as PhotoLibError {
                XCTAssertEqual(error.code, .invalidArgument, text)
                XCTAssertEqual(error.reason, .invalidPredicate, text)
                XCTAssertTrue(error.message.hasPrefix(prefix), "\(text): \(error.message)")
            }
        }
        // An unknown album is NOT_FOUND; a fetch by unknown identifiers is empty.
        await assertThrowsPhotoLibError(.notFound, "unknown album") {
            try await library.fetchAssets(in: LocalIdentifier.newAlbum())
        }
        let none = try await library.fetchAssets(withLocalIdentifiers: [LocalIdentifier.newAsset()])
        XCTAssertEqual(none.count, 0)
    }
}

/// Random predicate text over the whole grammar of docs/PREDICATES.md, with literals drawn
/// mostly from the library's own values so that comparisons hit equal values.
struct PredicateTextGenerator {
    let assets: [Asset]
    /// Every asset's modification date, in µs, as the client knows it (whole milliseconds).
    let modificationMilliseconds: Set<Int64>
    /// The same for creation dates.
    let creationMilliseconds: Set<Int64>
    /// The assets whose creation date the client knows exactly (set over the wire or from EXIF).
    let exactCreationDates: Set<String>

    init(assets: [Asset], exactCreationDates: Set<String>) {
        self.assets = assets
        self.exactCreationDates = exactCreationDates
        modificationMilliseconds = Set(assets.map { PredicateDate.microseconds($0.modificationDate) })
        creationMilliseconds = Set(assets.map { PredicateDate.microseconds($0.creationDate) })
    }

    /// A literal next to a date the client only knows to the millisecond (see "modificationDate" below).
    private func roundedDateLiteral(_ rounded: Int64, _ known: Set<Int64>, _ random: inout SplitMix64) -> String {
        if Int.random(in: 0..<4, using: &random) != 0, !known.contains(rounded - 1000) {
            return dateLiteral(rounded - 501, &random)
        }
        return dateLiteral(pick([946_684_800_000_000, 1_706_695_200_000_000, 4_102_444_800_000_000], &random), &random)
    }

    private static let subtypes = ["panorama", "hdr", "screenshot", "live", "depthEffect", "streamed", "highFrameRate", "timelapse"]
    private static let mediaTypes = ["unknown", "image", "video", "audio"]

    private func pick<T>(_ values: [T], _ random: inout SplitMix64) -> T { values[Int.random(in: 0..<values.count, using: &random)] }

    /// An ISO 8601 literal for the instant `micros`, written in a random offset, precision and case.
    func dateLiteral(_ micros: Int64, _ random: inout SplitMix64) -> String {
        let offsetMinutes = pick([0, 0, 120, -300, 330, -60], &random)
        let shifted = micros + Int64(offsetMinutes) * 60_000_000
        let seconds = shifted >= 0 ? shifted / 1_000_000 : (shifted - 999_999) / 1_000_000
        let fraction = Int(shifted - seconds * 1_000_000)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        var text = String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
        let style = Int.random(in: 0..<6, using: &random)
        if style == 0 && offsetMinutes == 0 { return text }  // midnight UTC
        text += (style == 1 ? "t" : "T") + String(format: "%02d:%02d", c.hour!, c.minute!)
        if style != 2 || c.second != 0 || fraction != 0 {
            text += String(format: ":%02d", c.second!)
            if fraction != 0 || style == 3 {
                let digits = String(format: "%06d", fraction)
                // Fewer digits when the trailing ones are zeros (the instant stays exact).
                var trimmed = Substring(digits)
                while trimmed.count > 1, trimmed.last == "0", Bool.random(using: &random) { trimmed = trimmed.dropLast() }
                text += "." + trimmed
            }
        }
        if offsetMinutes == 0 {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: break  // no zone: UTC
            case 1: text += "z"
            case 2: text += "+00:00"
            default: text += "Z"
            }
        } else {
            let magnitude = abs(offsetMinutes)
            text += (offsetMinutes < 0 ? "-" : "+") + String(format: "%02d:%02d", magnitude / 60, magnitude % 60)
        }
        return text
    }

    /// A literal for `key`, usually a value some asset has.
    func literal(_ key: String, allowNil: Bool, _ random: inout SplitMix64) -> String {
        let asset = pick(assets, &random)
        switch key {
        case "mediaType": return pick(Self.mediaTypes + ["image", "image"], &random)
        case "mediaSubtypes": return pick(Self.subtypes, &random)
        case "modificationDate":
            // The wire carries dates in milliseconds (PROTOCOL.md 13.3), rounded; the store keeps
            // the microseconds of the server's clock. The client (and so the reference) only
            // knows T = the stored value rounded to the millisecond, the store holds some R in
            // [T-500, T+499] µs. A literal at T-501 µs compares the same with T and with R, so
            // it is used unless another asset's millisecond (T-1000) makes it ambiguous.
            return roundedDateLiteral(PredicateDate.microseconds(asset.modificationDate), modificationMilliseconds, &random)
        case "creationDate":
            // Creation dates that came over the wire (whole milliseconds) or from EXIF (whole
            // seconds) are known exactly; the imported photo's import time is not.
            guard exactCreationDates.contains(asset.localIdentifier) else {
                return roundedDateLiteral(PredicateDate.microseconds(asset.creationDate), creationMilliseconds, &random)
            }
            let micros = PredicateDate.microseconds(asset.creationDate)
            switch Int.random(in: 0..<5, using: &random) {
            case 0: return dateLiteral(micros + Int64.random(in: -2...2, using: &random), &random)
            case 1: return dateLiteral(pick([946_684_800_000_000, 1_563_093_000_000_000, 1_706_695_200_000_000, 4_102_444_800_000_000], &random), &random)
            default: return dateLiteral(micros, &random)
            }
        case "isFavorite", "isHidden": return pick(["true", "false", "YES", "NO", "True", "no"], &random)
        case "pixelWidth", "pixelHeight":
            if Int.random(in: 0..<4, using: &random) == 0 { return String(Int.random(in: -5..<5000, using: &random)) }
            return String(key == "pixelWidth" ? asset.pixelWidth : asset.pixelHeight)
        case "duration": return pick(["0", "0.0", "1.5", "-1", "1e-3", "0E0", "12.25"], &random)
        case "burstIdentifier":
            if allowNil, Bool.random(using: &random) { return pick(["nil", "NULL", "Nil"], &random) }
            return pick(["\"b1\"", "\"\"", "\"q\\\"uote\"", "\"\u{E9}\""], &random)
        default:  // localIdentifier
            if Int.random(in: 0..<3, using: &random) == 0 { return "\"" + pick(["0", "8", "F", "G", "", "A"], &random) + "\"" }
            return "\"" + asset.localIdentifier + "\""
        }
    }

    func comparison(_ random: inout SplitMix64) -> String {
        let key = pick(PredicateKey.allCases.map(\.rawValue), &random)
        let ordered = !["mediaType", "mediaSubtypes", "isFavorite", "isHidden"].contains(key)
        let space = pick([" ", " ", "", "  ", "\t", "\n"], &random)
        if Int.random(in: 0..<4, using: &random) == 0 {
            let values = (0..<Int.random(in: 0..<4, using: &random)).map { _ in literal(key, allowNil: true, &random) }
            return "\(key) \(pick(["IN", "in", "In"], &random)) {\(values.joined(separator: pick([", ", ",", " , "], &random)))}"
        }
        let op = ordered && Bool.random(using: &random) ? pick(["<", "<=", ">", ">="], &random) : pick(["==", "=", "!=", "<>"], &random)
        // nil only with == and !=.
        return key + space + op + space + literal(key, allowNil: !["<", "<=", ">", ">="].contains(op), &random)
    }

    /// A predicate of at most `depth` levels of AND / OR / NOT.
    func predicate(depth: Int, _ random: inout SplitMix64) -> String {
        if depth == 0 || Int.random(in: 0..<4, using: &random) == 0 {
            let text = comparison(&random)
            return Int.random(in: 0..<6, using: &random) == 0 ? "(\(text))" : text
        }
        switch Int.random(in: 0..<5, using: &random) {
        case 0:
            // NOT binds tighter than AND / OR: the operand is a comparison or a parenthesized group.
            let inner = predicate(depth: depth - 1, &random)
            return pick(["NOT ", "not ", "!", "! "], &random) + "(\(inner))"
        case 1, 2:
            return "(\(predicate(depth: depth - 1, &random)))" + pick([" AND ", " and ", " && ", "&&"], &random) + "(\(predicate(depth: depth - 1, &random)))"
        default:
            // Unparenthesized operands too: the parser's precedence must match the reference's own parse.
            let left = predicate(depth: depth - 1, &random)
            let right = predicate(depth: depth - 1, &random)
            return left + pick([" OR ", " or ", " || ", "||"], &random) + right
        }
    }
}
