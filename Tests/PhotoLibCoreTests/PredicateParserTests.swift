import Foundation
import PhotoLibCore
import Testing

/// The parse error of `text`, or nil when it parses.
private func parseError(_ text: String) -> PhotoLibError? {
    do {
        _ = try AssetPredicate(parsing: text)
        return nil
    } catch {
        return error
    }
}

/// Seconds since 1970 as a date value.
private func date(_ seconds: Int64, micros: Int64 = 0) -> PredicateValue {
    .date(microsecondsSince1970: seconds * 1_000_000 + micros)
}

private let favorite = AssetPredicate.comparison(.isFavorite, .equal, .boolean(true))
private let video = AssetPredicate.comparison(.mediaType, .equal, .mediaType(.video))
private let wide = AssetPredicate.comparison(.pixelWidth, .greater, .integer(100))

@Suite("AssetPredicate parser: grammar, literals, errors and limits")
struct PredicateParserTests {
    @Test("every key with every operator it accepts")
    func everyKeyAndOperator() throws {
        let cases: [(String, AssetPredicate)] = [
            ("mediaType == image", .comparison(.mediaType, .equal, .mediaType(.image))),
            ("mediaType != video", .comparison(.mediaType, .notEqual, .mediaType(.video))),
            ("mediaType IN {image, audio, unknown}", .membership(.mediaType, [.mediaType(.image), .mediaType(.audio), .mediaType(.unknown)])),
            ("mediaSubtypes == screenshot", .comparison(.mediaSubtypes, .equal, .mediaSubtypes(.photoScreenshot))),
            ("mediaSubtypes != live", .comparison(.mediaSubtypes, .notEqual, .mediaSubtypes(.photoLive))),
            ("mediaSubtypes IN {panorama, hdr, depthEffect, streamed, highFrameRate, timelapse}",
             .membership(.mediaSubtypes, [.photoPanorama, .photoHDR, .photoDepthEffect, .videoStreamed, .videoHighFrameRate, .videoTimelapse].map { .mediaSubtypes($0) })),
            ("creationDate < 2024-01-31", .comparison(.creationDate, .less, date(1_706_659_200))),
            ("creationDate <= 2024-01-31T10:00:00Z", .comparison(.creationDate, .lessOrEqual, date(1_706_659_200 + 36_000))),
            ("modificationDate > 2024-01-31T10:00:00+02:00", .comparison(.modificationDate, .greater, date(1_706_659_200 + 28_800))),
            ("modificationDate >= 2024-01-31T10:00:00.5-01:30", .comparison(.modificationDate, .greaterOrEqual, date(1_706_659_200 + 36_000 + 5_400, micros: 500_000))),
            ("creationDate IN {1970-01-01, 1969-12-31T23:59:59.999999Z}", .membership(.creationDate, [date(0), date(-1, micros: 999_999)])),
            ("isFavorite == true", favorite),
            ("isHidden != false", .comparison(.isHidden, .notEqual, .boolean(false))),
            ("isHidden IN {true, false}", .membership(.isHidden, [.boolean(true), .boolean(false)])),
            ("pixelWidth >= 4000", .comparison(.pixelWidth, .greaterOrEqual, .integer(4000))),
            ("pixelHeight < -1", .comparison(.pixelHeight, .less, .integer(-1))),
            ("pixelHeight IN {1, 2}", .membership(.pixelHeight, [.integer(1), .integer(2)])),
            ("duration > 1.5", .comparison(.duration, .greater, .double(1.5))),
            ("duration <= 2", .comparison(.duration, .lessOrEqual, .double(2))),
            ("duration == 1e-3", .comparison(.duration, .equal, .double(0.001))),
            ("duration != 2.5E+2", .comparison(.duration, .notEqual, .double(250))),
            ("burstIdentifier == nil", .comparison(.burstIdentifier, .equal, .null)),
            ("burstIdentifier != nil", .comparison(.burstIdentifier, .notEqual, .null)),
            ("burstIdentifier == \"abc\"", .comparison(.burstIdentifier, .equal, .string("abc"))),
            ("burstIdentifier < \"m\"", .comparison(.burstIdentifier, .less, .string("m"))),
            ("burstIdentifier IN {\"a\", nil}", .membership(.burstIdentifier, [.string("a"), .null])),
            ("localIdentifier IN {\"A/L0/001\", \"B/L0/001\"}", .membership(.localIdentifier, [.string("A/L0/001"), .string("B/L0/001")])),
            ("localIdentifier >= \"A\"", .comparison(.localIdentifier, .greaterOrEqual, .string("A"))),
            ("pixelWidth IN {}", .membership(.pixelWidth, [])),
        ]
        for (text, expected) in cases {
            #expect(try AssetPredicate(parsing: text) == expected, "\(text)")
            // Printing gives text that parses back to the same tree.
            #expect(try AssetPredicate(parsing: expected.description) == expected, "\(expected.description)")
        }
        // Every key of the catalogue appears above.
        let keys = Set(cases.compactMap { (_, predicate) -> PredicateKey? in
            switch predicate {
            case .comparison(let key, _, _), .membership(let key, _): return key
            default: return nil
            }
        })
        #expect(keys == Set(PredicateKey.allCases))
    }

    @Test("keywords are case-insensitive and have NSPredicate spellings; keys are exact")
    func keywordSpellings() throws {
        let canonical = try AssetPredicate(parsing: "isFavorite == true AND NOT mediaType == video OR pixelWidth > 100")
        #expect(canonical == .or(.and(favorite, .not(video)), wide))
        for text in [
            "isFavorite = TRUE and not mediaType = video or pixelWidth > 100",
            "isFavorite==yes&&!mediaType==video||pixelWidth>100",
            "isFavorite == Yes And Not mediaType == video Or pixelWidth > 100",
            "\tisFavorite\n==\r\ntrue  AND NOT mediaType == video OR pixelWidth > 100 ",
        ] {
            #expect(try AssetPredicate(parsing: text) == canonical, "\(text)")
        }
        #expect(try AssetPredicate(parsing: "isHidden == NO") == .comparison(.isHidden, .equal, .boolean(false)))
        #expect(try AssetPredicate(parsing: "isHidden <> FALSE") == .comparison(.isHidden, .notEqual, .boolean(false)))
        #expect(try AssetPredicate(parsing: "burstIdentifier == NULL") == .comparison(.burstIdentifier, .equal, .null))
        #expect(try AssetPredicate(parsing: "burstIdentifier in {Nil}") == .membership(.burstIdentifier, [.null]))
        let wrongCase = parseError("IsFavorite == true")
        #expect(wrongCase?.message.hasPrefix("at column 1: unknown key 'IsFavorite' (keys are case-sensitive: did you mean 'isFavorite'?)") == true)
        #expect(parseError("mediaType == Image")?.message.hasPrefix("at column 14: unknown media type 'Image'") == true)
    }

    @Test("NOT binds tighter than AND, AND tighter than OR; both are left-associative")
    func precedence() throws {
        #expect(try AssetPredicate(parsing: "isFavorite == true OR mediaType == video AND pixelWidth > 100") == .or(favorite, .and(video, wide)))
        #expect(try AssetPredicate(parsing: "isFavorite == true AND mediaType == video OR pixelWidth > 100") == .or(.and(favorite, video), wide))
        #expect(try AssetPredicate(parsing: "NOT isFavorite == true AND mediaType == video") == .and(.not(favorite), video))
        #expect(try AssetPredicate(parsing: "NOT (isFavorite == true AND mediaType == video)") == .not(.and(favorite, video)))
        #expect(try AssetPredicate(parsing: "NOT NOT isFavorite == true") == .not(.not(favorite)))
        #expect(try AssetPredicate(parsing: "(isFavorite == true OR mediaType == video) AND pixelWidth > 100") == .and(.or(favorite, video), wide))
        #expect(try AssetPredicate(parsing: "isFavorite == true AND mediaType == video AND pixelWidth > 100") == .and(.and(favorite, video), wide))
        #expect(try AssetPredicate(parsing: "isFavorite == true AND (mediaType == video AND pixelWidth > 100)") == .and(favorite, .and(video, wide)))
        #expect(try AssetPredicate(parsing: "isFavorite == true OR mediaType == video OR pixelWidth > 100") == .or(.or(favorite, video), wide))
        #expect(try AssetPredicate(parsing: "((((isFavorite == true))))") == favorite)
        // The printer puts back exactly the parentheses the tree needs.
        #expect(AssetPredicate.and(favorite, .or(video, wide)).description == "isFavorite == true AND (mediaType == video OR pixelWidth > 100)")
        #expect(AssetPredicate.or(favorite, .or(video, wide)).description == "isFavorite == true OR (mediaType == video OR pixelWidth > 100)")
        #expect(AssetPredicate.not(.or(video, wide)).description == "NOT (mediaType == video OR pixelWidth > 100)")
        #expect(AssetPredicate.or(.and(favorite, video), .not(wide)).description == "isFavorite == true AND mediaType == video OR NOT pixelWidth > 100")
    }

    @Test("ISO 8601 dates: date only is midnight UTC, zones, fractions, calendar checks")
    func dates() throws {
        func micros(_ text: String) throws -> Int64? {
            guard case .comparison(_, _, .date(let value)) = try AssetPredicate(parsing: "creationDate == " + text) else { return nil }
            return value
        }
        #expect(try micros("2024-01-31") == 1_706_659_200_000_000)
        #expect(try micros("2024-01-31T00:00:00Z") == 1_706_659_200_000_000)
        #expect(try micros("2024-01-31t00:00z") == 1_706_659_200_000_000)
        #expect(try micros("2024-01-31T10:00") == 1_706_695_200_000_000)
        #expect(try micros("2024-01-31T10:00:00+02:00") == 1_706_688_000_000_000)
        #expect(try micros("2024-01-31T10:00:00-00:30") == 1_706_697_000_000_000)
        #expect(try micros("2024-01-31T10:00:00.1Z") == 1_706_695_200_100_000)
        #expect(try micros("2024-01-31T10:00:00.123456Z") == 1_706_695_200_123_456)
        #expect(try micros("2024-02-29") == 1_709_164_800_000_000)
        #expect(try micros("2000-02-29") == 951_782_400_000_000)
        #expect(try micros("1969-12-31T23:59:59.999999Z") == -1)
        #expect(try micros("0001-01-01") == PredicateDate.minimum)
        #expect(try micros("9999-12-31T23:59:59.999999Z") == PredicateDate.maximum)
        // The printer gives the canonical UTC text.
        #expect(PredicateValue.date(microsecondsSince1970: 1_706_688_000_000_000).description == "2024-01-31T08:00:00Z")
        #expect(PredicateValue.date(microsecondsSince1970: 1_706_695_200_120_000).description == "2024-01-31T10:00:00.12Z")
        #expect(PredicateValue.date(microsecondsSince1970: -1).description == "1969-12-31T23:59:59.999999Z")
        #expect(PredicateValue.date(microsecondsSince1970: 0).description == "1970-01-01")
        #expect(PredicateValue.date(Date(timeIntervalSince1970: 1.0000004)) == .date(microsecondsSince1970: 1_000_000))

        let invalid: [(String, String)] = [
            ("2023-02-29", "day 29 does not exist in 2023-02"),
            ("1900-02-29", "day 29 does not exist in 1900-02"),
            ("2024-04-31", "day 31 does not exist in 2024-04"),
            ("2024-13-01", "the month must be 01…12"),
            ("2024-00-10", "the month must be 01…12"),
            ("0000-01-01", "the year must be 0001…9999"),
            ("2024-1-01", "expected 2 digits for the month"),
            ("2024-01-31T24:00", "the hour must be 00…23"),
            ("2024-01-31T10:60", "the minute must be 00…59"),
            ("2024-01-31T10:00:60", "the second must be 00…59"),
            ("2024-01-31T10", "expected ':' between hour and minute"),
            ("2024-01-31T10:00:00.1234567Z", "at most 6 fractional digits"),
            ("2024-01-31T10:00:00.Z", "expected digits after '.'"),
            ("2024-01-31T10:00:00+0200", "expected ':' in the zone offset"),
            ("2024-01-31Z", "unexpected 'Z' after the day"),
            ("2024-01-31T10:00:00Z+01:00", "unexpected '+' after the zone"),
            ("0001-01-01T00:00:00+00:01", "the instant falls outside the years 0001…9999"),
        ]
        for (text, why) in invalid {
            let error = parseError("creationDate == " + text)
            #expect(error?.message.hasPrefix("at column 17: invalid date '\(text)': \(why)") == true, "\(text): \(error?.message ?? "parsed")")
        }
    }

    @Test("numbers: integers for pixel sizes, decimals and exponents for duration, ranges")
    func numbers() throws {
        #expect(try AssetPredicate(parsing: "pixelWidth == -0") == .comparison(.pixelWidth, .equal, .integer(0)))
        #expect(try AssetPredicate(parsing: "pixelWidth == 9223372036854775807") == .comparison(.pixelWidth, .equal, .integer(.max)))
        #expect(try AssetPredicate(parsing: "duration < 0.000001") == .comparison(.duration, .less, .double(0.000001)))
        #expect(parseError("pixelWidth == 9223372036854775808")?.message == "at column 15: integer 9223372036854775808 is out of range for pixelWidth")
        #expect(parseError("pixelWidth > 1.5")?.message == "at column 14: expected an integer for pixelWidth, found number 1.5")
        #expect(parseError("pixelWidth > 1e3")?.message == "at column 14: expected an integer for pixelWidth, found number 1e3")
        #expect(parseError("duration > 1e400")?.message == "at column 12: number 1e400 is out of range for duration")
        #expect(parseError("duration > 1.5.2")?.message.hasPrefix("at column 12: malformed number '1.5.2'") == true)
        #expect(parseError("duration > 12abc")?.message.hasPrefix("at column 12: malformed number '12abc'") == true)
        // Doubles print in Swift's shortest round-trip form, exponent included.
        for value in [1.5, 0.1, 1e-7, 1e21, 123_456.789, -2.25, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude] {
            let predicate = AssetPredicate.comparison(.duration, .greater, .double(value))
            #expect(try AssetPredicate(parsing: predicate.description) == predicate, "\(predicate)")
        }
    }

    @Test("strings: escapes, Unicode kept as written, errors")
    func strings() throws {
        let cases: [(String, String)] = [
            (#""""#, ""),
            (#""a\"b""#, "a\"b"),
            (#""back\\slash""#, "back\\slash"),
            (#""café 東京 👍🏽""#, "café 東京 👍🏽"),
            ("\"e\u{301}\"", "e\u{301}"),
            ("\"line\nbreak\"", "line\nbreak"),
        ]
        for (literal, value) in cases {
            let parsed = try AssetPredicate(parsing: "burstIdentifier == " + literal)
            #expect(parsed == .comparison(.burstIdentifier, .equal, .string(value)))
            // Decomposed and precomposed é stay distinct, as they are in the store.
            if value == "e\u{301}" { #expect(parsed != .comparison(.burstIdentifier, .equal, .string("é"))) }
            #expect(try AssetPredicate(parsing: parsed.description) == parsed)
        }
        #expect(parseError(#"burstIdentifier == "abc"#)?.message == "at column 20: unterminated string: expected a closing '\"'")
        #expect(parseError(#"burstIdentifier == "a\nb""#)?.message == #"at column 22: invalid escape '\n' in a string: only \" and \\ are allowed"#)
        #expect(parseError("burstIdentifier == \"a\\")?.message.hasPrefix("at column 22: invalid escape") == true)
        #expect(parseError("burstIdentifier == \"a\u{0}\"")?.message == "at column 22: NUL characters are not allowed in a predicate")
        // Columns count Unicode scalars: the emoji with its skin tone is two.
        #expect(parseError("burstIdentifier == \"👍🏽\" AND ?")?.message.hasPrefix("at column 29: unexpected character '?'") == true)
    }

    @Test("every error names its column and what was expected", arguments: [
        ("pixelWidth == \"x\"", "at column 15: expected an integer for pixelWidth, found string \"x\""),
        ("foo == 1", "at column 1: unknown key 'foo'; keys are: mediaType, mediaSubtypes, creationDate, modificationDate, isFavorite, isHidden, pixelWidth, pixelHeight, duration, burstIdentifier, localIdentifier"),
        ("", "at column 1: expected a key, NOT or '(', found end of input"),
        ("   ", "at column 4: expected a key, NOT or '(', found end of input"),
        ("isFavorite", "at column 11: expected an operator (==, !=, <, <=, >, >=, IN) after isFavorite, found end of input"),
        ("isFavorite true", "at column 12: expected an operator (==, !=, <, <=, >, >=, IN) after isFavorite, found 'true'"),
        ("isFavorite ==", "at column 14: expected true or false for isFavorite, found end of input"),
        ("isFavorite == 1", "at column 15: expected true or false for isFavorite, found number 1"),
        ("isFavorite < true", "at column 12: operator < does not apply to isFavorite, which takes true or false; use ==, != or IN"),
        ("mediaType >= image", "at column 11: operator >= does not apply to mediaType"),
        ("mediaSubtypes > hdr", "at column 15: operator > does not apply to mediaSubtypes"),
        ("mediaType == \"image\"", "at column 14: expected a media type (unknown, image, video, audio) for mediaType, found string \"image\""),
        ("mediaType == screenshot", "at column 14: unknown media type 'screenshot'; media types are: unknown, image, video, audio"),
        ("mediaSubtypes == image", "at column 18: unknown media subtype 'image'; media subtypes are: panorama, hdr, screenshot, live, depthEffect, streamed, highFrameRate, timelapse"),
        ("creationDate > 2024", "at column 16: expected a date (ISO 8601, e.g. 2024-01-31 or 2024-01-31T10:00:00Z) for creationDate, found number 2024"),
        ("creationDate > \"2024-01-01\"", "at column 16: expected a date (ISO 8601"),
        ("duration > true", "at column 12: expected a number for duration, found 'true'"),
        ("localIdentifier == nil", "at column 20: expected a string in double quotes for localIdentifier, found 'nil'"),
        ("burstIdentifier < nil", "at column 19: nil can only be compared with == or !=, not <"),
        ("burstIdentifier == abc", "at column 20: expected a string in double quotes or nil for burstIdentifier, found 'abc'"),
        ("isFavorite == true AND", "at column 23: expected a key, NOT or '(', found end of input"),
        ("isFavorite == true isHidden == true", "at column 20: expected AND, OR or the end of the predicate, found 'isHidden'"),
        ("isFavorite == true)", "at column 19: expected AND, OR or the end of the predicate (this ')' closes nothing), found ')'"),
        ("(isFavorite == true", "at column 20: expected AND, OR or ')' to close the '(' at column 1, found end of input"),
        ("()", "at column 2: expected a key, NOT or '(', found ')'"),
        ("NOT", "at column 4: expected a key, NOT or '(', found end of input"),
        ("AND isFavorite == true", "at column 1: expected a key, NOT or '(', found 'AND'"),
        ("pixelWidth IN 1", "at column 15: expected '{' to open the IN list of pixelWidth, found number 1"),
        ("pixelWidth IN {1,}", "at column 18: expected an integer for pixelWidth, found '}'"),
        ("pixelWidth IN {1 2}", "at column 18: expected ',' or '}' in the IN list of pixelWidth, found number 2"),
        ("pixelWidth IN {1", "at column 17: expected ',' or '}' in the IN list of pixelWidth, found end of input"),
        ("pixelWidth IN {\"a\"}", "at column 16: expected an integer for pixelWidth, found string \"a\""),
        ("isFavorite == true & isHidden == true", "at column 20: expected '&&', found a single '&'"),
        ("isFavorite == true | isHidden == true", "at column 20: expected '||', found a single '|'"),
        ("isFavorite == true; DROP TABLE asset", "at column 19: unexpected character ';'"),
        ("pixelWidth == 1 AND isFavorite == @", "at column 35: unexpected character '@'"),
    ])
    func errors(text: String, message: String) {
        let error = parseError(text)
        #expect(error?.code == .invalidArgument)
        #expect(error?.reason == .invalidPredicate)
        #expect(error?.message.hasPrefix(message) == true, "\(text): \(error?.message ?? "parsed")")
    }

    @Test("the examples of docs/PREDICATES.md parse and print back", arguments: [
        "mediaType == image AND isFavorite == true",
        "creationDate >= 2024-01-01 AND creationDate < 2025-01-01",
        "creationDate > 2024-01-31T10:00:00+02:00",
        "mediaSubtypes IN {screenshot, panorama}",
        "mediaSubtypes == live AND NOT mediaSubtypes == screenshot",
        "NOT isHidden == true",
        "pixelWidth >= 4000 OR pixelHeight >= 4000",
        "mediaType == video AND duration > 1.5",
        "burstIdentifier != nil",
        "burstIdentifier == \"8C1B4B0E-3B6B-4E4E-9C39-5B9B6A0E0F1A\"",
        "localIdentifier IN {\"1F2E3D4C-0000-0000-0000-000000000001/L0/001\", \"1F2E3D4C-0000-0000-0000-000000000002/L0/001\"}",
        "(mediaType == image OR mediaType == video) && !isFavorite == false",
    ])
    func documentedExamples(text: String) throws {
        let predicate = try AssetPredicate(parsing: text)
        #expect(try AssetPredicate(parsing: predicate.description) == predicate)
    }

    @Test("nesting deeper than 64 levels is refused; 64 is accepted")
    func depthLimit() throws {
        #expect(AssetPredicate.maximumDepth == 64)
        let leaf = "isFavorite == true"
        let deepest = String(repeating: "(", count: 64) + leaf + String(repeating: ")", count: 64)
        #expect(try AssetPredicate(parsing: deepest) == favorite)
        let tooDeep = String(repeating: "(", count: 65) + leaf + String(repeating: ")", count: 65)
        #expect(parseError(tooDeep)?.message == "at column 65: the predicate nests deeper than 64 levels (each '(' and NOT opens one); simplify it")
        let nots = String(repeating: "NOT ", count: 64) + leaf
        var expected = favorite
        for _ in 0..<64 { expected = .not(expected) }
        #expect(try AssetPredicate(parsing: nots) == expected)
        #expect(parseError("NOT " + nots)?.message.hasPrefix("at column 257: the predicate nests deeper than 64 levels") == true)
        // Parentheses and NOT count together.
        let mixed = String(repeating: "NOT (", count: 33) + leaf + String(repeating: ")", count: 33)
        #expect(parseError(mixed)?.message.hasPrefix("at column 161: the predicate nests deeper") == true)
        // Closed levels are released: many shallow groups in a row are fine.
        let wide = Array(repeating: "(" + leaf + ")", count: 100).joined(separator: " OR ")
        #expect(throws: Never.self) { try AssetPredicate(parsing: wide) }
        // A pathological input fails fast with the depth error, not a stack overflow.
        #expect(parseError(String(repeating: "(", count: 4000))?.message.hasPrefix("at column 65:") == true)
    }

    @Test("text longer than 4096 UTF-8 bytes is refused; 4096 is accepted")
    func lengthLimit() throws {
        #expect(AssetPredicate.maximumLength == 4096)
        let base = "burstIdentifier == \"\""
        let fits = "burstIdentifier == \"" + String(repeating: "a", count: 4096 - base.utf8.count) + "\""
        #expect(fits.utf8.count == 4096)
        #expect(throws: Never.self) { try AssetPredicate(parsing: fits) }
        let tooLong = "burstIdentifier == \"" + String(repeating: "a", count: 4097 - base.utf8.count) + "\""
        let error = parseError(tooLong)
        #expect(error?.message == "predicate is 4097 UTF-8 bytes long; the limit is 4096 bytes (use IN lists or several fetches)")
        #expect(error?.reason == .invalidPredicate)
        // Bytes, not characters: 1366 three-byte characters are 4098 bytes.
        let wide = "burstIdentifier == \"" + String(repeating: "東", count: 1360) + "\""
        #expect(wide.count < 4096 && wide.utf8.count > 4096)
        #expect(parseError(wide)?.message.hasPrefix("predicate is \(wide.utf8.count) UTF-8 bytes long") == true)
    }
}
