import PhotoLibCore
import XCTest

@testable import PhotoLibWire

/// `Message.decoded` (a reader of its own, `ProtoReader`) and the generated
/// `init(decoding:)` agree on `bytes`: the same value, or both refuse with the same message.
/// Compared as their encodings too: a damaged double may be a NaN, never equal to itself.
func assertDecodersAgree<Message: WireMessage & Equatable>(
    _: Message.Type, _ bytes: [UInt8], _ what: String, file: StaticString = #filePath, line: UInt = #line
) {
    let generated = Result { () throws(PhotoLibError) in try Message(decoding: bytes) }
    let decoded = Result { () throws(PhotoLibError) in try Message.decoded(bytes) }
    switch (generated, decoded) {
    case (.success(let a), .success(let b)): XCTAssertTrue(a == b || a.encoded() == b.encoded(), "\(what): \(a) != \(b)", file: file, line: line)
    case (.failure(let a), .failure(let b)): XCTAssertEqual(a.message, b.message, what, file: file, line: line)
    default: XCTFail("\(what): generated \(generated), decoded \(decoded)", file: file, line: line)
    }
}

/// ``assertDecodersAgree(_:_:_:file:line:)`` on every cut of `bytes` and on `rounds` copies
/// with one to three bytes replaced at random.
func assertDecodersAgreeOnCutAndDamaged<Message: WireMessage & Equatable>(
    _ type: Message.Type, _ bytes: [UInt8], rounds: Int, _ what: String, file: StaticString = #filePath, line: UInt = #line
) {
    var generator = SystemRandomNumberGenerator()
    for cut in 0..<bytes.count { assertDecodersAgree(type, Array(bytes.prefix(cut)), "\(what) cut at \(cut)", file: file, line: line) }
    for round in 0..<rounds {
        var damaged = bytes
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
        }
        assertDecodersAgree(type, damaged, "\(what) damaged round \(round)", file: file, line: line)
    }
}

/// A length-delimited field `number` holding `body` (shorter than 128 bytes), for hand-built
/// messages.
func field(_ number: UInt8, _ body: [UInt8]) -> [UInt8] {
    [number << 3 | 2, UInt8(body.count)] + body
}
