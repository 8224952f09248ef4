import Foundation
import Testing

@testable import PhotoLibStore

/// The JSON arrays bound to `json_each(?)` decode to exactly the strings given.
@Suite("JSONText: identifier lists as JSON")
struct JSONTextTests {
    @Test("quotes, backslashes, control characters and non-ASCII round-trip through a JSON parser")
    func roundTrip() throws {
        let strings = ["A1B2/L0/001", "", "quote \" inside", "back\\slash", "tab\tnew\nline\u{01}", "café ☕︎ 🎞️", "]", ","]
        let text = JSONText.array(strings)
        let decoded = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String]
        #expect(decoded == strings, "\(text)")
        #expect(JSONText.array([]) == "[]")
        #expect(JSONText.array(["a", "b"]) == #"["a","b"]"#)
    }
}
