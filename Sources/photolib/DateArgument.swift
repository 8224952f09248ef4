import Foundation
import PhotoLibClient

/// Parses the dates people type: ISO 8601 date-times (with zone, optional fractional
/// seconds) or plain dates (midnight UTC).
enum DateArgument {
    static func parse(_ text: String) throws -> Date {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        let dateOnly = ISO8601DateFormatter()
        dateOnly.formatOptions = [.withFullDate]
        dateOnly.timeZone = TimeZone(identifier: "UTC")
        for formatter in [plain, withFraction, dateOnly] {
            if let date = formatter.date(from: text) { return date }
        }
        throw CLIError("'\(text)' is not a date: use ISO 8601, e.g. 2024-05-17 or 2024-05-17T14:30:00Z or 2024-05-17T14:30:00+02:00")
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
