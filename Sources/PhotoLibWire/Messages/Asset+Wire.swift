internal import CPhotoLibProto
import Foundation
import PhotoLibCore

// Conversions between the domain values of PhotoLibCore and protobuf-c structs.

extension Asset {
    init(wire p: Photolib__V1__Asset) {
        self.init(
            localIdentifier: ProtoCodec.string(p.local_identifier),
            mediaType: MediaType(rawValue: Int(p.media_type.rawValue)) ?? .unknown,
            mediaSubtypes: MediaSubtypes(rawValue: p.media_subtypes),
            pixelWidth: Int(p.pixel_width), pixelHeight: Int(p.pixel_height),
            creationDate: ProtoCodec.date(p.creation_date_ms), modificationDate: ProtoCodec.date(p.modification_date_ms),
            isFavorite: p.is_favorite != 0, isHidden: p.is_hidden != 0, duration: p.duration,
            burstIdentifier: p.burst_identifier.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 },
            location: p.location.map { Location(wire: $0.pointee) }, hasAdjustments: p.has_adjustments != 0)
    }

    func wire(_ arena: ProtoArena) -> Photolib__V1__Asset {
        var m = Photolib__V1__Asset()
        photolib__v1__asset__init(&m)
        m.local_identifier = arena.string(localIdentifier)
        m.media_type = .init(rawValue: numericCast(mediaType.rawValue))
        m.media_subtypes = mediaSubtypes.rawValue
        m.pixel_width = UInt32(clamping: pixelWidth)
        m.pixel_height = UInt32(clamping: pixelHeight)
        m.creation_date_ms = ProtoCodec.milliseconds(creationDate)
        m.modification_date_ms = ProtoCodec.milliseconds(modificationDate)
        m.is_favorite = isFavorite ? 1 : 0
        m.is_hidden = isHidden ? 1 : 0
        m.duration = duration
        m.burst_identifier = arena.string(burstIdentifier ?? "")
        if let location { m.location = arena.object(location.wire()) }
        m.has_adjustments = hasAdjustments ? 1 : 0
        return m
    }
}

extension Location {
    init(wire p: Photolib__V1__Location) {
        self.init(latitude: p.latitude, longitude: p.longitude, altitude: p.has_altitude != 0 ? p.altitude : nil)
    }

    func wire() -> Photolib__V1__Location {
        var m = Photolib__V1__Location()
        photolib__v1__location__init(&m)
        m.latitude = latitude
        m.longitude = longitude
        m.has_altitude = altitude == nil ? 0 : 1
        m.altitude = altitude ?? 0
        return m
    }
}

extension AssetCollection {
    init(wire p: Photolib__V1__AssetCollection) throws(PhotoLibError) {
        guard let type = AssetCollectionType(rawValue: Int(p.type.rawValue)),
            let subtype = AssetCollectionSubtype(rawValue: Int(p.subtype.rawValue))
        else {
            throw PhotoLibError(.invalidArgument, "collection \(ProtoCodec.string(p.local_identifier)) has an unknown type \(p.type.rawValue) or subtype \(p.subtype.rawValue)")
        }
        let key = ProtoCodec.string(p.key_asset_identifier)
        let parent = ProtoCodec.string(p.parent_folder_identifier)
        self.init(
            localIdentifier: ProtoCodec.string(p.local_identifier), title: ProtoCodec.string(p.title), type: type,
            subtype: subtype, estimatedAssetCount: ProtoCodec.int(p.estimated_asset_count),
            startDate: p.start_date_ms == 0 ? nil : ProtoCodec.date(p.start_date_ms),
            endDate: p.end_date_ms == 0 ? nil : ProtoCodec.date(p.end_date_ms),
            keyAssetIdentifier: key.isEmpty ? nil : key, parentFolderIdentifier: parent.isEmpty ? nil : parent)
    }

    func wire(_ arena: ProtoArena) -> Photolib__V1__AssetCollection {
        var m = Photolib__V1__AssetCollection()
        photolib__v1__asset_collection__init(&m)
        m.local_identifier = arena.string(localIdentifier)
        m.title = arena.string(title)
        m.type = .init(rawValue: numericCast(type.rawValue))
        m.subtype = .init(rawValue: numericCast(subtype.rawValue))
        m.estimated_asset_count = UInt64(max(0, estimatedAssetCount))
        m.start_date_ms = startDate.map(ProtoCodec.milliseconds) ?? 0
        m.end_date_ms = endDate.map(ProtoCodec.milliseconds) ?? 0
        m.key_asset_identifier = arena.string(keyAssetIdentifier ?? "")
        m.parent_folder_identifier = arena.string(parentFolderIdentifier ?? "")
        return m
    }
}

extension CollectionList {
    init(wire p: Photolib__V1__CollectionList) {
        let parent = ProtoCodec.string(p.parent_folder_identifier)
        self.init(
            localIdentifier: ProtoCodec.string(p.local_identifier), title: ProtoCodec.string(p.title),
            parentFolderIdentifier: parent.isEmpty ? nil : parent, childCount: ProtoCodec.int(p.child_count))
    }

    func wire(_ arena: ProtoArena) -> Photolib__V1__CollectionList {
        var m = Photolib__V1__CollectionList()
        photolib__v1__collection_list__init(&m)
        m.local_identifier = arena.string(localIdentifier)
        m.title = arena.string(title)
        m.parent_folder_identifier = arena.string(parentFolderIdentifier ?? "")
        m.child_count = UInt64(max(0, childCount))
        return m
    }
}
