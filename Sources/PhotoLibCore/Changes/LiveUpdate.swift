/// What one transaction did to one asset, as a live fetch result needs to know it.
public struct LiveUpdate: Sendable, Hashable {
    /// The asset's local identifier.
    public var identifier: String
    /// The asset's value after the transaction; `nil` when it no longer exists (deleted or
    /// purged). Its `localIdentifier` must be ``identifier``.
    public var asset: Asset?
    /// Whether the asset belongs to the fetch after the transaction (its query matches,
    /// before the fetch limit). Ignored (taken as `false`) when ``asset`` is `nil`.
    public var matches: Bool
    /// Whether the asset's content (image data or adjustments) changed, PhotoKit's
    /// `assetContentChanged`. Carried for per-object details; it does not affect fetch-result
    /// indexes: every touched asset that stays in a result is reported changed.
    public var contentChanged: Bool

    /// An update of `identifier` to `asset` (nil: gone), a member of the fetch or not.
    public init(identifier: String, asset: Asset?, matches: Bool, contentChanged: Bool = false) {
        self.identifier = identifier
        self.asset = asset
        self.matches = matches
        self.contentChanged = contentChanged
    }

    /// An update to `asset`, which exists after the transaction.
    public init(_ asset: Asset, matches: Bool, contentChanged: Bool = false) {
        self.init(identifier: asset.localIdentifier, asset: asset, matches: matches, contentChanged: contentChanged)
    }

    /// The update for a deleted asset.
    public static func deleted(_ identifier: String) -> LiveUpdate {
        LiveUpdate(identifier: identifier, asset: nil, matches: false)
    }
}
