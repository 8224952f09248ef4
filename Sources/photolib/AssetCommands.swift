import ArgumentParser
import Foundation
import PhotoLibClient

/// What a change command prints with `--json`.
struct ChangeReport: Encodable {
    var operation: String
    var localIdentifiers: [String]
    var changeToken: String
}

extension ConnectionOptions {
    /// Applies one batch and prints what changed: `described`, or the number of `identifiers`.
    func apply(_ operation: String, identifiers: [String], described: String? = nil, _ build: @escaping (ChangeBatch) -> Void) async throws {
        let result = try await withLibrary { library in try await library.performChanges(build) }
        if json {
            try Output.json(ChangeReport(operation: operation, localIdentifiers: identifiers, changeToken: result.changeToken))
        } else {
            let what = described ?? "\(identifiers.count) \(identifiers.count == 1 ? "object" : "objects")"
            print("\(operation): \(what) (change \(result.changeToken))")
        }
    }
}

extension PhotoLibCommand {
    /// `photolib favorite ID… [--off]`.
    struct Favorite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark assets as favourites (or not, with --off).")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Asset identifiers.") var identifiers: [String]
        @Flag(name: .long, help: "Unmark instead.") var off = false

        func run() async throws {
            try await connection.apply(off ? "unfavorite" : "favorite", identifiers: identifiers) { batch in
                for id in identifiers { batch.setProperties(of: id, isFavorite: !off) }
            }
        }
    }

    /// `photolib hide ID… [--off]`.
    struct Hide: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Hide assets (or show them again, with --off).")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Asset identifiers.") var identifiers: [String]
        @Flag(name: .long, help: "Unhide instead.") var off = false

        func run() async throws {
            try await connection.apply(off ? "unhide" : "hide", identifiers: identifiers) { batch in
                for id in identifiers { batch.setProperties(of: id, isHidden: !off) }
            }
        }
    }

    /// `photolib delete ID…`: to Recently Deleted.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move assets to Recently Deleted (kept 30 days, then purged).")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Asset identifiers.") var identifiers: [String]

        func run() async throws {
            try await connection.apply("delete", identifiers: identifiers) { $0.deleteAssets(identifiers) }
        }
    }

    /// `photolib restore ID…`.
    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Bring assets back from Recently Deleted.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Asset identifiers.") var identifiers: [String]

        func run() async throws {
            // Say which were not in Recently Deleted: restoring them changes nothing (it is no
            // error, as in a batch), and "restore: 2 objects" read as if both came back.
            let deleted = try await connection.withLibrary { library in
                Set(try await RecentlyDeleted.assets(identifiers, in: library).keys)
            }
            let restored = identifiers.filter(deleted.contains).count
            try await connection.apply(
                "restore", identifiers: identifiers,
                described: "\(restored) \(restored == 1 ? "asset" : "assets") back from Recently Deleted"
            ) { $0.restoreAssets(identifiers) }
            if !connection.json {
                for identifier in identifiers where !deleted.contains(identifier) {
                    FileHandle.standardError.write(Data("\(identifier) was not in Recently Deleted: nothing to restore\n".utf8))
                }
            }
        }
    }

    /// `photolib purge ID…`.
    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete assets permanently, files included.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Asset identifiers.") var identifiers: [String]

        func run() async throws {
            try await connection.apply("purge", identifiers: identifiers) { $0.purgeAssets(identifiers) }
        }
    }

    /// `photolib set-date ID DATE`.
    struct SetDate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set-date", abstract: "Set an asset's creation date (ISO 8601).")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Asset identifier.") var identifier: String
        @Argument(help: "Date, e.g. 2024-05-17T14:30:00Z or 2024-05-17.") var date: String

        func validate() throws {
            do { _ = try DateArgument.parse(date) } catch let error as CLIError { throw ValidationError(error.message) }
        }

        func run() async throws {
            let value = try DateArgument.parse(date)
            try await connection.apply("set-date", identifiers: [identifier]) { $0.setProperties(of: identifier, creationDate: value) }
        }
    }

    /// `photolib set-location ID LAT,LON` (or `--clear`).
    struct SetLocation: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set-location", abstract: "Set an asset's location (LAT,LON), or remove it with --clear.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Asset identifier.") var identifier: String
        /// Taken as unrecognized input so that a negative latitude (`-33.86,151.21`) is not
        /// mistaken for a short option.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("LAT,LON in decimal degrees, e.g. -33.8568,151.2153.", valueName: "location"))
        var coordinates: [String] = []
        @Flag(name: .long, help: "Remove the location.") var clear = false

        /// The coordinates given, without a `--` terminator (which this strategy keeps).
        private var values: [String] { coordinates.filter { $0 != "--" } }
        private var location: String? { values.first }

        func validate() throws {
            guard values.count <= 1 else { throw ValidationError("give one LAT,LON (without spaces), not \(values.count) values") }
            guard clear != (location != nil) else { throw ValidationError("give either LAT,LON or --clear") }
            if let location { do { _ = try LocationArgument.parse(location) } catch let error as CLIError { throw ValidationError(error.message) } }
        }

        func run() async throws {
            let change: LocationChange = try location.map { .set(try LocationArgument.parse($0)) } ?? .clear
            try await connection.apply("set-location", identifiers: [identifier]) { $0.setProperties(of: identifier, location: change) }
        }
    }
}
