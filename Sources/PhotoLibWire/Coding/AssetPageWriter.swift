import Foundation
import PhotoLibCore

/// Writes a `FetchResultObjectsResponse` holding a page of assets straight from the values
/// the store reads, one asset at a time, with no ``Wire/Asset`` (nor `Asset`) made per row:
/// the server's fast path for a page (`PhotoLibrary.visitAssets(page:of:_:)` hands it each
/// row). The bytes are those ``Wire/FetchResultObjectsResponse/encoded()`` writes for
/// `FetchResultObjectsResponse(offset:assets:localIdentifiers:)` with the assets mapped by
/// ``Wire/Asset/init(_:)``; `AssetPageWriterTests` and the server's page tests compare them.
///
/// Order: ``init(offset:capacity:)``, every ``appendAsset(localIdentifier:mediaType:mediaSubtypes:pixelWidth:pixelHeight:creationDate:modificationDate:isFavorite:isHidden:duration:burstIdentifier:location:hasAdjustments:contentVersion:trashedDate:)``,
/// then ``appendLocalIdentifiers(_:)`` (protobuf-c writes fields in number order).
public struct AssetPageWriter {
    private var writer: ProtoWriter

    /// A response for the page at `offset`, with room for about `capacity` assets.
    public init(offset: UInt64, capacity: Int) {
        writer = ProtoWriter(capacity: 16 + capacity * 208)
        writer.uint(1, offset)
    }

    /// Appends one asset (field 2), mapped as ``Wire/Asset/init(_:)`` maps an `Asset` with
    /// these values; text comes as UTF-8 bytes, an empty burst identifier standing for none.
    public mutating func appendAsset(
        localIdentifier: UnsafeRawBufferPointer, mediaType: MediaType, mediaSubtypes: MediaSubtypes, pixelWidth: Int, pixelHeight: Int,
        creationDate: Date, modificationDate: Date, isFavorite: Bool, isHidden: Bool, duration: Double,
        burstIdentifier: UnsafeRawBufferPointer, location: Location?, hasAdjustments: Bool, contentVersion: Int, trashedDate: Date?
    ) {
        writer.message(2) { writer in
            writer.assetFields(
                localIdentifier: localIdentifier, mediaType: Wire.MediaType(mediaType).rawValue, mediaSubtypes: UInt64(mediaSubtypes.rawValue),
                pixelWidth: UInt64(UInt32(clamping: pixelWidth)), pixelHeight: UInt64(UInt32(clamping: pixelHeight)),
                creationDateMs: Wire.milliseconds(creationDate), modificationDateMs: Wire.milliseconds(modificationDate),
                isFavorite: isFavorite, isHidden: isHidden, duration: duration, burstIdentifier: burstIdentifier,
                location: location.map(Wire.Location.init), hasAdjustments: hasAdjustments,
                contentVersion: UInt64(max(0, contentVersion)), trashedDateMs: trashedDate.map(Wire.milliseconds) ?? 0)
        }
    }

    /// Appends the page's identifiers (field 5), after the assets.
    public mutating func appendLocalIdentifiers(_ identifiers: [String]) {
        for identifier in identifiers { writer.element(5, identifier) }
    }

    /// The message's bytes so far.
    public var bytes: [UInt8] { writer.bytes }
}
