import Foundation

/// One request of a `performChanges` batch: PhotoKit's asset, collection and collection-list
/// change requests.
///
/// Identifiers in a request may name a placeholder declared by an earlier request of the same
/// batch (see ``Placeholder``): a `$`-prefixed label such as `$1`.
public enum ChangeRequest: Sendable, Hashable {
    /// `PHAssetChangeRequest.creationRequestForAsset(from:)`: an asset from an upload.
    case createAsset(CreateAsset)
    /// `PHAssetChangeRequest.deleteAssets(_:)`: moves assets to Recently Deleted.
    case deleteAssets([String])
    /// Brings assets back from Recently Deleted.
    case restoreAssets([String])
    /// Removes assets permanently (their files are removed after the commit).
    case purgeAssets([String])
    /// `PHAssetChangeRequest` property setters.
    case setAssetProperties(SetAssetProperties)
    /// `PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle:)`.
    case createAlbum(title: String, placeholder: String?, parentFolder: String?)
    /// `PHCollectionListChangeRequest.creationRequestForCollectionList(withTitle:)`.
    case createFolder(title: String, placeholder: String?, parentFolder: String?)
    /// Renames an album or folder.
    case renameCollection(String, title: String)
    /// Deletes albums or folders (a folder's children move to its parent).
    case deleteCollections([String])
    /// `addAssets(_:)`: appends; assets already in the album keep their place.
    case addAssets(album: String, assets: [String])
    /// `insertAssets(_:at:)`: the assets take indexes `index`, `index + 1`, ….
    case insertAssets(album: String, assets: [String], at: Int)
    /// `removeAssets(_:)`.
    case removeAssets(album: String, assets: [String])
    /// `moveAssets(at:to:)`: the assets at `from` (indexes before the move) move, in order, to `to`.
    case moveAssets(album: String, from: [Int], to: Int)
    /// Sets the album's key (cover) asset; `nil` restores the default.
    case setKeyAsset(album: String, asset: String?)
    /// Moves albums or folders into a folder (`nil`: the top level).
    case moveCollections([String], toFolder: String?)
    /// `PHAssetChangeRequest.contentEditingOutput`: replaces the asset's edit (recipe and
    /// render); the original is never modified.
    case commitContentEdit(ContentEdit)
    /// `PHAssetChangeRequest.revertAssetContentToOriginal()`: removes the edit (a no-op for an
    /// unedited asset).
    case revertAssetContent(String)

    /// The fields of ``ChangeRequest/createAsset(_:)``.
    public struct CreateAsset: Sendable, Hashable {
        /// The staged upload holding the photo's bytes.
        public var uploadID: String
        /// The placeholder that names the new asset later in the batch.
        public var placeholder: String?
        /// Overrides the date read from EXIF.
        public var creationDate: Date?
        /// Overrides the location read from EXIF (`.clear` removes it).
        public var location: LocationChange?
        /// Marks it a favourite.
        public var isFavorite: Bool
        /// Hides it.
        public var isHidden: Bool

        /// Creates the request.
        public init(uploadID: String, placeholder: String? = nil, creationDate: Date? = nil, location: LocationChange? = nil, isFavorite: Bool = false, isHidden: Bool = false) {
            self.uploadID = uploadID
            self.placeholder = placeholder
            self.creationDate = creationDate
            self.location = location
            self.isFavorite = isFavorite
            self.isHidden = isHidden
        }
    }

    /// The fields of ``ChangeRequest/setAssetProperties(_:)``; `nil` leaves a property unchanged.
    public struct SetAssetProperties: Sendable, Hashable {
        /// The asset.
        public var asset: String
        /// New favourite state.
        public var isFavorite: Bool?
        /// New hidden state.
        public var isHidden: Bool?
        /// New creation date.
        public var creationDate: Date?
        /// New location, or `.clear`.
        public var location: LocationChange?

        /// Creates the request.
        public init(asset: String, isFavorite: Bool? = nil, isHidden: Bool? = nil, creationDate: Date? = nil, location: LocationChange? = nil) {
            self.asset = asset
            self.isFavorite = isFavorite
            self.isHidden = isHidden
            self.creationDate = creationDate
            self.location = location
        }
    }

    /// A short name for error messages, e.g. `addAssets`.
    public var name: String {
        switch self {
        case .createAsset: return "createAsset"
        case .deleteAssets: return "deleteAssets"
        case .restoreAssets: return "restoreAssets"
        case .purgeAssets: return "purgeAssets"
        case .setAssetProperties: return "setAssetProperties"
        case .createAlbum: return "createAlbum"
        case .createFolder: return "createFolder"
        case .renameCollection: return "renameCollection"
        case .deleteCollections: return "deleteCollections"
        case .addAssets: return "addAssets"
        case .insertAssets: return "insertAssets"
        case .removeAssets: return "removeAssets"
        case .moveAssets: return "moveAssets"
        case .setKeyAsset: return "setKeyAsset"
        case .moveCollections: return "moveCollections"
        case .commitContentEdit: return "commitContentEdit"
        case .revertAssetContent: return "revertAssetContent"
        }
    }
}

/// Sets or clears a location.
public enum LocationChange: Sendable, Hashable {
    /// Sets the location.
    case set(Location)
    /// Removes the location.
    case clear
}

/// Placeholders: names for objects created earlier in the same batch (`PHObjectPlaceholder`).
public enum Placeholder {
    /// Whether `identifier` is a placeholder label (`$` followed by 1…64 letters, digits, `_` or `-`).
    public static func isPlaceholder(_ identifier: String) -> Bool {
        guard identifier.hasPrefix("$") else { return false }
        let body = identifier.utf8.dropFirst()
        return (1...64).contains(body.count) && body.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x2D
        }
    }
}

/// The limits of one `performChanges` batch.
public enum ChangeLimits {
    /// Most requests in one batch.
    public static let maxRequests = 1000
    /// Most identifiers in one request.
    public static let maxIdentifiersPerRequest = 10_000
}
