import Foundation
import PhotoLibClient
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import XCTest

/// `PHCollectionList.fetchCollectionLists` through the wire: the children of a folder, and an
/// unknown folder answered like every unknown identifier (docs/PROTOCOL.md 15).
final class CollectionListTests: XCTestCase {
    func testTheChildrenOfAFolderAndAnUnknownFolder() async throws {
        let server = try InProcessServer()
        addTeardownBlock { await server.tearDown() }
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer { library.close() }
        var outer: ObjectPlaceholder?
        var inner: ObjectPlaceholder?
        let created = try await library.performChanges { batch in
            outer = batch.createFolder(title: "Travel")
            inner = batch.createFolder(title: "Europe", in: outer!.localIdentifier)
        }
        let outerID = try XCTUnwrap(outer.flatMap(created.localIdentifier(for:)))
        let innerID = try XCTUnwrap(inner.flatMap(created.localIdentifier(for:)))
        let children = try await library.fetchCollectionLists(in: outerID).allObjects().map(\.localIdentifier)
        XCTAssertEqual(children, [innerID])
        let none = try await library.fetchCollectionLists(in: innerID).count
        XCTAssertEqual(none, 0, "a known folder without children")
        // A folder that does not exist is NOT_FOUND (it answered an empty list).
        do {
            _ = try await library.fetchCollectionLists(in: "00000000-0000-4000-8000-000000000000/L0/020")
            XCTFail("an unknown folder answered")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .notFound)
            XCTAssertTrue(error.message.contains("no folder has the identifier"), error.message)
        }
    }
}
