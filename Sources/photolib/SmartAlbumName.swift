import PhotoLibCore

/// Smart albums by name on the command line: `--album videos` means the Videos smart album.
enum SmartAlbumName {
    /// The identifier `text` names: a smart album's short name (`videos`, `live-photos`,
    /// `screenshots`, `panoramas`, `favorites`, `recently-added`, `recently-deleted`, `hidden`,
    /// `all`; case, `-` and `_` ignored; PhotoKit's `smartAlbumVideos` works too), else `text`
    /// itself (an album identifier).
    static func resolve(_ text: String) -> String {
        let key = normalized(text)
        guard !key.isEmpty else { return text }
        for subtype in AssetCollectionSubtype.allCases where subtype.name.hasPrefix("smartAlbum") {
            let names = [normalized(subtype.name), normalized(String(subtype.name.dropFirst("smartAlbum".count)))] + aliases(subtype)
            if names.contains(key) { return LocalIdentifier.smartAlbum(subtype) }
        }
        return text
    }

    /// Every short name, for help texts.
    static let shortNames = "videos, live-photos, screenshots, panoramas, favorites, recently-added, recently-deleted, hidden, all"

    private static func aliases(_ subtype: AssetCollectionSubtype) -> [String] {
        switch subtype {
        case .smartAlbumUserLibrary: return ["all", "allphotos", "library"]
        case .smartAlbumAllHidden: return ["hidden"]
        case .smartAlbumLivePhotos: return ["live"]
        default: return []
        }
    }

    private static func normalized(_ text: String) -> String {
        String(text.lowercased().filter { $0.isLetter })
    }
}
