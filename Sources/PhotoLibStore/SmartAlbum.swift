import PhotoLibCore

/// A smart album: a collection the library computes from asset columns.
struct SmartAlbum: Sendable {
    /// Which smart album.
    var subtype: AssetCollectionSubtype
    /// The title shown to people.
    var title: String
    /// The SQL condition on `asset a` selecting its members (trash and hidden rules included
    /// where the album overrides the defaults).
    var condition: String
    /// Whether the album has its own hidden rule (Hidden, Recently Deleted) rather than
    /// following `includeHiddenAssets`.
    var ownsHiddenRule: Bool
    /// Whether the album's members are trashed assets (Recently Deleted only).
    var showsTrash: Bool

    /// How far back Recently Added reaches.
    static let recentlyAddedWindowSeconds: Int64 = 30 * 24 * 60 * 60

    /// Every smart album, in the order they are listed.
    static let all: [SmartAlbum] = [
        SmartAlbum(subtype: .smartAlbumUserLibrary, title: "All Photos", condition: "1", ownsHiddenRule: false, showsTrash: false),
        SmartAlbum(subtype: .smartAlbumFavorites, title: "Favorites", condition: "a.favorite = 1", ownsHiddenRule: false, showsTrash: false),
        SmartAlbum(
            subtype: .smartAlbumRecentlyAdded, title: "Recently Added",
            // The bound parameter is the cut-off, in microseconds; see `parameters(now:)`.
            condition: "a.added_date >= ?", ownsHiddenRule: false, showsTrash: false),
        SmartAlbum(subtype: .smartAlbumVideos, title: "Videos", condition: "a.media_type = 2", ownsHiddenRule: false, showsTrash: false),
        SmartAlbum(
            subtype: .smartAlbumScreenshots, title: "Screenshots",
            condition: "a.media_subtypes <> 0 AND (a.media_subtypes & \(MediaSubtypes.photoScreenshot.rawValue)) <> 0",
            ownsHiddenRule: false, showsTrash: false),
        SmartAlbum(
            subtype: .smartAlbumPanoramas, title: "Panoramas",
            condition: "a.media_subtypes <> 0 AND (a.media_subtypes & \(MediaSubtypes.photoPanorama.rawValue)) <> 0",
            ownsHiddenRule: false, showsTrash: false),
        SmartAlbum(
            subtype: .smartAlbumLivePhotos, title: "Live Photos",
            condition: "a.media_subtypes <> 0 AND (a.media_subtypes & \(MediaSubtypes.photoLive.rawValue)) <> 0",
            ownsHiddenRule: false, showsTrash: false),
        SmartAlbum(subtype: .smartAlbumAllHidden, title: "Hidden", condition: "a.hidden = 1", ownsHiddenRule: true, showsTrash: false),
        SmartAlbum(subtype: .smartAlbumRecentlyDeleted, title: "Recently Deleted", condition: "1", ownsHiddenRule: true, showsTrash: true),
    ]

    /// The smart album with this local identifier, if it is one.
    static func withIdentifier(_ identifier: String) -> SmartAlbum? {
        all.first { $0.localIdentifier == identifier }
    }

    /// The fixed identifier, `LocalIdentifier.smartAlbum(subtype)`.
    var localIdentifier: String { LocalIdentifier.smartAlbum(subtype) }

    /// Values for the `?` in ``condition``.
    func parameters(now: Int64) -> [DatabaseValue] {
        subtype == .smartAlbumRecentlyAdded ? [.integer(now - Self.recentlyAddedWindowSeconds * 1_000_000)] : []
    }
}
