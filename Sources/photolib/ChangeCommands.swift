import ArgumentParser
import Foundation
import PhotoLibClient

extension PhotoLibCommand {
    /// `photolib token`: the current persistent-change token.
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the library's current change token.")
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            let token = try await connection.withLibrary { try await $0.currentChangeToken() }
            if connection.json {
                struct TokenJSON: Encodable { var changeToken: String }
                try Output.json(TokenJSON(changeToken: token))
            } else {
                print(token)
            }
        }
    }

    /// `photolib changes --since TOKEN`: persistent history.
    struct Changes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the transactions committed after a token (persistent history).")
        @OptionGroup var connection: ConnectionOptions
        @Option(name: .long, help: "A token from 'photolib token' or an earlier notification (omit: from the oldest kept).") var since: String?

        struct ChangeJSON: Encodable {
            var changeToken: String
            var committedAt: Date
            var author: String
            var inserted: [String: [String]]
            var updated: [String: [String]]
            var deleted: [String: [String]]
        }

        func run() async throws {
            let changes: [PersistentChange] = try await connection.withLibrary { library in
                var all: [PersistentChange] = []
                var cursor = since
                while true {
                    let page = try await library.fetchPersistentChanges(since: cursor)
                    all += page.changes
                    guard page.hasMore, let last = page.changes.last else { break }
                    cursor = last.changeToken
                }
                return all
            }
            /// Identifiers per object-type name, for one kind of change (types with none left out).
            func lists(_ change: PersistentChange, _ kind: ObjectChange.Kind) -> [String: [String]] {
                var lists: [String: [String]] = [:]
                for type in ObjectChange.ObjectType.allCases {
                    let identifiers = change.identifiers(type, kind)
                    if !identifiers.isEmpty { lists[type.name] = identifiers }
                }
                return lists
            }
            if connection.json {
                try Output.json(changes.map { change in
                    ChangeJSON(
                        changeToken: change.changeToken, committedAt: change.committedAt, author: change.author,
                        inserted: lists(change, .inserted), updated: lists(change, .updated), deleted: lists(change, .deleted))
                })
            } else {
                for change in changes {
                    var parts: [String] = []
                    for type in ObjectChange.ObjectType.allCases.sorted(by: { $0.name < $1.name }) {
                        for (kind, sign) in [(ObjectChange.Kind.inserted, "+"), (.updated, "~"), (.deleted, "-")] {
                            let count = change.identifiers(type, kind).count
                            if count > 0 { parts.append("\(sign)\(count) \(type.name)") }
                        }
                    }
                    print("\(change.changeToken)  \(Output.date(change.committedAt))  \(change.author)  \(parts.joined(separator: ", "))")
                }
            }
        }
    }

    /// `photolib watch`: live change details for one fetch, one line per notification.
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Watch a fetch live: one line (or JSON line) per change notification.",
            discussion: "With --since, the changes after that token are delivered first, then live ones, with no gap. Runs until interrupted, or until --count notifications.")
        @OptionGroup var connection: ConnectionOptions
        @Option(name: .long, help: "Only assets in this album or smart album (an ID, or a name like videos or live-photos).") var album: String?
        @Option(name: .long, help: "A predicate (docs/PREDICATES.md).") var `where`: String?
        @Option(name: .long, help: "Sort by KEY[:asc|desc][,KEY…].") var sort: String?
        @Option(name: .long, help: "Resume after this change token.") var since: String?
        @Option(name: .long, help: "Stop after this many notifications.") var count: Int?

        struct NotificationJSON: Encodable {
            var changeToken: String
            var sinceToken: String
            var hasIncrementalChanges: Bool?
            var count: Int?
            var removedIndexes: [Int]?
            var insertedIndexes: [Int]?
            var changedIndexes: [Int]?
            var moves: [[Int]]?
            var insertedIdentifiers: [String]?
            var changedIdentifiers: [String]?
            /// Of the changed assets, those whose image changed (edited or reverted).
            var contentChangedIdentifiers: [String]?
            /// Catch-up (`--since`) notifications: the assets each transaction touched that
            /// still exist, and those it deleted.
            var touchedIdentifiers: [String]?
            var deletedIdentifiers: [String]?
        }

        func validate() throws {
            if let count, count <= 0 { throw ValidationError("--count must be positive") }
        }

        func run() async throws {
            var descriptors: [AssetSortDescriptor] = []
            if let sort {
                do {
                    for part in sort.split(separator: ",") { descriptors.append(try AssetSortDescriptor(parsing: String(part))) }
                } catch { throw CLIError(error.message) }
            }
            let options = FetchOptions(predicate: `where`, sortDescriptors: descriptors)
            try await connection.withLibrary { library in
                let subscription = try await library.subscribe(since: since)
                var watched = try await subscription.registerFetch(with: options, in: album.map(SmartAlbumName.resolve))
                if !connection.json {
                    print("watching \(watched.count) \(watched.count == 1 ? "asset" : "assets") (Ctrl-C to stop)")
                    fflush(nil)  // a stream: each line as it happens, also into a pipe or file
                }
                var seen = 0
                for try await change in subscription.changes {
                    let details = change.changeDetails(for: watched)
                    if let details { watched = details.fetchResultAfterChanges }
                    // Catch-up notifications (before the watched list existed) say which
                    // assets each past transaction touched.
                    let assets = details == nil ? change.objectChanges.filter { $0.localIdentifier.hasSuffix(LocalIdentifier.assetSuffix) } : []
                    let touched = assets.filter { !$0.objectWasDeleted }.map(\.localIdentifier)
                    let deleted = assets.filter(\.objectWasDeleted).map(\.localIdentifier)
                    if connection.json {
                        try Output.jsonLine(NotificationJSON(
                            changeToken: change.changeToken, sinceToken: change.sinceToken, hasIncrementalChanges: details?.hasIncrementalChanges,
                            count: details?.fetchResultAfterChanges.count, removedIndexes: details?.removedIndexes, insertedIndexes: details?.insertedIndexes,
                            changedIndexes: details?.changedIndexes, moves: details?.moves.map { [$0.from, $0.to] },
                            insertedIdentifiers: details?.insertedObjects.map(\.localIdentifier), changedIdentifiers: details?.changedObjects.map(\.localIdentifier),
                            contentChangedIdentifiers: details.map { changes in changes.changedObjects.map(\.localIdentifier).filter(changes.contentChangedIdentifiers.contains) },
                            touchedIdentifiers: assets.isEmpty ? nil : touched, deletedIdentifiers: assets.isEmpty ? nil : deleted))
                    } else if let details {
                        let summary = details.hasIncrementalChanges
                            ? "removed \(details.removedIndexes) inserted \(details.insertedIndexes) changed \(details.changedIndexes) moves \(details.moves.map { "\($0.from)->\($0.to)" })"
                                + (details.insertedObjects.isEmpty ? "" : " new \(details.insertedObjects.map(\.localIdentifier))")
                                + (details.contentChangedIdentifiers.isEmpty ? "" : " content changed \(details.changedObjects.map(\.localIdentifier).filter(details.contentChangedIdentifiers.contains))")
                            : "resync"
                        print("change \(change.changeToken): \(summary), count \(details.fetchResultAfterChanges.count)")
                    } else if !assets.isEmpty {
                        print("change \(change.changeToken) (history): assets touched \(touched) deleted \(deleted)")
                    } else {
                        print("change \(change.changeToken): nothing for this fetch")
                    }
                    fflush(nil)
                    seen += 1
                    if let count, seen >= count {
                        subscription.cancel()
                        return
                    }
                }
                // The server ended the feed without an error (the sequence ended): say so, and
                // fail, so a script watching the library learns that it stopped.
                throw CLIError("the change feed ended after \(seen) notification\(seen == 1 ? "" : "s"): the server ended the subscription; run watch again (with --since to catch up)")
            }
        }
    }
}
