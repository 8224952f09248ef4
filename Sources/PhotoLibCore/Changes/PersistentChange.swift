import Foundation

/// One object a committed transaction touched: PhotoKit's per-object change, as recorded in
/// the library's change log and reported by persistent history (`PHPersistentChange`).
///
/// The rules (one entry per object per transaction, in the order the transaction first
/// touched it):
/// - **Assets.** A new asset is `.inserted` (a `createAsset` whose bytes dedupe to an existing
///   asset inserts nothing). Trashing (`deleteAssets`) and restoring an asset are `.updated`
///   of the asset — in PhotoKit it leaves (or re-enters) fetch results but still exists —
///   as are property changes (favourite, hidden, creation date, location). `purgeAssets` is
///   `.deleted`. A request that changes nothing (favouriting a favourite, trashing a trashed
///   asset) records nothing.
/// - **Albums** (`assetCollection`). Created: `.inserted`; deleted: `.deleted`. `.updated` when
///   its title, folder, key asset, membership or order change, and when one of its member
///   assets is trashed, restored, purged, hidden, shown or re-dated (its count, date range
///   or cover may change). Smart albums are computed and never recorded.
/// - **Folders** (`collectionList`). Created: `.inserted`; deleted: `.deleted`; `.updated`
///   when renamed, moved, or when its direct children change (a child created, deleted,
///   moved in or out).
/// - **Merging** within one transaction: inserted then updated stays `.inserted`; updated then
///   deleted is `.deleted`; inserted then deleted records nothing (nobody outside the
///   transaction ever saw the object). `assetContentChanged` is true only when an asset's
///   image content changed (editing; nothing in this module's requests does).
public struct ObjectChange: Sendable, Hashable {
    /// The kind of object (wire enum `ObjectType`).
    public enum ObjectType: Int, Sendable, Hashable, CaseIterable {
        /// An asset.
        case asset = 1
        /// An album (user album; smart albums are never recorded).
        case assetCollection = 2
        /// A folder.
        case collectionList = 3
        /// The lower-camel name: `asset`, `assetCollection`, `collectionList`.
        public var name: String {
            switch self {
            case .asset: return "asset"
            case .assetCollection: return "assetCollection"
            case .collectionList: return "collectionList"
            }
        }
    }

    /// What happened to it.
    public enum Kind: Int, Sendable, Hashable, CaseIterable {
        /// Created by the transaction.
        case inserted = 1
        /// Changed by the transaction.
        case updated = 2
        /// Removed by the transaction.
        case deleted = 3
    }

    /// The kind of object.
    public var objectType: ObjectType
    /// Its local identifier.
    public var identifier: String
    /// What happened to it.
    public var kind: Kind
    /// For an updated asset: whether its image content changed (not only its metadata).
    public var assetContentChanged: Bool

    /// Creates a change value.
    public init(objectType: ObjectType, identifier: String, kind: Kind, assetContentChanged: Bool = false) {
        self.objectType = objectType
        self.identifier = identifier
        self.kind = kind
        self.assetContentChanged = assetContentChanged
    }
}

/// One committed transaction of the change log: PhotoKit's `PHPersistentChange`.
public struct PersistentChange: Sendable, Hashable {
    /// The transaction's token (strictly increasing with commit order).
    public var token: Int64
    /// When it committed.
    public var committedAt: Date
    /// Who made it: `performChanges` (or the caller's name), `import`, `trash-purge`…
    public var author: String
    /// The objects it touched.
    public var objects: [ObjectChange]

    /// Creates a value.
    public init(token: Int64, committedAt: Date, author: String, objects: [ObjectChange]) {
        self.token = token
        self.committedAt = committedAt
        self.author = author
        self.objects = objects
    }

    /// The token as the protocol and the CLI write it (decimal).
    public var changeToken: String { String(token) }

    /// The identifiers of the objects of `type` that the transaction changed as `kind`, in
    /// the order it touched them.
    public func identifiers(_ type: ObjectChange.ObjectType, _ kind: ObjectChange.Kind) -> [String] {
        objects.compactMap { $0.objectType == type && $0.kind == kind ? $0.identifier : nil }
    }
}

/// A page of persistent history: `fetchPersistentChanges(since:)`.
public struct PersistentChangePage: Sendable, Hashable {
    /// Transactions after the requested token, oldest first.
    public var changes: [PersistentChange]
    /// Whether more transactions follow: ask again since the last one's token.
    public var hasMore: Bool
    /// The library's current token when the page was read.
    public var currentToken: Int64

    /// Creates a page.
    public init(changes: [PersistentChange], hasMore: Bool, currentToken: Int64) {
        self.changes = changes
        self.hasMore = hasMore
        self.currentToken = currentToken
    }

    /// The token to ask from next: the last transaction's, or `since` when the page is empty.
    public func nextToken(after since: Int64) -> Int64 { changes.last?.token ?? since }
}
