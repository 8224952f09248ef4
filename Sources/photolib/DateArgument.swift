import Foundation
import PhotoLibClient

/// Parses the dates people type, with the predicate grammar's date reader
/// (``PredicateDate/parse(_:)``): ISO 8601 with an optional time and zone, a plain date being
/// midnight UTC, the calendar checked (`2023-02-29` is refused, not turned into March 1st).
enum DateArgument {
    static func parse(_ text: String) throws -> Date {
        do {
            return Date(timeIntervalSince1970: Double(try PredicateDate.parse(text)) / 1_000_000)
        } catch {
            throw CLIError("'\(text)' is not a date (ISO 8601): \(error.message)")
        }
    }
}

/// Parses `LAT,LON` (decimal degrees).
enum LocationArgument {
    static func parse(_ text: String) throws -> Location {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]) else {
            throw CLIError("'\(text)' is not LAT,LON in decimal degrees, e.g. 48.8584,2.2945")
        }
        do {
            return try Location(latitude: latitude, longitude: longitude).validated()
        } catch {
            throw CLIError(error.message)
        }
    }
}
