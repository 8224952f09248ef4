import Foundation
import PhotoLibCore

// PhotoLibCore's objects ⇄ their wire messages (library.proto).

extension Wire.Asset {
    /// The message for `asset`.
    public init(_ asset: Asset) {
        self.init(
            localIdentifier: asset.localIdentifier, mediaType: .init(asset.mediaType),
            mediaSubtypes: asset.mediaSubtypes.rawValue, pixelWidth: UInt32(clamping: asset.pixelWidth),
            pixelHeight: UInt32(clamping: asset.pixelHeight), creationDateMs: Wire.milliseconds(asset.creationDate),
            modificationDateMs: Wire.milliseconds(asset.modificationDate), isFavorite: asset.isFavorite,
            isHidden: asset.isHidden, duration: asset.duration, burstIdentifier: asset.burstIdentifier ?? "",
            location: asset.location.map(Wire.Location.init), hasAdjustments: asset.hasAdjustments,
            contentVersion: UInt64(max(0, asset.contentVersion)), trashedDateMs: asset.trashedDate.map(Wire.milliseconds) ?? 0)
    }
}

extension Asset {
    /// The asset a message describes (an unknown media type reads as `.unknown`).
    public init(_ wire: Wire.Asset) {
        self.init(
            localIdentifier: wire.localIdentifier, mediaType: MediaType(rawValue: Int(wire.mediaType.rawValue)) ?? .unknown,
            mediaSubtypes: MediaSubtypes(rawValue: wire.mediaSubtypes),
            pixelWidth: Int(wire.pixelWidth), pixelHeight: Int(wire.pixelHeight),
            creationDate: Wire.date(milliseconds: wire.creationDateMs),
            modificationDate: Wire.date(milliseconds: wire.modificationDateMs),
            isFavorite: wire.isFavorite, isHidden: wire.isHidden, duration: wire.duration,
            burstIdentifier: wire.burstIdentifier.isEmpty ? nil : wire.burstIdentifier,
            location: wire.location.map(Location.init), hasAdjustments: wire.hasAdjustments,
            trashedDate: wire.trashedDateMs == 0 ? nil : Wire.date(milliseconds: wire.trashedDateMs),
            contentVersion: Int(clamping: wire.contentVersion))
    }
}

extension Wire.Location {
    /// The message for `location`.
    public init(_ location: Location) {
        self.init(latitude: location.latitude, longitude: location.longitude, hasAltitude: location.altitude != nil, altitude: location.altitude ?? 0)
    }
}

extension Location {
    /// The location a message describes.
    public init(_ wire: Wire.Location) {
        self.init(latitude: wire.latitude, longitude: wire.longitude, altitude: wire.hasAltitude ? wire.altitude : nil)
    }
}

extension Wire.AssetCollection {
    /// The message for `collection`.
    public init(_ collection: AssetCollection) {
        self.init(
            localIdentifier: collection.localIdentifier, title: collection.title, type: .init(collection.type),
            subtype: .init(collection.subtype), estimatedAssetCount: UInt64(max(0, collection.estimatedAssetCount)),
            startDateMs: collection.startDate.map(Wire.milliseconds) ?? 0, endDateMs: collection.endDate.map(Wire.milliseconds) ?? 0,
            keyAssetIdentifier: collection.keyAssetIdentifier ?? "", parentFolderIdentifier: collection.parentFolderIdentifier ?? "")
    }
}

extension AssetCollection {
    /// The collection a message describes; an unknown type or subtype is `invalidArgument`.
    public init(_ wire: Wire.AssetCollection) throws(PhotoLibError) {
        self.init(
            localIdentifier: wire.localIdentifier, title: wire.title,
            type: try wire.type.domain(field: "AssetCollection.type"), subtype: try wire.subtype.domain(field: "AssetCollection.subtype"),
            estimatedAssetCount: Int(clamping: wire.estimatedAssetCount),
            startDate: wire.startDateMs == 0 ? nil : Wire.date(milliseconds: wire.startDateMs),
            endDate: wire.endDateMs == 0 ? nil : Wire.date(milliseconds: wire.endDateMs),
            keyAssetIdentifier: wire.keyAssetIdentifier.isEmpty ? nil : wire.keyAssetIdentifier,
            parentFolderIdentifier: wire.parentFolderIdentifier.isEmpty ? nil : wire.parentFolderIdentifier)
    }
}

extension Wire.CollectionList {
    /// The message for `list`.
    public init(_ list: CollectionList) {
        self.init(
            localIdentifier: list.localIdentifier, title: list.title,
            parentFolderIdentifier: list.parentFolderIdentifier ?? "", childCount: UInt64(max(0, list.childCount)))
    }
}

extension CollectionList {
    /// The folder a message describes.
    public init(_ wire: Wire.CollectionList) {
        self.init(
            localIdentifier: wire.localIdentifier, title: wire.title,
            parentFolderIdentifier: wire.parentFolderIdentifier.isEmpty ? nil : wire.parentFolderIdentifier,
            childCount: Int(clamping: wire.childCount))
    }
}
