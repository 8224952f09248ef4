import Foundation
import PhotoLibCore
import Testing
@testable import PhotoLibStore
import PhotoLibTestSupport

/// `value` in upper-case hexadecimal, zero-padded to `width` digits.
private func hex(_ value: UInt64, _ width: Int) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}

/// Value pools shared by the asset and predicate generators, small so that comparisons
/// hit equal values and sorts hit ties.
private enum Pool {
    /// Microseconds since 1970: ties, sub-second parts, before 1970, far future.
    static let instants: [Int64] = [
        1_706_659_200_000_000, 1_706_659_200_000_001, 1_706_695_200_250_000, 1_706_695_200_999_999,
        1_600_000_000_000_000, -86_400_000_000, 0, 4_102_444_800_123_456, 1_706_659_199_999_999,
    ]
    static let widths = [0, 640, 1920, 4032]
    static let heights = [0, 480, 1080, 3024]
    static let durations: [Double] = [0, 0.1, 1.5, 2, 12.25, 3600.000001]
    /// Burst identifiers, including two spellings of "é" that only bytes tell apart and
    /// text that would break naively interpolated SQL.
    static let bursts: [String?] = [nil, nil, "b1", "b2", "\u{E9}", "e\u{301}", "Z", "x'); DROP TABLE asset; --", "q\"uote\\"]
    static let subtypeBits = MediaSubtypes.named.map(\.value)
}

/// Random assets, predicates and sort orders.
private struct Generator {
    var random: SplitMix64

    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func bool() -> Bool { Bool.random(using: &random) }
    mutating func pick<T>(_ values: [T]) -> T { values[int(0..<values.count)] }

    /// An asset row plus the burst identifier set afterwards (the bulk path has no column for it).
    mutating func asset(_ index: Int) -> (SyntheticAsset, String?) {
        // Identifiers from a random permutation-ish number so that identifier order is not insertion order.
        let identifier = hex(UInt64(UInt32.random(in: 0...UInt32.max, using: &random)), 8) + "-0000-4000-8000-"
            + hex(UInt64(index), 12) + LocalIdentifier.assetSuffix
        let mediaType = pick(MediaType.allCases)
        var subtypes: MediaSubtypes = []
        for _ in 0..<int(0..<4) { subtypes.insert(pick(Pool.subtypeBits)) }
        let asset = SyntheticAsset(
            identifier: identifier, mediaType: mediaType, mediaSubtypes: subtypes,
            pixelWidth: pick(Pool.widths), pixelHeight: pick(Pool.heights),
            creationDate: Microseconds.date(pick(Pool.instants)), modificationDate: Microseconds.date(pick(Pool.instants)),
            isFavorite: int(0..<3) == 0, isHidden: int(0..<4) == 0, duration: pick(Pool.durations))
        return (asset, pick(Pool.bursts))
    }

    /// A random value of `key`'s type, usually one that occurs in the library.
    mutating func value(_ key: PredicateKey, allowNull: Bool) -> PredicateValue {
        switch key.valueType {
        case .date:
            let instant = pick(Pool.instants)
            return .date(microsecondsSince1970: int(0..<4) == 0 ? instant + Int64(int(-2..<3)) : instant)
        case .integer:
            return .integer(Int64(int(0..<4) == 0 ? int(-5..<5000) : pick(Pool.widths + Pool.heights)))
        case .double:
            return .double(int(0..<4) == 0 ? Double(int(0..<4000)) / 100 : pick(Pool.durations))
        case .boolean: return .boolean(bool())
        case .mediaType: return .mediaType(pick(MediaType.allCases))
        case .mediaSubtypes: return .mediaSubtypes(pick(Pool.subtypeBits))
        case .string(let nullable):
            if key == .localIdentifier {
                // An identifier of the library, or a prefix-like string between them.
                return .string(int(0..<3) == 0 ? pick(["0", "8", "F", "G", ""]) : pick(identifiers))
            }
            if nullable, allowNull, int(0..<4) == 0 { return .null }
            return .string(pick(Pool.bursts.compactMap { $0 } + ["b", "b10", "é"]))
        }
    }

    /// The library's identifiers, for `localIdentifier` literals.
    var identifiers: [String] = []

    /// A random predicate of at most `depth` levels.
    mutating func predicate(depth: Int) -> AssetPredicate {
        if depth == 0 || int(0..<3) == 0 {
            let key = pick(PredicateKey.allCases)
            if int(0..<4) == 0 {
                var values: [PredicateValue] = []
                for _ in 0..<int(0..<4) { values.append(value(key, allowNull: true)) }
                return .membership(key, values)
            }
            let operators = key.valueType.isOrdered ? ComparisonOperator.allCases : [.equal, .notEqual]
            let op = pick(operators)
            return .comparison(key, op, value(key, allowNull: !op.isOrdering))
        }
        switch int(0..<5) {
        case 0: return .not(predicate(depth: depth - 1))
        case 1, 2: return .and(predicate(depth: depth - 1), predicate(depth: depth - 1))
        default: return .or(predicate(depth: depth - 1), predicate(depth: depth - 1))
        }
    }

    mutating func sortDescriptors() -> [AssetSortDescriptor] {
        (0..<int(0..<4)).map { _ in AssetSortDescriptor(key: pick(AssetSortKey.allCases), ascending: bool()) }
    }
}

/// The store's order rules, in Swift: the descriptors, then the identifier in the last
/// descriptor's direction; no descriptors: creation date ascending, then identifier.
private func referenceSorted(_ assets: [Asset], _ descriptors: [AssetSortDescriptor]) -> [Asset] {
    func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a > b ? 1 : 0) }
    func compare(_ a: Asset, _ b: Asset, _ key: AssetSortKey) -> Int {
        switch key {
        case .creationDate: return sign(PredicateDate.microseconds(a.creationDate), PredicateDate.microseconds(b.creationDate))
        case .modificationDate: return sign(PredicateDate.microseconds(a.modificationDate), PredicateDate.microseconds(b.modificationDate))
        case .pixelWidth: return sign(a.pixelWidth, b.pixelWidth)
        case .pixelHeight: return sign(a.pixelHeight, b.pixelHeight)
        case .duration: return sign(a.duration, b.duration)
        case .isFavorite: return sign(a.isFavorite ? 1 : 0, b.isFavorite ? 1 : 0)
        case .isHidden: return sign(a.isHidden ? 1 : 0, b.isHidden ? 1 : 0)
        case .mediaType: return sign(a.mediaType.rawValue, b.mediaType.rawValue)
        case .localIdentifier:
            if a.localIdentifier.utf8.elementsEqual(b.localIdentifier.utf8) { return 0 }
            return a.localIdentifier.utf8.lexicographicallyPrecedes(b.localIdentifier.utf8) ? -1 : 1
        }
    }
    let terms = (descriptors.isEmpty ? [AssetSortDescriptor(key: .creationDate)] : descriptors)
        + [AssetSortDescriptor(key: .localIdentifier, ascending: descriptors.last?.ascending ?? true)]
    return assets.sorted { a, b in
        for term in terms {
            let order = compare(a, b, term.key)
            if order != 0 { return term.ascending ? order < 0 : order > 0 }
        }
        return false
    }
}

/// A library of `count` random assets; returns it with every asset as the store reads it back.
private func makeLibrary(at path: String, count: Int, _ generator: inout Generator) throws -> (PhotoLibrary, [Asset]) {
    let library = try PhotoLibrary.open(at: path)
    let rows = (0..<count).map { generator.asset($0) }
    try library.insertSyntheticAssets(rows.map(\.0))
    try library.write { (database) throws(PhotoLibError) in
        let update = try database.prepare("UPDATE asset SET burst_identifier = ? WHERE local_identifier = ?")
        for (asset, burst) in rows where burst != nil {
            try update.execute([.optionalText(burst), .text(asset.identifier)])
        }
    }
    let assets = try library.assets(withIdentifiers: rows.map(\.0.identifier))
    #expect(assets.count == count)
    generator.identifiers = assets.map(\.localIdentifier)
    return (library, assets)
}

@Suite("Predicates in the store: SQL equals the reference evaluator")
struct PredicatePropertyTests {
    /// Replay a failure with `PREDICATE_SEED=<seed> swift test --filter PredicatePropertyTests`.
    static let seed: UInt64 = ProcessInfo.processInfo.environment["PREDICATE_SEED"].flatMap { UInt64($0) } ?? 0x5EED_2024_0131

    @Test("random libraries, predicates, sorts, limits and includeHidden: fetch == filter + sort + prefix")
    func fetchEqualsReference() throws {
        var generator = Generator(random: SplitMix64(seed: Self.seed))
        var cases = 0
        var nonEmpty = 0
        var partial = 0
        for libraryIndex in 0..<8 {
            let temp = try TestDirectory()
            defer { temp.cleanUp() }
            let (library, assets) = try makeLibrary(at: temp.library, count: generator.int(1..<90), &generator)
            for caseIndex in 0..<50 {
                let predicate = generator.predicate(depth: generator.int(0..<5))
                let text = predicate.description
                let context = Comment(rawValue: "seed \(Self.seed), library \(libraryIndex), case \(caseIndex): \(text)")

                // The printer and the parser agree: parse(print(p)) == p.
                let reparsed = try AssetPredicate(parsing: text)
                #expect(reparsed == predicate, context)

                let descriptors = generator.sortDescriptors()
                let includeHidden = generator.bool()
                let limit = generator.int(0..<3) == 0 ? generator.int(1..<20) : 0
                let options = FetchOptions(predicate: text, sortDescriptors: descriptors, fetchLimit: limit, includeHiddenAssets: includeHidden)
                let query = try AssetQuery.from(options: options)
                #expect(query.predicate == predicate, context)

                let matching = assets.filter { (includeHidden || !$0.isHidden) && predicate.matches($0) }
                var expected = referenceSorted(matching, descriptors).map(\.localIdentifier)
                if limit > 0 { expected = Array(expected.prefix(limit)) }
                let fetched = try library.fetchAssetIdentifiers(query)
                #expect(fetched == expected, "\(context); sort \(descriptors), limit \(limit), includeHidden \(includeHidden)")
                #expect(try library.countAssets(query) == expected.count, context)

                cases += 1
                if !expected.isEmpty { nonEmpty += 1 }
                if !expected.isEmpty && matching.count < assets.count { partial += 1 }
                if fetched != expected { return }  // one failure tells the story; the seed replays it
            }
        }
        // The generator is not degenerate: many cases select some but not all assets.
        #expect(cases == 400)
        #expect(nonEmpty > 150 && partial > 100, "seed \(Self.seed): \(nonEmpty) non-empty, \(partial) partial results")
    }

    @Test("predicates combine with collections and media types; errors keep their reason")
    func combinationsAndErrors() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        var generator = Generator(random: SplitMix64(seed: 7))
        let (library, assets) = try makeLibrary(at: temp.library, count: 60, &generator)
        let predicate = try AssetPredicate(parsing: "pixelWidth >= 1920 OR burstIdentifier != nil")

        // Smart album (Favorites) + predicate.
        let favorites = LocalIdentifier.smartAlbum(.smartAlbumFavorites)
        let inFavorites = try library.fetchAssetIdentifiers(AssetQuery(collection: favorites, predicate: predicate))
        let expectedFavorites = referenceSorted(assets.filter { $0.isFavorite && !$0.isHidden && predicate.matches($0) }, [])
        #expect(inFavorites == expectedFavorites.map(\.localIdentifier))
        // Media type + predicate.
        let videos = try library.fetchAssetIdentifiers(AssetQuery(mediaType: .video, predicate: predicate))
        #expect(videos == referenceSorted(assets.filter { $0.mediaType == .video && !$0.isHidden && predicate.matches($0) }, []).map(\.localIdentifier))
        // User album (its own order) + predicate: the album's order is kept.
        let album = try library.createAlbum(title: "Some")
        let members = Array(assets.map(\.localIdentifier).reversed().prefix(30))
        try library.addAssets(members, toAlbum: album.localIdentifier)
        let inAlbum = try library.fetchAssetIdentifiers(AssetQuery(collection: album.localIdentifier, includeHiddenAssets: true, predicate: predicate))
        let byID = Dictionary(uniqueKeysWithValues: assets.map { ($0.localIdentifier, $0) })
        #expect(inAlbum == members.filter { predicate.matches(byID[$0]!) })

        // Parse errors surface from AssetQuery.from with the column and reason.
        let error = thrownError { () throws(PhotoLibError) in
            _ = try AssetQuery.from(options: FetchOptions(predicate: "pixelWidth == \"x\""))
        }
        #expect(error?.code == .invalidArgument && error?.reason == .invalidPredicate)
        #expect(error?.message == "at column 15: expected an integer for pixelWidth, found string \"x\"")
        // Empty text is no predicate (the wire cannot tell "" from absent).
        #expect(try AssetQuery.from(options: FetchOptions(predicate: "")).predicate == nil)
        // The non-throwing initializer keeps its old behaviour: no predicate.
        #expect(AssetQuery(options: FetchOptions(predicate: "isFavorite == true")).predicate == nil)

        // Hand-built trees the parser cannot produce are refused by the store, not run.
        for bad: AssetPredicate in [
            .comparison(.pixelWidth, .equal, .string("1")),
            .comparison(.isFavorite, .less, .boolean(true)),
            .comparison(.duration, .greater, .double(.nan)),
            .comparison(.burstIdentifier, .less, .null),
            .not(.membership(.localIdentifier, [.null])),
        ] {
            let refused = thrownError { () throws(PhotoLibError) in _ = try library.fetchAssetIdentifiers(AssetQuery(predicate: bad)) }
            #expect(refused?.code == .invalidArgument && refused?.reason == .invalidPredicate, "\(bad)")
        }
        var deep = AssetPredicate.comparison(.isFavorite, .equal, .boolean(true))
        for _ in 0..<1000 { deep = .not(deep) }
        let tooDeep = thrownError { () throws(PhotoLibError) in _ = try library.countAssets(AssetQuery(predicate: deep)) }
        #expect(tooDeep?.reason == .invalidPredicate)
    }

    @Test("the largest predicates run: long AND chains, long IN lists, deepest nesting")
    func largestPredicates() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        var generator = Generator(random: SplitMix64(seed: 11))
        let (library, assets) = try makeLibrary(at: temp.library, count: 40, &generator)
        let visible = assets.filter { !$0.isHidden }

        // About 270 comparisons in 4096 bytes. A left-deep chain becomes a balanced tree, so
        // its SQL nests about 10 levels rather than 270.
        var terms: [String] = []
        while (terms + ["pixelWidth!=1"]).joined(separator: "||").utf8.count <= AssetPredicate.maximumLength {
            terms.append("pixelWidth!=\(terms.count % 9 + 1)")
        }
        #expect(terms.count > 250)
        for joiner in ["||", "&&"] {
            let text = terms.joined(separator: joiner)
            let query = try AssetQuery.from(options: FetchOptions(predicate: text))
            let expected = visible.filter { query.predicate!.matches($0) }.count
            #expect(try library.countAssets(query) == expected, "\(joiner)")
            // No width in the library is 1…9: OR and AND both keep every asset.
            #expect(expected == visible.count)
        }
        // A long IN list of identifiers, one bound parameter each.
        var identifiers = assets.map(\.localIdentifier)
        identifiers += (0..<30).map { hex(UInt64($0), 8) + "-FFFF-4000-8000-000000000000" + LocalIdentifier.assetSuffix }
        let inText = "localIdentifier IN {" + identifiers.map { "\"\($0)\"" }.joined(separator: ", ") + "}"
        #expect(inText.utf8.count <= AssetPredicate.maximumLength)
        #expect(try library.countAssets(AssetQuery.from(options: FetchOptions(predicate: inText, includeHiddenAssets: true))) == assets.count)
        // The deepest accepted nesting runs.
        let deepest = String(repeating: "NOT (", count: 32) + "isFavorite == true" + String(repeating: ")", count: 32)
        let expected = visible.filter { $0.isFavorite }.count
        #expect(try library.countAssets(AssetQuery.from(options: FetchOptions(predicate: deepest))) == expected)
    }

    @Test("selective predicates use the asset indexes", arguments: [
        ("creationDate >= 2024-01-01 AND creationDate < 2025-01-01", "asset_by_creation"),
        ("mediaSubtypes == screenshot", "asset_with_subtypes"),
        ("mediaSubtypes IN {screenshot, panorama}", "asset_with_subtypes"),
        ("burstIdentifier == \"b100\"", "asset_bursts"),
        ("localIdentifier IN {\"A/L0/001\", \"B/L0/001\"}", "sqlite_autoindex_asset_1"),
    ])
    func indexFriendly(text: String, index: String) throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        var generator = Generator(random: SplitMix64(seed: 3))
        let (library, _) = try makeLibrary(at: temp.library, count: 500, &generator)
        // Bursts are rare in real libraries; the planner decides from statistics (ANALYZE).
        try library.executeForTesting(
            "UPDATE asset SET burst_identifier = CASE WHEN id % 100 = 0 THEN 'b' || id END; ANALYZE")
        // A connection loads the statistics when it opens: read through a fresh instance's readers.
        let reopened = try PhotoLibrary.open(at: temp.library)
        let query = try AssetQuery.from(options: FetchOptions(predicate: text))
        let plan = try reopened.read { (database) throws(PhotoLibError) -> [String] in
            let plan = try QueryPlan(query, database: database)
            return try database.prepareUncached("EXPLAIN QUERY PLAN SELECT a.local_identifier \(plan.fromWhere) ORDER BY \(plan.orderBy)")
                .rows(plan.values) { $0.text(3) }
        }
        #expect(plan.contains { $0.contains(index) }, "\(text): \(plan)")
    }

    @Test("literal values are bound, never spliced into SQL")
    func valuesAreParameters() throws {
        let predicate = try AssetPredicate(parsing: #"burstIdentifier == "x'); DROP TABLE asset; --" OR localIdentifier IN {"a", "b"} OR creationDate > 2024-01-01"#)
        let sql = try PredicateSQL(predicate)
        #expect(!sql.sql.contains("DROP") && !sql.sql.contains("'") && !sql.sql.contains("2024") && !sql.sql.contains("1704067200"))
        #expect(sql.values == [.text("x'); DROP TABLE asset; --"), .text("a"), .text("b"), .integer(1_704_067_200_000_000)])
        #expect(sql.sql.filter { $0 == "?" }.count == sql.values.count)
    }
}
