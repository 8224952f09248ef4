import Foundation
import PhotoLibCore

extension PhotoLibrary {
    /// The longest album or folder title, in Unicode scalars (as SQLite's `length()` counts).
    public static let maximumTitleLength = 255

    /// Every collection: the smart albums in a fixed order, then the user albums (top level
    /// first, then by folder, each group in its stable order), with counts, dates and key assets.
    public func assetCollections() throws(PhotoLibError) -> [AssetCollection] {
        try read { (database) throws(PhotoLibError) in
            var collections: [AssetCollection] = []
            for smart in SmartAlbum.all {
                collections.append(try Self.smartCollection(smart, limitedTo: limitedTo, in: database))
            }
            let albums = try database.prepare(
                """
                SELECT al.id, al.local_identifier, al.title, f.local_identifier
                FROM album al LEFT JOIN folder f ON f.id = al.folder_id
                ORDER BY al.folder_id IS NOT NULL, al.folder_id, al.position, al.id
                """
            ).rows { (row) throws(PhotoLibError) in (row.int64(0), row.text(1), row.text(2), row.optionalText(3)) }
            for (id, identifier, title, folder) in albums {
                collections.append(try Self.userCollection(id: id, identifier: identifier, title: title, folder: folder, limitedTo: limitedTo, in: database))
            }
            return collections
        }
    }

    /// How many user albums the library has (without computing any album's contents).
    public func userAlbumCount() throws(PhotoLibError) -> Int {
        try read { (database) throws(PhotoLibError) in
            try database.prepare("SELECT count(*) FROM album").firstRow { $0.int(0) } ?? 0
        }
    }

    /// The album or smart album with this identifier, or `nil` when there is none.
    public func assetCollection(withIdentifier identifier: String) throws(PhotoLibError) -> AssetCollection? {
        try LocalIdentifier.validate(identifier)
        return try read { (database) throws(PhotoLibError) in
            if let smart = SmartAlbum.withIdentifier(identifier) {
                return try Self.smartCollection(smart, limitedTo: limitedTo, in: database)
            }
            guard let (id, title, folder) = try database.prepare(
                """
                SELECT al.id, al.title, f.local_identifier FROM album al LEFT JOIN folder f ON f.id = al.folder_id
                WHERE al.local_identifier = ?
                """
            ).firstRow([.text(identifier)], { (row) throws(PhotoLibError) in (row.int64(0), row.text(1), row.optionalText(2)) })
            else { return nil }
            return try Self.userCollection(id: id, identifier: identifier, title: title, folder: folder, limitedTo: limitedTo, in: database)
        }
    }

    /// Creates an empty user album at the end of `folder` (a folder identifier; `nil`: the top level),
    /// recorded in the change log (author `createAlbum`).
    ///
    /// Throws `invalidArgument` for an empty or over-long title, `notFound` for an unknown folder.
    public func createAlbum(title: String, in folder: String? = nil) throws(PhotoLibError) -> AssetCollection {
        try Self.validateTitle(title, of: "album")
        if let folder { try LocalIdentifier.validate(folder) }
        let result = try applyUnattributed([.createAlbum(title: title, placeholder: "$album", parentFolder: folder)], author: "createAlbum")
        guard let identifier = result.placeholders["$album"] else {
            throw PhotoLibError(.internalError, "createAlbum committed without naming the new album")
        }
        return AssetCollection(
            localIdentifier: identifier, title: title, type: .album, subtype: .albumRegular,
            estimatedAssetCount: 0, parentFolderIdentifier: folder)
    }

    /// Creates an empty folder (collection list) at the end of `parent` (`nil`: the top level),
    /// recorded in the change log (author `createFolder`).
    public func createFolder(title: String, in parent: String? = nil) throws(PhotoLibError) -> CollectionList {
        try Self.validateTitle(title, of: "folder")
        if let parent { try LocalIdentifier.validate(parent) }
        let result = try applyUnattributed([.createFolder(title: title, placeholder: "$folder", parentFolder: parent)], author: "createFolder")
        guard let identifier = result.placeholders["$folder"] else {
            throw PhotoLibError(.internalError, "createFolder committed without naming the new folder")
        }
        return CollectionList(localIdentifier: identifier, title: title, parentFolderIdentifier: parent)
    }

    /// Appends assets to a user album, in the order given; assets already in it stay where
    /// they are. All or nothing: an unknown or deleted asset fails the whole call. Recorded
    /// in the change log (author `addAssets`).
    public func addAssets(_ identifiers: [String], toAlbum album: String) throws(PhotoLibError) {
        try Self.validateIdentifierList(identifiers)
        try LocalIdentifier.validate(album)
        _ = try applyUnattributed([.addAssets(album: album, assets: identifiers)], author: "addAssets")
    }

    /// The albums and smart albums with these identifiers, in the order given, each once;
    /// unknown ones skipped (as PhotoKit's `fetchAssetCollections(withLocalIdentifiers:)`).
    public func assetCollections(withIdentifiers identifiers: [String]) throws(PhotoLibError) -> [AssetCollection] {
        try Self.validateIdentifierList(identifiers)
        return try read { (database) throws(PhotoLibError) in
            var seen = Set<String>()
            var collections: [AssetCollection] = []
            let lookup = try database.prepare(
                """
                SELECT al.id, al.title, f.local_identifier FROM album al LEFT JOIN folder f ON f.id = al.folder_id
                WHERE al.local_identifier = ?
                """)
            for identifier in identifiers where seen.insert(identifier).inserted {
                if let smart = SmartAlbum.withIdentifier(identifier) {
                    collections.append(try Self.smartCollection(smart, limitedTo: limitedTo, in: database))
                } else if let (id, title, folder) = try lookup.firstRow([.text(identifier)], { (row) throws(PhotoLibError) in
                    (row.int64(0), row.text(1), row.optionalText(2))
                }) {
                    collections.append(try Self.userCollection(id: id, identifier: identifier, title: title, folder: folder, limitedTo: limitedTo, in: database))
                }
            }
            return collections
        }
    }

    /// The user albums holding an asset (hidden or trashed ones included), in the order of
    /// ``assetCollections()``; `notFound` for an unknown asset.
    public func fetchAssetCollectionsContaining(asset identifier: String) throws(PhotoLibError) -> [AssetCollection] {
        try LocalIdentifier.validate(identifier)
        return try read { (database) throws(PhotoLibError) in
            guard let assetID = try database.prepare("SELECT id FROM asset WHERE local_identifier = ?\(SelectionScope(limitedTo).and("local_identifier"))")
                .firstRow([.text(identifier)] + SelectionScope(limitedTo).values, { $0.int64(0) })
            else {
                throw PhotoLibError(.notFound, "no asset has the identifier \(identifier)")
            }
            let albums = try database.prepare(
                """
                SELECT al.id, al.local_identifier, al.title, f.local_identifier
                FROM album_asset aa JOIN album al ON al.id = aa.album_id LEFT JOIN folder f ON f.id = al.folder_id
                WHERE aa.asset_id = ?
                ORDER BY al.folder_id IS NOT NULL, al.folder_id, al.position, al.id
                """
            ).rows([.integer(assetID)]) { (row) throws(PhotoLibError) in (row.int64(0), row.text(1), row.text(2), row.optionalText(3)) }
            var collections: [AssetCollection] = []
            for (id, albumIdentifier, title, folder) in albums {
                collections.append(try Self.userCollection(id: id, identifier: albumIdentifier, title: title, folder: folder, limitedTo: limitedTo, in: database))
            }
            return collections
        }
    }

    /// Every folder: top-level ones first, then by parent, each group in its stable order,
    /// with the number of albums and folders each holds directly.
    public func collectionLists() throws(PhotoLibError) -> [CollectionList] {
        try read { (database) throws(PhotoLibError) in
            try database.prepare(
                """
                SELECT f.local_identifier, f.title, p.local_identifier,
                    (SELECT count(*) FROM album WHERE folder_id = f.id) + (SELECT count(*) FROM folder WHERE parent_id = f.id)
                FROM folder f LEFT JOIN folder p ON p.id = f.parent_id
                ORDER BY f.parent_id IS NOT NULL, f.parent_id, f.position, f.id
                """
            ).rows { (row) throws(PhotoLibError) in
                CollectionList(localIdentifier: row.text(0), title: row.text(1), parentFolderIdentifier: row.optionalText(2), childCount: row.int(3))
            }
        }
    }

    /// The folder with this identifier, or `nil` when there is none.
    public func collectionList(withIdentifier identifier: String) throws(PhotoLibError) -> CollectionList? {
        try LocalIdentifier.validate(identifier)
        return try collectionLists().first { $0.localIdentifier == identifier }
    }

    // MARK: Helpers

    /// Throws `invalidArgument` unless `title` has visible text, no control characters, and
    /// at most ``maximumTitleLength`` scalars.
    static func validateTitle(_ title: String, of kind: String) throws(PhotoLibError) {
        guard !title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw PhotoLibError(.invalidArgument, "an \(kind) title must not be empty or only spaces", reason: .invalidText)
        }
        guard title.unicodeScalars.count <= maximumTitleLength else {
            throw PhotoLibError(
                .invalidArgument,
                "\(kind) title '\(title.prefix(40))…' is \(title.unicodeScalars.count) characters; the limit is \(maximumTitleLength)",
                reason: .invalidText)
        }
        guard !title.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw PhotoLibError(.invalidArgument, "\(kind) title '\(title.prefix(40))' contains control characters", reason: .invalidText)
        }
    }

    /// The rowid of a folder; `notFound` when unknown.
    static func folderRowID(_ identifier: String, in database: Database) throws(PhotoLibError) -> Int64 {
        guard let id = try database.prepare("SELECT id FROM folder WHERE local_identifier = ?").firstRow([.text(identifier)], { $0.int64(0) }) else {
            throw PhotoLibError(.notFound, "no folder with identifier \(identifier)")
        }
        return id
    }

    /// The position after the last album or folder in `folderID` (`nil`: the top level):
    /// albums and folders share one order among siblings.
    static func nextChildPosition(_ folderID: Int64?, in database: Database) throws(PhotoLibError) -> Int64 {
        try database.prepare(
            """
            SELECT COALESCE(MAX(position), -1) + 1 FROM (
                SELECT position FROM album WHERE folder_id IS ?1
                UNION ALL SELECT position FROM folder WHERE parent_id IS ?1)
            """
        ).firstRow([folderID.map(DatabaseValue.integer) ?? .null], { $0.int64(0) }) ?? 0
    }

    /// A smart album's value, computed now.
    /// Counted in `limitedTo`'s selection when given.
    static func smartCollection(_ smart: SmartAlbum, limitedTo: String?, in database: Database) throws(PhotoLibError) -> AssetCollection {
        var query = AssetQuery(collection: smart.localIdentifier)
        query.limitedTo = limitedTo
        let plan = try QueryPlan(query, database: database)
        let (count, start, end) = try summary(fromWhere: plan.fromWhere, values: plan.values, in: database)
        // The cover of a smart album is its newest asset, as in Photos.
        let key = try database.prepareUncached(
            "SELECT a.local_identifier \(plan.fromWhere) ORDER BY a.creation_date DESC, a.local_identifier DESC LIMIT 1"
        ).firstRow(plan.values) { $0.text(0) }
        return AssetCollection(
            localIdentifier: smart.localIdentifier, title: smart.title, type: .smartAlbum, subtype: smart.subtype,
            estimatedAssetCount: count, startDate: start, endDate: end, keyAssetIdentifier: key)
    }

    /// A user album's value: visible assets only (not hidden, not trashed; in `limitedTo`'s
    /// selection when given).
    static func userCollection(
        id: Int64, identifier: String, title: String, folder: String?, limitedTo: String?, in database: Database
    ) throws(PhotoLibError) -> AssetCollection {
        let scope = limitedTo == nil ? "" : " AND a.local_identifier IN (SELECT asset_identifier FROM client_selection WHERE client_identifier = ?2)"
        let fromWhere = "FROM album_asset aa JOIN asset a ON a.id = aa.asset_id WHERE aa.album_id = ?1 AND a.trashed = 0 AND a.hidden = 0" + scope
        let parameters: [DatabaseValue] = [.integer(id)] + (limitedTo.map { [.text($0)] } ?? [])
        let (count, start, end) = try summary(fromWhere: fromWhere, values: parameters, in: database)
        // The cover of a user album is its chosen key asset while that is visible in it,
        // else its first visible asset.
        let key = try database.prepare(
            """
            SELECT a.local_identifier \(fromWhere)
            ORDER BY a.id IS (SELECT key_asset_id FROM album WHERE id = ?1) DESC, aa.position, a.local_identifier LIMIT 1
            """
        ).firstRow(parameters) { $0.text(0) }
        return AssetCollection(
            localIdentifier: identifier, title: title, type: .album, subtype: .albumRegular,
            estimatedAssetCount: count, startDate: start, endDate: end, keyAssetIdentifier: key,
            parentFolderIdentifier: folder)
    }

    /// Count and creation-date range of the assets selected by `fromWhere`.
    static func summary(fromWhere: String, values: [DatabaseValue], in database: Database) throws(PhotoLibError) -> (Int, Date?, Date?) {
        try database.prepareUncached("SELECT count(*), min(a.creation_date), max(a.creation_date) \(fromWhere)")
            .firstRow(values) { (row) throws(PhotoLibError) in
                (row.int(0), row.isNull(1) ? nil : Microseconds.date(row.int64(1)), row.isNull(2) ? nil : Microseconds.date(row.int64(2)))
            } ?? (0, nil, nil)
    }
}
