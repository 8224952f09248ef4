import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

@Suite("Store errors keep their cause")
struct StoreErrorTests {
    @Test("a damaged database file: dataLoss naming SQLite's code and message, kept as the cause")
    func damagedDatabase() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        _ = try PhotoLibrary.open(at: temp.library)
        // Overwrite the database with text: SQLite answers SQLITE_NOTADB (26).
        try Data(String(repeating: "not a database ", count: 400).utf8).write(to: URL(fileURLWithPath: temp.library + "/library.sqlite"))
        let error = thrownError { () throws(PhotoLibError) in _ = try PhotoLibrary.open(at: temp.library) }
        #expect(error?.code == .dataLoss, "\(String(describing: error))")
        #expect(error?.cause?.domain == .sqlite)
        #expect(error?.cause?.code == 26)
        #expect(error?.message.contains("26") == true && error?.message.contains(error?.cause?.message ?? "?") == true, "\(String(describing: error))")
    }

    @Test("a library path that is a file: the errno is the cause")
    func libraryIsAFile() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let file = temp.library + "-file"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: file))
        let error = thrownError { () throws(PhotoLibError) in _ = try PhotoLibrary.open(at: file) }
        #expect(error != nil)
        #expect(error?.message.contains(file) == true, "\(String(describing: error))")
        #expect(error?.cause?.domain == .posix || error?.cause?.domain == .sqlite, "\(String(describing: error))")
    }
}
