import Foundation
import PhotoLibCore

// performChanges' requests (PhotoLibCore.ChangeRequest) ⇄ `ChangeRequest` (changes.proto).

extension Wire.PerformChangesRequest {
    /// The message for a batch.
    public init(_ requests: [ChangeRequest]) {
        self.init(requests: requests.map(Wire.ChangeRequest.init))
    }

    /// The batch it carries, checked against `ChangeLimits`; a bad request's error names
    /// its index (`failedRequestIndex`).
    public func domain() throws(PhotoLibError) -> [ChangeRequest] {
        guard requests.count <= ChangeLimits.maxRequests else {
            throw PhotoLibError(.resourceExhausted, "a batch holds at most \(ChangeLimits.maxRequests) requests; this one has \(requests.count)")
        }
        var batch: [ChangeRequest] = []
        for (index, request) in requests.enumerated() {
            do throws(PhotoLibError) {
                batch.append(try request.domain())
            } catch {
                var failure = error
                failure.failedRequestIndex = index
                failure.message = "request \(index): \(error.message)"
                failure.reason = failure.reason == .unspecified ? .changeRequestFailed : failure.reason
                throw failure
            }
        }
        return batch
    }
}

extension Wire.PerformChangesResponse {
    /// Placeholder id → the local identifier it resolved to.
    public var placeholderMap: [String: String] {
        Dictionary(placeholders.map { ($0.placeholderID, $0.localIdentifier) }, uniquingKeysWith: { _, last in last })
    }
}

extension Wire.ChangeRequest {
    /// The message for `request`.
    public init(_ request: ChangeRequest) {
        let timestamp = { (date: Date) in Wire.TimestampValue(unixMs: Wire.milliseconds(date)) }
        switch request {
        case .createAsset(let c):
            self.init(request: .createAsset(.init(
                uploadID: c.uploadID, placeholderID: c.placeholder ?? "", creationDate: c.creationDate.map(timestamp),
                location: c.location.map(Wire.LocationValue.init), isFavorite: c.isFavorite, isHidden: c.isHidden)))
        case .deleteAssets(let ids): self.init(request: .deleteAssets(.init(assetIdentifiers: ids)))
        case .restoreAssets(let ids): self.init(request: .restoreAssets(.init(assetIdentifiers: ids)))
        case .purgeAssets(let ids): self.init(request: .purgeAssets(.init(assetIdentifiers: ids)))
        case .setAssetProperties(let s):
            self.init(request: .setAssetProperties(.init(
                assetIdentifier: s.asset, isFavorite: s.isFavorite.map { .init(value: $0) }, isHidden: s.isHidden.map { .init(value: $0) },
                creationDate: s.creationDate.map(timestamp), location: s.location.map(Wire.LocationValue.init))))
        case .createAlbum(let title, let placeholder, let parent):
            self.init(request: .createAlbum(.init(title: title, placeholderID: placeholder ?? "", parentFolderIdentifier: parent ?? "")))
        case .createFolder(let title, let placeholder, let parent):
            self.init(request: .createFolder(.init(title: title, placeholderID: placeholder ?? "", parentFolderIdentifier: parent ?? "")))
        case .renameCollection(let id, let title): self.init(request: .renameCollection(.init(collectionIdentifier: id, title: title)))
        case .deleteCollections(let ids): self.init(request: .deleteCollections(.init(collectionIdentifiers: ids)))
        case .addAssets(let album, let assets): self.init(request: .addAssetsToAlbum(.init(albumIdentifier: album, assetIdentifiers: assets)))
        case .insertAssets(let album, let assets, let index):
            self.init(request: .insertAssetsInAlbum(.init(albumIdentifier: album, assetIdentifiers: assets, index: UInt32(clamping: index))))
        case .removeAssets(let album, let assets): self.init(request: .removeAssetsFromAlbum(.init(albumIdentifier: album, assetIdentifiers: assets)))
        case .moveAssets(let album, let from, let to):
            self.init(request: .moveAssetsInAlbum(.init(albumIdentifier: album, fromIndexes: from.map { UInt32(clamping: $0) }, toIndex: UInt32(clamping: to))))
        case .setKeyAsset(let album, let asset): self.init(request: .setKeyAsset(.init(albumIdentifier: album, assetIdentifier: asset ?? "")))
        case .moveCollections(let ids, let folder):
            self.init(request: .moveCollections(.init(collectionIdentifiers: ids, destinationFolderIdentifier: folder ?? "")))
        case .commitContentEdit(let edit):
            self.init(request: .commitContentEdit(.init(
                assetIdentifier: edit.asset, editingSessionID: edit.editingSessionID,
                adjustmentData: Wire.AdjustmentData(edit.adjustmentData), renderedUploadID: edit.renderedUploadID ?? "")))
        case .revertAssetContent(let asset): self.init(request: .revertAssetContent(.init(assetIdentifier: asset)))
        }
    }

    /// The request it carries; over-long identifier lists are `resourceExhausted`.
    public func domain() throws(PhotoLibError) -> ChangeRequest {
        func ids(_ list: [String]) throws(PhotoLibError) -> [String] {
            guard list.count <= ChangeLimits.maxIdentifiersPerRequest else {
                throw PhotoLibError(.resourceExhausted, "at most \(ChangeLimits.maxIdentifiersPerRequest) identifiers per request; got \(list.count)")
            }
            return list
        }
        func optional(_ text: String) -> String? { text.isEmpty ? nil : text }
        func date(_ value: Wire.TimestampValue?) -> Date? { value.map { Wire.date(milliseconds: $0.unixMs) } }
        switch request {
        case .createAsset(let c)?:
            return .createAsset(.init(
                uploadID: c.uploadID, placeholder: optional(c.placeholderID), creationDate: date(c.creationDate),
                location: c.location.map(LocationChange.init), isFavorite: c.isFavorite, isHidden: c.isHidden))
        case .deleteAssets(let r)?: return .deleteAssets(try ids(r.assetIdentifiers))
        case .restoreAssets(let r)?: return .restoreAssets(try ids(r.assetIdentifiers))
        case .purgeAssets(let r)?: return .purgeAssets(try ids(r.assetIdentifiers))
        case .setAssetProperties(let s)?:
            return .setAssetProperties(.init(
                asset: s.assetIdentifier, isFavorite: s.isFavorite?.value, isHidden: s.isHidden?.value,
                creationDate: date(s.creationDate), location: s.location.map(LocationChange.init)))
        case .createAlbum(let a)?: return .createAlbum(title: a.title, placeholder: optional(a.placeholderID), parentFolder: optional(a.parentFolderIdentifier))
        case .createFolder(let f)?: return .createFolder(title: f.title, placeholder: optional(f.placeholderID), parentFolder: optional(f.parentFolderIdentifier))
        case .renameCollection(let r)?: return .renameCollection(r.collectionIdentifier, title: r.title)
        case .deleteCollections(let r)?: return .deleteCollections(try ids(r.collectionIdentifiers))
        case .addAssetsToAlbum(let a)?: return .addAssets(album: a.albumIdentifier, assets: try ids(a.assetIdentifiers))
        case .insertAssetsInAlbum(let a)?: return .insertAssets(album: a.albumIdentifier, assets: try ids(a.assetIdentifiers), at: Int(a.index))
        case .removeAssetsFromAlbum(let a)?: return .removeAssets(album: a.albumIdentifier, assets: try ids(a.assetIdentifiers))
        case .moveAssetsInAlbum(let a)?:
            guard a.fromIndexes.count <= ChangeLimits.maxIdentifiersPerRequest else {
                throw PhotoLibError(.resourceExhausted, "at most \(ChangeLimits.maxIdentifiersPerRequest) indexes per move")
            }
            return .moveAssets(album: a.albumIdentifier, from: a.fromIndexes.map { Int($0) }, to: Int(a.toIndex))
        case .setKeyAsset(let k)?: return .setKeyAsset(album: k.albumIdentifier, asset: optional(k.assetIdentifier))
        case .moveCollections(let m)?: return .moveCollections(try ids(m.collectionIdentifiers), toFolder: optional(m.destinationFolderIdentifier))
        case .commitContentEdit(let c)?:
            guard let adjustment = c.adjustmentData else {
                throw PhotoLibError(.invalidArgument, "commitContentEdit needs adjustment data (PHContentEditingOutput.adjustmentData)")
            }
            return .commitContentEdit(ContentEdit(
                asset: c.assetIdentifier, editingSessionID: c.editingSessionID, adjustmentData: try adjustment.domain(),
                renderedUploadID: optional(c.renderedUploadID)))
        case .revertAssetContent(let r)?: return .revertAssetContent(r.assetIdentifier)
        case nil:
            // Not skipped: dropping one change from an atomic batch would apply something
            // other than what the client asked for.
            throw PhotoLibError(.unimplemented, "the change request carries no request, or a kind this server does not know; nothing was applied")
        }
    }
}

extension Wire.LocationValue {
    /// The message for a location change (absent location: clear it).
    public init(_ change: LocationChange) {
        if case .set(let location) = change { self.init(location: Wire.Location(location)) } else { self.init() }
    }
}

extension LocationChange {
    /// The change a message describes.
    public init(_ wire: Wire.LocationValue) {
        self = wire.location.map { .set(Location($0)) } ?? .clear
    }
}
