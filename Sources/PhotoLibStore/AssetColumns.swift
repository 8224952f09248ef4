import Foundation
import PhotoLibCore

/// One `asset` row of a page as ``PhotoLibrary/visitAssets(page:of:_:)`` reads it: the values
/// an `Asset` holds, each read from the row when asked, text as its stored UTF-8 bytes, so
/// that a page can be encoded without an `Asset` (and its strings) per row. Each value is
/// the one `Asset` would hold for the row (`AssetRow.decode(_:)` reads the row through these
/// accessors: the columns' indices and conversions live here alone). Valid only during the
/// call that hands it over.
public struct AssetColumns {
    /// The statement, on the row (columns in `AssetRow.columns`' order).
    private let row: Statement
    /// The asset's media type.
    public let mediaType: MediaType
    /// The asset's media subtypes.
    public let mediaSubtypes: MediaSubtypes

    /// The row's columns, or `nil` for a row `AssetRow.decode(_:)` would refuse (an invalid
    /// media type or subtype) or whose burst identifier it would repair (not valid UTF-8).
    init?(_ row: Statement) {
        let burstIsValid = row.withText(10) { bytes in
            // ASCII (the common case) is valid; anything else is checked as `String(decoding:)` would repair it.
            var high: UInt8 = 0
            for byte in bytes { high |= byte }
            return high < 0x80 || String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes)
        }
        guard burstIsValid else { return nil }
        self.init(anyBurst: row)
    }

    /// The row's columns whatever its burst identifier holds (``burstIdentifier`` repairs
    /// invalid UTF-8), or `nil` for an invalid media type or subtype: what `AssetRow.decode(_:)` reads.
    init?(anyBurst row: Statement) {
        guard let mediaType = MediaType(rawValue: row.int(1)), let subtypes = UInt32(exactly: row.int64(2)) else { return nil }
        self.row = row
        self.mediaType = mediaType
        self.mediaSubtypes = MediaSubtypes(rawValue: subtypes)
    }

    /// Whether the local identifier of the current row of `row` is `identifier` (byte for
    /// byte, so the row's bytes are then valid UTF-8).
    static func identifier(of row: Statement, is identifier: String) -> Bool {
        var identifier = identifier
        return identifier.withUTF8 { expected in
            row.withText(0) { bytes in
                guard bytes.count == expected.count else { return false }
                guard let found = bytes.baseAddress, let wanted = expected.baseAddress else { return true }
                return memcmp(found, wanted, bytes.count) == 0
            }
        }
    }

    /// The local identifier of the current row of `row` (for messages about a row that has
    /// no columns).
    static func localIdentifier(of row: Statement) -> String { row.text(0) }

    /// The local identifier.
    var localIdentifier: String { Self.localIdentifier(of: row) }
    /// Calls `body` with the UTF-8 bytes of the local identifier (valid during the call).
    public func withLocalIdentifier<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R { row.withText(0, body) }
    /// Width in pixels, upright.
    public var pixelWidth: Int { row.int(3) }
    /// Height in pixels, upright.
    public var pixelHeight: Int { row.int(4) }
    /// When the photo was taken.
    public var creationDate: Date { Microseconds.date(row.int64(5)) }
    /// When the asset was last changed in the library.
    public var modificationDate: Date { Microseconds.date(row.int64(6)) }
    /// Whether the user marked the asset as a favourite.
    public var isFavorite: Bool { row.int(7) != 0 }
    /// Whether the asset is hidden.
    public var isHidden: Bool { row.int(8) != 0 }
    /// Duration in seconds (0 for photos).
    public var duration: Double { row.double(9) }
    /// Calls `body` with the UTF-8 bytes of the burst identifier (empty when the asset is in
    /// no burst: `Asset.burstIdentifier` is then `nil`, or empty), valid during the call.
    public func withBurstIdentifier<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R { row.withText(10, body) }
    /// The burst identifier as `Asset` holds it (`nil` for NULL; invalid UTF-8 repaired).
    var burstIdentifier: String? { row.optionalText(10) }
    /// Where the asset was taken, if known.
    public var location: Location? {
        guard let latitude = row.optionalDouble(11), let longitude = row.optionalDouble(12) else { return nil }
        return Location(latitude: latitude, longitude: longitude, altitude: row.optionalDouble(13))
    }
    /// Whether the asset has been edited.
    public var hasAdjustments: Bool { row.int(14) != 0 }
    /// When the asset was moved to Recently Deleted; `nil` while it is not there.
    public var trashedDate: Date? { row.optionalInt64(15).map(Microseconds.date) }
    /// The asset's content version.
    public var contentVersion: Int { row.int(16) }
}
