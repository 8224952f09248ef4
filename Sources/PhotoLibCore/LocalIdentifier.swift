import Foundation

/// Makes and checks PhotoKit-shaped local identifiers (`UUID/L0/001`).
public enum LocalIdentifier {
    /// The suffix of asset identifiers.
    public static let assetSuffix = "/L0/001"
    /// The suffix of album and smart-album identifiers.
    public static let collectionSuffix = "/L0/040"
    /// The suffix of folder identifiers.
    public static let folderSuffix = "/L0/020"
    /// The longest identifier accepted anywhere.
    public static let maximumLength = 128

    /// A new asset identifier.
    public static func newAsset() -> String { UUID().uuidString + assetSuffix }
    /// A new album identifier.
    public static func newAlbum() -> String { UUID().uuidString + collectionSuffix }
    /// A new folder identifier.
    public static func newFolder() -> String { UUID().uuidString + folderSuffix }
    /// The fixed identifier of a smart album.
    public static func smartAlbum(_ subtype: AssetCollectionSubtype) -> String {
        "smart-\(subtype.rawValue)" + collectionSuffix
    }

    /// Throws `invalidArgument` unless `text` is a plausible identifier (non-empty, bounded, printable ASCII).
    public static func validate(_ text: String) throws(PhotoLibError) {
        // Over the contiguous UTF-8 bytes (free for a native string): the server checks the
        // identifier of every request.
        var bytes = text
        let valid = bytes.withUTF8 { utf8 in
            !utf8.isEmpty && utf8.count <= maximumLength && !utf8.contains { $0 <= 0x20 || $0 >= 0x7f }
        }
        guard valid else {
            throw PhotoLibError(.invalidArgument, "'\(text.prefix(40))' is not a local identifier: expected something like 1F2E…/L0/001")
        }
    }
}
