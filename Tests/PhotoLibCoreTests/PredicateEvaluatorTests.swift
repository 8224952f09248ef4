import Foundation
import PhotoLibCore
import Testing

/// The evaluation of `text` on `asset`.
private func matches(_ text: String, _ asset: Asset) throws -> Bool {
    try AssetPredicate(parsing: text).matches(asset)
}

/// A photo on 2024-01-31T10:00:00.25Z with every key set to something testable.
private let photo = Asset(
    localIdentifier: "B0000000-0000-0000-0000-000000000000/L0/001", mediaType: .image,
    mediaSubtypes: [.photoScreenshot, .photoHDR], pixelWidth: 4032, pixelHeight: 3024,
    creationDate: Date(timeIntervalSince1970: 1_706_695_200.25), modificationDate: Date(timeIntervalSince1970: 1_706_695_300),
    isFavorite: true, isHidden: false, duration: 0, burstIdentifier: "burst-1")

/// A hidden video without subtypes or burst.
private let clip = Asset(
    localIdentifier: "A0000000-0000-0000-0000-000000000000/L0/001", mediaType: .video,
    pixelWidth: 1920, pixelHeight: 1080,
    creationDate: Date(timeIntervalSince1970: 1_600_000_000), modificationDate: Date(timeIntervalSince1970: 1_600_000_000),
    isFavorite: false, isHidden: true, duration: 12.5)

@Suite("Predicate evaluator: the reference semantics")
struct PredicateEvaluatorTests {
    @Test("every key and operator, true and false")
    func everyKeyAndOperator() throws {
        // (text, matches photo, matches clip)
        let cases: [(String, Bool, Bool)] = [
            ("mediaType == image", true, false),
            ("mediaType != image", false, true),
            ("mediaType IN {video, audio}", false, true),
            ("mediaType IN {}", false, false),
            ("mediaSubtypes == screenshot", true, false),
            ("mediaSubtypes == hdr", true, false),
            ("mediaSubtypes == panorama", false, false),
            ("mediaSubtypes != screenshot", false, true),
            ("mediaSubtypes != panorama", true, true),
            ("mediaSubtypes IN {panorama, hdr}", true, false),
            ("mediaSubtypes IN {panorama, live}", false, false),
            ("NOT mediaSubtypes IN {panorama, hdr, screenshot, live, depthEffect, streamed, highFrameRate, timelapse}", false, true),
            ("creationDate == 2024-01-31T10:00:00.25Z", true, false),
            ("creationDate == 2024-01-31T10:00:00.250001Z", false, false),
            ("creationDate != 2024-01-31T10:00:00.25Z", false, true),
            ("creationDate < 2024-01-31T10:00:00.25Z", false, true),
            ("creationDate <= 2024-01-31T10:00:00.25Z", true, true),
            ("creationDate > 2024-01-31T10:00:00.249999Z", true, false),
            ("creationDate >= 2024-01-31T12:00:00.25+02:00", true, false),
            ("creationDate >= 2024-01-01 AND creationDate < 2025-01-01", true, false),
            ("creationDate IN {2020-09-13T12:26:40Z, 1999-01-01}", false, true),
            ("modificationDate > 2024-01-31T10:01:39Z", true, false),
            ("modificationDate <= 2020-09-13T12:26:40Z", false, true),
            ("isFavorite == true", true, false),
            ("isFavorite != true", false, true),
            ("isHidden == true", false, true),
            ("NOT isHidden == true", true, false),
            ("isHidden IN {false}", true, false),
            ("pixelWidth >= 4000", true, false),
            ("pixelWidth < 4032", false, true),
            ("pixelWidth <= 1920", false, true),
            ("pixelHeight == 3024", true, false),
            ("pixelHeight != 3024", false, true),
            ("pixelHeight > 1080", true, false),
            ("pixelHeight IN {1080, 7}", false, true),
            ("duration > 1.5", false, true),
            ("duration == 0", true, false),
            ("duration == 12.5", false, true),
            ("duration >= 12.5", false, true),
            ("duration < 12.5", true, false),
            ("duration IN {0.0, 1}", true, false),
            ("burstIdentifier == nil", false, true),
            ("burstIdentifier != nil", true, false),
            ("burstIdentifier == \"burst-1\"", true, false),
            ("burstIdentifier != \"burst-1\"", false, true),
            ("burstIdentifier != \"other\"", true, true),
            // nil has no order: both a comparison and its NOT-free converse are false…
            ("burstIdentifier < \"zzz\"", true, false),
            ("burstIdentifier >= \"zzz\"", false, false),
            // …and NOT is the exact complement (two-valued logic).
            ("NOT burstIdentifier < \"zzz\"", false, true),
            ("burstIdentifier > \"burst-0\"", true, false),
            ("burstIdentifier <= \"burst-1\"", true, false),
            ("burstIdentifier IN {\"x\", \"burst-1\"}", true, false),
            ("burstIdentifier IN {\"x\", nil}", false, true),
            ("burstIdentifier IN {}", false, false),
            ("localIdentifier == \"A0000000-0000-0000-0000-000000000000/L0/001\"", false, true),
            ("localIdentifier != \"A0000000-0000-0000-0000-000000000000/L0/001\"", true, false),
            ("localIdentifier < \"B\"", false, true),
            ("localIdentifier > \"B\"", true, false),
            ("localIdentifier IN {\"B0000000-0000-0000-0000-000000000000/L0/001\", \"nope\"}", true, false),
        ]
        for (text, photoMatches, clipMatches) in cases {
            #expect(try matches(text, photo) == photoMatches, "\(text) on the photo")
            #expect(try matches(text, clip) == clipMatches, "\(text) on the clip")
        }
    }

    @Test("AND, OR, NOT and precedence evaluate as boolean algebra")
    func logic() throws {
        #expect(try matches("mediaType == video OR isFavorite == true AND pixelWidth > 5000", clip))
        #expect(try !matches("(mediaType == video OR isFavorite == true) AND pixelWidth > 5000", clip))
        #expect(try matches("NOT mediaType == image AND isHidden == true", clip))
        #expect(try !matches("NOT (mediaType == video AND isHidden == true)", clip))
        #expect(try matches("NOT NOT isHidden == true", clip))
        #expect(try matches("mediaType == image AND isFavorite == true", photo))
        // Every combination of three atoms against the truth table.
        let atoms = ["isFavorite == true", "mediaType == video", "pixelWidth > 2000"]
        for asset in [photo, clip] {
            let values = try atoms.map { try matches($0, asset) }
            #expect(try matches("\(atoms[0]) OR \(atoms[1]) AND \(atoms[2])", asset) == (values[0] || (values[1] && values[2])))
            #expect(try matches("NOT \(atoms[0]) AND \(atoms[1]) OR NOT \(atoms[2])", asset) == ((!values[0] && values[1]) || !values[2]))
            #expect(try matches("NOT (\(atoms[0]) OR \(atoms[1])) AND \(atoms[2])", asset) == (!(values[0] || values[1]) && values[2]))
        }
    }

    @Test("dates compare at microsecond precision, rounding the asset's date as the store does")
    func datePrecision() throws {
        var asset = photo
        asset.creationDate = Date(timeIntervalSince1970: 1_706_695_200.000_000_2)
        #expect(try matches("creationDate == 2024-01-31T10:00:00Z", asset))
        asset.creationDate = Date(timeIntervalSince1970: 1_706_695_200.000_000_8)
        #expect(try matches("creationDate == 2024-01-31T10:00:00.000001Z", asset))
        #expect(try matches("creationDate > 2024-01-31T10:00:00Z", asset))
        // A date before 1970 and a date-only literal at midnight UTC.
        asset.creationDate = Date(timeIntervalSince1970: -86_400)
        #expect(try matches("creationDate == 1969-12-31", asset))
        #expect(try matches("creationDate == 1969-12-31T01:00:00+01:00", asset))
    }

    @Test("strings compare byte by byte in UTF-8, without normalization or case folding")
    func stringsAreBinary() throws {
        var asset = photo
        asset.burstIdentifier = "caf\u{E9}"
        #expect(try matches("burstIdentifier == \"café\"", asset))
        #expect(try !matches("burstIdentifier == \"cafe\u{301}\"", asset))
        #expect(try matches("burstIdentifier != \"cafe\u{301}\"", asset))
        #expect(try !matches("burstIdentifier == \"CAFÉ\"", asset))
        // UTF-8 byte order: "z" (0x7A) < "é" (0xC3 0xA9) < "東" (0xE6…) < "👍" (0xF0…).
        asset.burstIdentifier = "\u{E9}"
        #expect(try matches("burstIdentifier > \"z\"", asset))
        #expect(try matches("burstIdentifier < \"東\"", asset))
        asset.burstIdentifier = "\u{FF5E}"  // U+FF5E (EF BD 9E) sorts before U+1F44D (F0 9F 91 8D) in UTF-8 but not in UTF-16
        #expect(try matches("burstIdentifier < \"👍\"", asset))
        asset.burstIdentifier = "quote\"and\\slash"
        #expect(try matches(#"burstIdentifier == "quote\"and\\slash""#, asset))
    }

    @Test("subtype tests look at single bits; a hand-built mask means all of its bits")
    func subtypeBits() throws {
        var asset = photo
        asset.mediaSubtypes = [.photoLive, .photoDepthEffect, .videoTimelapse]
        for (name, value) in MediaSubtypes.named {
            #expect(try matches("mediaSubtypes == \(name)", asset) == asset.mediaSubtypes.contains(value), "\(name)")
            #expect(try matches("mediaSubtypes != \(name)", asset) == !asset.mediaSubtypes.contains(value), "\(name)")
        }
        #expect(AssetPredicate.comparison(.mediaSubtypes, .equal, .mediaSubtypes([.photoLive, .photoDepthEffect])).matches(asset))
        #expect(!AssetPredicate.comparison(.mediaSubtypes, .equal, .mediaSubtypes([.photoLive, .photoHDR])).matches(asset))
        #expect(AssetPredicate.comparison(.mediaSubtypes, .notEqual, .mediaSubtypes([.photoLive, .photoHDR])).matches(asset))
    }

    @Test("hand-built comparisons the parser would refuse are false")
    func illTyped() {
        let refused: [AssetPredicate] = [
            .comparison(.pixelWidth, .equal, .string("4032")),
            .comparison(.isFavorite, .less, .boolean(true)),
            .comparison(.mediaType, .greater, .mediaType(.audio)),
            .comparison(.localIdentifier, .equal, .null),
            .comparison(.burstIdentifier, .less, .null),
            .membership(.duration, [.integer(0)]),
        ]
        for predicate in refused {
            #expect(!predicate.matches(photo), "\(predicate)")
        }
    }
}
