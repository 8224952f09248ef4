import Foundation

/// A group of assets: PhotoKit's `PHAssetCollection` (a smart album or a user album).
public struct AssetCollection: Sendable, Hashable, Identifiable {
    /// The collection's stable identifier (`UUID/L0/040` for albums, `smart-<subtype>/L0/040` for smart albums).
    public var localIdentifier: String
    /// The title shown to people.
    public var title: String
    /// Album or smart album.
    public var type: AssetCollectionType
    /// Which kind of album or smart album.
    public var subtype: AssetCollectionSubtype
    /// How many assets the collection holds now (hidden assets excluded, except in Hidden).
    public var estimatedAssetCount: Int
    /// The creation date of the oldest asset, if any.
    public var startDate: Date?
    /// The creation date of the newest asset, if any.
    public var endDate: Date?
    /// The cover asset's identifier, if the collection is not empty.
    public var keyAssetIdentifier: String?
    /// The folder holding this collection, if any (`nil`: the top level).
    public var parentFolderIdentifier: String?

    /// `Identifiable` conformance: the local identifier.
    public var id: String { localIdentifier }

    /// Creates a collection value.
    public init(
        localIdentifier: String, title: String, type: AssetCollectionType,
        subtype: AssetCollectionSubtype, estimatedAssetCount: Int, startDate: Date? = nil,
        endDate: Date? = nil, keyAssetIdentifier: String? = nil, parentFolderIdentifier: String? = nil
    ) {
        self.localIdentifier = localIdentifier
        self.title = title
        self.type = type
        self.subtype = subtype
        self.estimatedAssetCount = estimatedAssetCount
        self.startDate = startDate
        self.endDate = endDate
        self.keyAssetIdentifier = keyAssetIdentifier
        self.parentFolderIdentifier = parentFolderIdentifier
    }
}

/// PhotoKit's `PHAssetCollectionType`, with its raw values.
public enum AssetCollectionType: Int, Sendable, Hashable, CaseIterable {
    /// A user album.
    case album = 1
    /// A smart album computed by the server.
    case smartAlbum = 2

    /// The name used in JSON and the CLI.
    public var name: String { self == .album ? "album" : "smartAlbum" }
}

/// PhotoKit's `PHAssetCollectionSubtype`, with its raw values (PhotoLib adds Recently Deleted).
public enum AssetCollectionSubtype: Int, Sendable, Hashable, CaseIterable {
    /// A user album.
    case albumRegular = 2
    /// Panoramas.
    case smartAlbumPanoramas = 201
    /// Videos.
    case smartAlbumVideos = 202
    /// Favorites.
    case smartAlbumFavorites = 203
    /// Hidden assets.
    case smartAlbumAllHidden = 205
    /// Assets added in the last 30 days.
    case smartAlbumRecentlyAdded = 206
    /// All Photos: the user library.
    case smartAlbumUserLibrary = 209
    /// Screenshots.
    case smartAlbumScreenshots = 211
    /// Live Photos.
    case smartAlbumLivePhotos = 213
    /// Recently Deleted: the trash (not public in PhotoKit; PhotoLib's own value).
    case smartAlbumRecentlyDeleted = 1_000_000_201

    /// The name used in JSON and the CLI, PhotoKit's case name.
    public var name: String {
        switch self {
        case .albumRegular: return "albumRegular"
        case .smartAlbumPanoramas: return "smartAlbumPanoramas"
        case .smartAlbumVideos: return "smartAlbumVideos"
        case .smartAlbumFavorites: return "smartAlbumFavorites"
        case .smartAlbumAllHidden: return "smartAlbumAllHidden"
        case .smartAlbumRecentlyAdded: return "smartAlbumRecentlyAdded"
        case .smartAlbumUserLibrary: return "smartAlbumUserLibrary"
        case .smartAlbumScreenshots: return "smartAlbumScreenshots"
        case .smartAlbumLivePhotos: return "smartAlbumLivePhotos"
        case .smartAlbumRecentlyDeleted: return "smartAlbumRecentlyDeleted"
        }
    }
}

/// A folder of albums and folders: PhotoKit's `PHCollectionList`.
public struct CollectionList: Sendable, Hashable, Identifiable {
    /// The folder's stable identifier (`UUID/L0/020`).
    public var localIdentifier: String
    /// The folder's title.
    public var title: String
    /// The folder holding this one, if any.
    public var parentFolderIdentifier: String?
    /// How many albums and folders it holds directly.
    public var childCount: Int

    /// `Identifiable` conformance: the local identifier.
    public var id: String { localIdentifier }

    /// Creates a folder value.
    public init(localIdentifier: String, title: String, parentFolderIdentifier: String? = nil, childCount: Int = 0) {
        self.localIdentifier = localIdentifier
        self.title = title
        self.parentFolderIdentifier = parentFolderIdentifier
        self.childCount = childCount
    }
}
