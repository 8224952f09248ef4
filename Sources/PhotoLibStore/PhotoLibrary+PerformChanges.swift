import Foundation
import PhotoLibCore

extension PhotoLibrary {
    /// Applies a batch of change requests as ONE SQLite transaction: PhotoKit's
    /// `performChanges`. All or nothing: when a request fails, everything is rolled back
    /// (rows and files) and the error carries `PhotoLibError.failedRequestIndex` and a
    /// message naming the request, e.g. `request 3 (addAssets): no asset has the identifier …`.
    ///
    /// The transaction also appends one entry to the change log (see `ObjectChange` for
    /// what is recorded); a batch that changes nothing records nothing and returns the
    /// current token.
    ///
    /// Semantics beyond PhotoKit's names:
    /// - **Placeholders** (`$label`) declared by `createAsset`, `createAlbum` and
    ///   `createFolder` may be used in any identifier field of a later request; declaring one
    ///   twice, or using one before it is declared, is `invalidArgument`.
    /// - **createAsset** uses the staged upload's metadata, overridden by the request. When the
    ///   bytes are already an asset (same SHA-256) the placeholder resolves to that asset and
    ///   nothing is created (if it was in Recently Deleted it is restored). The upload is
    ///   consumed either way. An unknown upload is `notFound`, an expired one `failedPrecondition`.
    /// - **deleteAssets** moves assets to Recently Deleted; they keep their album memberships
    ///   (hidden from album fetches) and **restoreAssets** brings them back in place.
    ///   **purgeAssets** removes assets for good (trashed or not): rows and memberships in the
    ///   transaction, files after the commit (``ChangeResult/removedFiles``).
    /// - **Album indexes** (`insertAssets(at:)`, `moveAssets(from:to:)`) count the album's
    ///   visible assets (not hidden, not trashed): the album's default fetch result.
    ///   `insertAssets` takes `0…count`; an asset already in the album, or listed twice, is
    ///   `invalidArgument` (use `moveAssets`). `moveAssets` follows `moveAssets(at:to:)`:
    ///   the assets at the (distinct, valid) indexes are removed, in ascending index order,
    ///   then inserted at `to`, an index into the array after the removal (`0…count − k`).
    ///   `addAssets` appends and ignores assets already present; `removeAssets` ignores
    ///   assets not in the album. Positions are renumbered densely after every change.
    /// - **setKeyAsset** needs an asset in the album (`invalidArgument` otherwise); `nil`
    ///   restores the default cover, the album's first visible asset.
    /// - **deleteCollections** moves a deleted folder's children to its parent (appended);
    ///   deleting an album removes its memberships, never its assets. **moveCollections**
    ///   appends to the destination; moving a folder into itself or a descendant is
    ///   `invalidArgument`.
    /// - Errors: malformed identifiers, titles, locations, dates and indexes are
    ///   `invalidArgument`; unknown identifiers `notFound` naming them; an identifier of the
    ///   wrong kind (an album where an asset is expected, a smart album as a target)
    ///   `invalidArgument`; a trashed asset added to an album or edited `failedPrecondition`;
    ///   more than `ChangeLimits` allow `resourceExhausted`.
    public func performChanges(
        _ requests: [ChangeRequest], author: String = "performChanges", now: Date = Date()
    ) throws(PhotoLibError) -> ChangeResult {
        try ChangeLog.validateAuthor(author)
        guard requests.count <= ChangeLimits.maxRequests else {
            throw PhotoLibError(
                .resourceExhausted, "a batch holds at most \(ChangeLimits.maxRequests) requests; this one has \(requests.count); split it")
        }
        let time = try Microseconds.validated(now, "change time")
        return try runBatch(author: author, now: time, usingReserve: requests.allSatisfy(\.freesSpace)) { (batch) throws(PhotoLibError) in
            for (index, request) in requests.enumerated() {
                do throws(PhotoLibError) {
                    try batch.apply(request)
                } catch {
                    throw PhotoLibError(
                        error.code, "request \(index) (\(request.name)): \(error.message)",
                        reason: error.reason == .unspecified ? .changeRequestFailed : error.reason,
                        failedRequestIndex: index)
                }
            }
        }
    }

    /// Runs `body` in one write transaction with a fresh ``ChangeBatch``, appends the change
    /// log entry, commits, then removes the files the batch released. On failure, files the
    /// batch linked into `originals/` are removed again.
    /// On a full disk, a batch `usingReserve` (one that frees space: see
    /// ``ChangeRequest/freesSpace``) runs once more with the library's reserve released (see
    /// ``DiskReserve``): deletes and purges must work when nothing else can. Any other batch
    /// fails with "disk full" and leaves the reserve to them.
    func runBatch(
        author: String, now: Int64, usingReserve: Bool = false, _ body: (ChangeBatch) throws(PhotoLibError) -> Void
    ) throws(PhotoLibError) -> ChangeResult {
        try writeUsingReserveIfFull(usingReserve: usingReserve) { () throws(PhotoLibError) in try runBatchOnce(author: author, now: now, body) }
    }

    private func runBatchOnce(author: String, now: Int64, _ body: (ChangeBatch) throws(PhotoLibError) -> Void) throws(PhotoLibError) -> ChangeResult {
        var started: ChangeBatch?
        let committed: (ChangeBatch, Int64)
        do {
            committed = try write { (database) throws(PhotoLibError) in
                let batch = ChangeBatch(database: database, files: files, now: now, limitedTo: limitedTo, addsOnly: addsOnly)
                started = batch
                try body(batch)
                let token = try ChangeLog.append(batch.changes, author: author, committedAt: now, in: database)
                if let token { return (batch, token) }
                return (batch, try ChangeLog.currentToken(in: database))
            }
        } catch {
            // Not committed: the linked originals are orphans now. If removing one fails,
            // recovery removes it at the next exclusive open.
            for path in started?.linkedFiles ?? [] { try? files.remove(path) }
            throw error
        }
        let (batch, token) = committed
        var result = ChangeResult(token: token, placeholders: batch.placeholders, changes: batch.changes.changes)
        for path in batch.consumedUploadFiles { try? files.remove(path) }
        for path in batch.purgedFiles {
            do {
                try files.remove(path)
                result.removedFiles.append(files.absolutePath(path))
            } catch {
                result.fileRemovalFailures.append(error.message)
            }
        }
        return result
    }
}

/// The state of one `performChanges` transaction: placeholders, the change set, and the
/// files written (to undo on rollback) or released (to remove after the commit).
///
/// Used only inside the transaction, under the library's lock.
final class ChangeBatch {
    let database: Database
    let files: FileStore
    /// The transaction's time, in microseconds.
    let now: Int64
    /// Placeholder label → real identifier.
    private(set) var placeholders: [String: String] = [:]
    /// What the transaction touched.
    var changes = ChangeSet()
    /// Originals linked by `createAsset` (relative paths): removed if the batch fails.
    var linkedFiles: [String] = []
    /// Staged-upload files consumed: removed after the commit.
    var consumedUploadFiles: [String] = []
    /// Files of purged assets: removed after the commit.
    var purgedFiles: [String] = []
    /// The asset each `createAsset` of this batch made or found, by its file's base name, and
    /// whether that file was a movie: the halves of a Live Photo pair by name.
    var createdByBaseName: [String: (identifier: String, isVideo: Bool)] = [:]
    /// The limited client whose view the batch runs in (``PhotoLibrary/limited(to:)``): an
    /// asset outside its selection is unknown, album indexes are refused, and the assets it
    /// creates join its selection. `nil`: the whole library.
    let limitedTo: String?
    /// Whether the batch runs for an add-only client (``PhotoLibrary/addingOnly()``): it
    /// names and changes no asset that was there before it.
    let addsOnly: Bool
    /// The assets this batch inserted: for an add-only batch, the only Live Photo partners.
    var insertedAssets: [String] = []
    /// Placeholders of `createAsset`s that created nothing and may not name the asset whose
    /// bytes they uploaded (an add-only client's, or a limited client's copy of an asset
    /// outside its selection): `add_assets` leaves them out, any other use is refused.
    var unnamedPlaceholders: Set<String> = []

    init(database: Database, files: FileStore, now: Int64, limitedTo: String? = nil, addsOnly: Bool = false) {
        self.database = database
        self.files = files
        self.now = now
        self.limitedTo = limitedTo
        self.addsOnly = addsOnly
    }

    /// Applies one request.
    func apply(_ request: ChangeRequest, checkingLimits: Bool = true) throws(PhotoLibError) {
        let count = Self.identifierCount(request)
        guard !checkingLimits || count <= ChangeLimits.maxIdentifiersPerRequest else {
            throw PhotoLibError(
                .resourceExhausted,
                "\(count) identifiers in one request; the limit is \(ChangeLimits.maxIdentifiersPerRequest), split the request")
        }
        switch request {
        case .createAsset(let create): try createAsset(create)
        case .deleteAssets(let assets): try setTrashed(true, assets)
        case .restoreAssets(let assets): try setTrashed(false, assets)
        case .purgeAssets(let assets): try purgeAssets(assets)
        case .setAssetProperties(let properties): try setAssetProperties(properties)
        case .createAlbum(let title, let placeholder, let parent): try createAlbum(title: title, placeholder: placeholder, parent: parent)
        case .createFolder(let title, let placeholder, let parent): try createFolder(title: title, placeholder: placeholder, parent: parent)
        case .renameCollection(let collection, let title): try renameCollection(collection, title: title)
        case .deleteCollections(let collections): try deleteCollections(collections)
        case .addAssets(let album, let assets): try addAssets(album: album, assets: assets)
        case .insertAssets(let album, let assets, let index): try insertAssets(album: album, assets: assets, at: index)
        case .removeAssets(let album, let assets): try removeAssets(album: album, assets: assets)
        case .moveAssets(let album, let from, let to): try moveAssets(album: album, from: from, to: to)
        case .setKeyAsset(let album, let asset): try setKeyAsset(album: album, asset: asset)
        case .moveCollections(let collections, let folder): try moveCollections(collections, to: folder)
        case .commitContentEdit(let edit): try commitContentEdit(edit)
        case .revertAssetContent(let asset): try revertAssetContent(asset)
        }
    }

    /// How many identifiers (or indexes) a request carries.
    static func identifierCount(_ request: ChangeRequest) -> Int {
        switch request {
        case .deleteAssets(let list), .restoreAssets(let list), .purgeAssets(let list), .deleteCollections(let list):
            return list.count
        case .addAssets(_, let list), .insertAssets(_, let list, _), .removeAssets(_, let list), .moveCollections(let list, _):
            return list.count
        case .moveAssets(_, let from, _):
            return from.count
        default:
            return 1
        }
    }

    // MARK: Assets

    /// Takes staged upload `uploadID` for this batch: checks it exists, has not expired and
    /// still has its bytes, deletes its row, and removes its file after the commit (the
    /// caller links the file where it keeps it).
    func consumeUpload(_ uploadID: String) throws(PhotoLibError) -> StagedUploadRecord {
        try PhotoLibrary.validateUploadID(uploadID)
        guard let upload = try database.prepare("SELECT \(StagedUploadRecord.columns) FROM staged_upload WHERE upload_id = ?")
            .firstRow([.text(uploadID)], StagedUploadRecord.decode)
        else {
            throw PhotoLibError(
                .notFound, "no staged upload has the id \(uploadID): it was never staged, was used already, or expired and was purged")
        }
        guard upload.expires > now else {
            throw PhotoLibError(
                .failedPrecondition,
                "staged upload \(uploadID) expired at \(Microseconds.date(upload.expires)); upload the photo again")
        }
        guard files.fileSize(upload.filePath) == upload.byteSize else {
            throw PhotoLibError(
                .failedPrecondition, "the bytes of staged upload \(uploadID) are missing from \(files.absolutePath(upload.filePath)); upload the photo again")
        }
        try database.prepare("DELETE FROM staged_upload WHERE id = ?").execute([.integer(upload.rowID)])
        consumedUploadFiles.append(upload.filePath)
        return upload
    }

    private func createAsset(_ create: ChangeRequest.CreateAsset) throws(PhotoLibError) {
        if let label = create.placeholder { try checkUndeclared(label) }
        let creationOverride = try create.creationDate.map { (date) throws(PhotoLibError) in try Microseconds.validated(date, "creation date") }
        var locationOverride: Location??
        switch create.location {
        case .set(let location)?: locationOverride = .some(try location.validated())
        case .clear?: locationOverride = .some(nil)
        case nil: locationOverride = nil
        }
        let upload = try consumeUpload(create.uploadID)
        let metadata = upload.metadata
        let original = NewOriginal(
            metadata: metadata, sha256: upload.sha256, byteSize: upload.byteSize,
            creationDate: creationOverride ?? Microseconds.from(metadata.creationDate), location: locationOverride ?? metadata.location,
            isFavorite: create.isFavorite, isHidden: create.isHidden)
        // The two halves of a Live Photo uploaded in one batch pair by base name too.
        let baseName = OriginalFileType.livePhotoKey(metadata.originalFilename)
        let partner = createdByBaseName[baseName].flatMap { $0.isVideo != metadata.fileType.isVideo ? $0.identifier : nil }
        let placement = try placeOriginal(original, partner: partner, restoreTrashed: !addsOnly) { (relativePath) throws(PhotoLibError) in
            try self.files.link(upload.filePath, to: relativePath)
            self.linkedFiles.append(relativePath)
        }
        let identifier = placement.identifier
        // Bytes of an asset already there that this client may not name?
        var unnamable = false
        if case .existing = placement { unnamable = addsOnly ? true : try !SelectionScope(limitedTo).contains(identifier, in: database) }
        switch placement {
        case .existing where unnamable:
            // Bytes already in the library that this client may not name: an add-only client
            // names no asset that was there before, and a limited client's copy of an asset it
            // was not given gives it neither that asset's metadata and albums nor the right to
            // change it (nor was it restored from Recently Deleted: see `placeOriginal`).
            // Nothing is created; a limited client asks for it with `RequestMoreAssets`.
            if let label = create.placeholder { unnamedPlaceholders.insert(label) }
            return
        case .inserted:
            insertedAssets.append(identifier)
        case .existing, .paired:
            break
        }
        createdByBaseName[baseName] = (identifier, metadata.fileType.isVideo)
        if let limitedTo { try PhotoLibrary.join([identifier], selectionOf: limitedTo, in: database) }
        if let label = create.placeholder { placeholders[label] = identifier }
    }

    private func setTrashed(_ trashed: Bool, _ identifiers: [String]) throws(PhotoLibError) {
        for identifier in try uniqueResolved(identifiers) {
            let asset = try assetRow(identifier)
            if asset.trashed != trashed { try updateTrashed(trashed, assetID: asset.id, identifier: identifier) }
        }
    }

    func updateTrashed(_ trashed: Bool, assetID: Int64, identifier: String) throws(PhotoLibError) {
        try database.prepare("UPDATE asset SET trashed = ?, trashed_date = ?, modification_date = ? WHERE id = ?")
            .execute([.bool(trashed), trashed ? .integer(now) : .null, .integer(now), .integer(assetID)])
        changes.record(.asset, identifier, .updated)
        try recordAlbums(containing: assetID)
    }

    private func purgeAssets(_ identifiers: [String]) throws(PhotoLibError) {
        for identifier in try uniqueResolved(identifiers) {
            let asset = try assetRow(identifier)
            let paths = try database.prepare("SELECT file_path FROM asset_resource WHERE asset_id = ?").rows([.integer(asset.id)]) { $0.text(0) }
            let albums = try albums(containing: asset.id)
            try database.prepare("DELETE FROM asset WHERE id = ?").execute([.integer(asset.id)])
            changes.record(.asset, identifier, .deleted)
            for (albumID, albumIdentifier) in albums {
                // The cascade left a gap in the order: renumber.
                let members = try members(ofAlbum: albumID)
                try saveMembers(ofAlbum: albumID, before: members, after: members.map(\.assetID))
                changes.record(.assetCollection, albumIdentifier, .updated)
            }
            purgedFiles += paths
        }
    }

    private func setAssetProperties(_ properties: ChangeRequest.SetAssetProperties) throws(PhotoLibError) {
        let identifier = try resolve(properties.asset)
        let asset = try assetRow(identifier)
        guard !asset.trashed else {
            throw PhotoLibError(.failedPrecondition, "asset \(identifier) is in Recently Deleted; restore it first")
        }
        let newDate = try properties.creationDate.map { (date) throws(PhotoLibError) in try Microseconds.validated(date, "creation date") }
        var newLocation: Location??
        switch properties.location {
        case .set(let location)?: newLocation = .some(try location.validated())
        case .clear?: newLocation = .some(nil)
        case nil: newLocation = nil
        }
        guard let current = try database.prepare(
            "SELECT favorite, hidden, creation_date, latitude, longitude, altitude FROM asset WHERE id = ?"
        ).firstRow([.integer(asset.id)], { (row) throws(PhotoLibError) in
            (favorite: row.int(0) != 0, hidden: row.int(1) != 0, date: row.int64(2),
             location: row.optionalDouble(3).map { Location(latitude: $0, longitude: row.double(4), altitude: row.optionalDouble(5)) })
        }) else {
            throw PhotoLibError(.internalError, "asset \(identifier) vanished inside its own transaction")
        }
        let favorite = properties.isFavorite ?? current.favorite
        let hidden = properties.isHidden ?? current.hidden
        let date = newDate ?? current.date
        let location = newLocation ?? current.location
        guard favorite != current.favorite || hidden != current.hidden || date != current.date || location != current.location else { return }
        try database.prepare(
            """
            UPDATE asset SET favorite = ?, hidden = ?, creation_date = ?, latitude = ?, longitude = ?, altitude = ?,
                modification_date = ? WHERE id = ?
            """
        ).execute([
            .bool(favorite), .bool(hidden), .integer(date), .optionalReal(location?.latitude), .optionalReal(location?.longitude),
            .optionalReal(location?.altitude), .integer(now), .integer(asset.id),
        ])
        changes.record(.asset, identifier, .updated)
        if hidden != current.hidden || date != current.date { try recordAlbums(containing: asset.id) }
    }

    // MARK: Albums and folders

    private func createAlbum(title: String, placeholder: String?, parent: String?) throws(PhotoLibError) {
        try PhotoLibrary.validateTitle(title, of: "album")
        if let placeholder { try checkUndeclared(placeholder) }
        let folder = try parent.map { (parent) throws(PhotoLibError) in try folderRow(try resolve(parent)) }
        let identifier = LocalIdentifier.newAlbum()
        try database.prepare(
            """
            INSERT INTO album (local_identifier, title, folder_id, position, creation_date, modification_date)
            VALUES (?, ?, ?, ?, ?, ?)
            """
        ).execute([
            .text(identifier), .text(title), folder.map { .integer($0.id) } ?? .null,
            .integer(try PhotoLibrary.nextChildPosition(folder?.id, in: database)), .integer(now), .integer(now),
        ])
        changes.record(.assetCollection, identifier, .inserted)
        if let folder { changes.record(.collectionList, folder.identifier, .updated) }
        if let placeholder { placeholders[placeholder] = identifier }
    }

    private func createFolder(title: String, placeholder: String?, parent: String?) throws(PhotoLibError) {
        try PhotoLibrary.validateTitle(title, of: "folder")
        if let placeholder { try checkUndeclared(placeholder) }
        let folder = try parent.map { (parent) throws(PhotoLibError) in try folderRow(try resolve(parent)) }
        let identifier = LocalIdentifier.newFolder()
        try database.prepare(
            "INSERT INTO folder (local_identifier, title, parent_id, position, creation_date) VALUES (?, ?, ?, ?, ?)"
        ).execute([
            .text(identifier), .text(title), folder.map { .integer($0.id) } ?? .null,
            .integer(try PhotoLibrary.nextChildPosition(folder?.id, in: database)), .integer(now),
        ])
        changes.record(.collectionList, identifier, .inserted)
        if let folder { changes.record(.collectionList, folder.identifier, .updated) }
        if let placeholder { placeholders[placeholder] = identifier }
    }

    private func renameCollection(_ collection: String, title: String) throws(PhotoLibError) {
        let identifier = try resolve(collection)
        switch try changeableCollectionRow(identifier, "rename") {
        case .album(let id, _):
            try PhotoLibrary.validateTitle(title, of: "album")
            try database.prepare("UPDATE album SET title = ?1, modification_date = ?2 WHERE id = ?3 AND title <> ?1")
                .execute([.text(title), .integer(now), .integer(id)])
            if database.changes > 0 { changes.record(.assetCollection, identifier, .updated) }
        case .folder(let id, _):
            try PhotoLibrary.validateTitle(title, of: "folder")
            try database.prepare("UPDATE folder SET title = ?1 WHERE id = ?2 AND title <> ?1").execute([.text(title), .integer(id)])
            if database.changes > 0 { changes.record(.collectionList, identifier, .updated) }
        }
    }

    private func deleteCollections(_ collections: [String]) throws(PhotoLibError) {
        for identifier in try uniqueResolved(collections) {
            switch try changeableCollectionRow(identifier, "delete") {
            case .album(let id, let parent):
                try database.prepare("DELETE FROM album WHERE id = ?").execute([.integer(id)])
                changes.record(.assetCollection, identifier, .deleted)
                try recordFolder(parent)
            case .folder(let id, let parent):
                // Children move to the parent, in their order, at its end (before the delete:
                // the foreign keys would cascade).
                let children = try database.prepare(
                    """
                    SELECT 0, id, local_identifier, position FROM album WHERE folder_id = ?1
                    UNION ALL SELECT 1, id, local_identifier, position FROM folder WHERE parent_id = ?1
                    ORDER BY 4, 1, 2
                    """
                ).rows([.integer(id)]) { (row) throws(PhotoLibError) in (row.int(0) == 0, row.int64(1), row.text(2)) }
                for (isAlbum, childID, childIdentifier) in children {
                    try reparent(isAlbum: isAlbum, id: childID, identifier: childIdentifier, to: parent)
                }
                try database.prepare("DELETE FROM folder WHERE id = ?").execute([.integer(id)])
                changes.record(.collectionList, identifier, .deleted)
                try recordFolder(parent)
            }
        }
    }

    private func moveCollections(_ collections: [String], to destination: String?) throws(PhotoLibError) {
        let target = try destination.map { (folder) throws(PhotoLibError) in try folderRow(try resolve(folder)) }
        for identifier in try uniqueResolved(collections) {
            switch try changeableCollectionRow(identifier, "move") {
            case .album(let id, let parent):
                guard parent != target?.id else { continue }
                try reparent(isAlbum: true, id: id, identifier: identifier, to: target?.id)
                try recordFolder(parent)
            case .folder(let id, let parent):
                guard parent != target?.id else { continue }
                // No cycles: the destination must not be the folder or one of its descendants.
                var ancestor = target?.id
                while let current = ancestor {
                    guard current != id else {
                        throw PhotoLibError(
                            .invalidArgument,
                            "folder \(identifier) cannot move into \(target?.identifier ?? "itself"), which is itself or inside it")
                    }
                    ancestor = try database.prepare("SELECT parent_id FROM folder WHERE id = ?")
                        .firstRow([.integer(current)]) { $0.isNull(0) ? nil : $0.int64(0) } ?? nil
                }
                try reparent(isAlbum: false, id: id, identifier: identifier, to: target?.id)
                try recordFolder(parent)
            }
        }
    }

    /// Moves an album or folder to the end of `folderID` (`nil`: the top level), recording
    /// it and its new parent as updated.
    private func reparent(isAlbum: Bool, id: Int64, identifier: String, to folderID: Int64?) throws(PhotoLibError) {
        let position = try PhotoLibrary.nextChildPosition(folderID, in: database)
        let parent: DatabaseValue = folderID.map(DatabaseValue.integer) ?? .null
        if isAlbum {
            try database.prepare("UPDATE album SET folder_id = ?, position = ?, modification_date = ? WHERE id = ?")
                .execute([parent, .integer(position), .integer(now), .integer(id)])
            changes.record(.assetCollection, identifier, .updated)
        } else {
            try database.prepare("UPDATE folder SET parent_id = ?, position = ? WHERE id = ?")
                .execute([parent, .integer(position), .integer(id)])
            changes.record(.collectionList, identifier, .updated)
        }
        try recordFolder(folderID)
    }

    /// Records a folder (by rowid; `nil`: the top level, nothing to record) as updated.
    private func recordFolder(_ folderID: Int64?) throws(PhotoLibError) {
        guard let folderID else { return }
        if let identifier = try database.prepare("SELECT local_identifier FROM folder WHERE id = ?").firstRow([.integer(folderID)], { $0.text(0) }) {
            changes.record(.collectionList, identifier, .updated)
        }
    }

    // MARK: Album contents

    private func addAssets(album: String, assets: [String]) throws(PhotoLibError) {
        let (albumID, albumIdentifier) = try albumRow(try resolve(album))
        // A copy that created nothing (`unnamedPlaceholders`) is left out: it is there already,
        // as an asset this client may not name.
        let added = try uniqueResolved(assets.filter { !unnamedPlaceholders.contains($0) })
            .map { (identifier) throws(PhotoLibError) in try untrashedAsset(identifier).id }
        let before = try members(ofAlbum: albumID)
        let present = Set(before.map(\.assetID))
        let after = before.map(\.assetID) + added.filter { !present.contains($0) }
        guard after.count != before.count else { return }
        try saveMembers(ofAlbum: albumID, before: before, after: after)
        try touchAlbum(albumID, albumIdentifier)
    }

    private func insertAssets(album: String, assets: [String], at index: Int) throws(PhotoLibError) {
        try refuseAlbumIndexesInLimitedView()
        let (albumID, albumIdentifier) = try albumRow(try resolve(album))
        let before = try members(ofAlbum: albumID)
        let visibleCount = before.filter(\.visible).count
        guard (0...visibleCount).contains(index) else {
            throw PhotoLibError(.invalidArgument, "index \(index) is outside 0…\(visibleCount), the album's asset count")
        }
        let present = Set(before.map(\.assetID))
        var inserted: [Int64] = []
        for text in assets {
            let identifier = try resolve(text)
            let asset = try untrashedAsset(identifier)
            guard !present.contains(asset.id) else {
                throw PhotoLibError(.invalidArgument, "asset \(identifier) is already in album \(albumIdentifier); use moveAssets to reorder it")
            }
            guard !inserted.contains(asset.id) else {
                throw PhotoLibError(.invalidArgument, "asset \(identifier) is listed twice")
            }
            inserted.append(asset.id)
        }
        guard !inserted.isEmpty else { return }
        var after = before.map(\.assetID)
        after.insert(contentsOf: inserted, at: Self.fullIndex(forVisibleIndex: index, in: before))
        try saveMembers(ofAlbum: albumID, before: before, after: after)
        try touchAlbum(albumID, albumIdentifier)
    }

    private func removeAssets(album: String, assets: [String]) throws(PhotoLibError) {
        let (albumID, albumIdentifier) = try albumRow(try resolve(album))
        let removed = Set(try uniqueResolved(assets).map { (identifier) throws(PhotoLibError) in try assetRow(identifier).id })
        let before = try members(ofAlbum: albumID)
        let after = before.map(\.assetID).filter { !removed.contains($0) }
        guard after.count != before.count else { return }
        try saveMembers(ofAlbum: albumID, before: before, after: after)
        // A removed key asset no longer names the cover.
        try database.prepare("UPDATE album SET key_asset_id = NULL WHERE id = ? AND key_asset_id IN (SELECT value FROM json_each(?))")
            .execute([.integer(albumID), .text("[" + removed.map(String.init).joined(separator: ",") + "]")])
        try touchAlbum(albumID, albumIdentifier)
    }

    private func moveAssets(album: String, from: [Int], to: Int) throws(PhotoLibError) {
        try refuseAlbumIndexesInLimitedView()
        let (albumID, albumIdentifier) = try albumRow(try resolve(album))
        let before = try members(ofAlbum: albumID)
        let visible = before.filter(\.visible)
        let indexes = from.sorted()
        for (offset, index) in indexes.enumerated() {
            guard (0..<visible.count).contains(index) else {
                throw PhotoLibError(.invalidArgument, "index \(index) is outside 0..<\(visible.count), the album's asset count")
            }
            guard offset == 0 || indexes[offset - 1] != index else {
                throw PhotoLibError(.invalidArgument, "index \(index) is listed twice")
            }
        }
        let remainingCount = visible.count - indexes.count
        guard (0...remainingCount).contains(to) else {
            throw PhotoLibError(
                .invalidArgument, "destination index \(to) is outside 0…\(remainingCount) (the count after removing the \(indexes.count) moved assets)")
        }
        guard !indexes.isEmpty else { return }
        let moving = indexes.map { visible[$0].assetID }
        let movingSet = Set(moving)
        let remaining = before.filter { !movingSet.contains($0.assetID) }
        var after = remaining.map(\.assetID)
        after.insert(contentsOf: moving, at: Self.fullIndex(forVisibleIndex: to, in: remaining))
        guard after != before.map(\.assetID) else { return }
        try saveMembers(ofAlbum: albumID, before: before, after: after)
        try touchAlbum(albumID, albumIdentifier)
    }

    private func setKeyAsset(album: String, asset: String?) throws(PhotoLibError) {
        let (albumID, albumIdentifier) = try albumRow(try resolve(album))
        var keyID: Int64?
        if let asset {
            let identifier = try resolve(asset)
            let row = try untrashedAsset(identifier)
            guard try members(ofAlbum: albumID).contains(where: { $0.assetID == row.id }) else {
                throw PhotoLibError(.invalidArgument, "asset \(identifier) is not in album \(albumIdentifier); add it before making it the key asset")
            }
            keyID = row.id
        }
        try database.prepare("UPDATE album SET key_asset_id = ?1 WHERE id = ?2 AND key_asset_id IS NOT ?1")
            .execute([keyID.map(DatabaseValue.integer) ?? .null, .integer(albumID)])
        if database.changes > 0 { try touchAlbum(albumID, albumIdentifier) }
    }

    /// An album's member.
    struct Member {
        var assetID: Int64
        /// Neither hidden nor trashed: counted by album indexes.
        var visible: Bool
        var position: Int64
    }

    /// An album's members in album order (the order fetches use).
    private func members(ofAlbum albumID: Int64) throws(PhotoLibError) -> [Member] {
        try database.prepare(
            """
            SELECT aa.asset_id, a.trashed = 0 AND a.hidden = 0, aa.position FROM album_asset aa JOIN asset a ON a.id = aa.asset_id
            WHERE aa.album_id = ? ORDER BY aa.position, a.local_identifier
            """
        ).rows([.integer(albumID)]) { (row) throws(PhotoLibError) in Member(assetID: row.int64(0), visible: row.int(1) != 0, position: row.int64(2)) }
    }

    /// Writes the album's new order `after` (positions 0…n−1), touching only rows that change.
    private func saveMembers(ofAlbum albumID: Int64, before: [Member], after: [Int64]) throws(PhotoLibError) {
        let kept = Set(after)
        let delete = try database.prepare("DELETE FROM album_asset WHERE album_id = ? AND asset_id = ?")
        for member in before where !kept.contains(member.assetID) {
            try delete.execute([.integer(albumID), .integer(member.assetID)])
        }
        var positions: [Int64: Int64] = [:]
        for member in before { positions[member.assetID] = member.position }
        let update = try database.prepare("UPDATE album_asset SET position = ? WHERE album_id = ? AND asset_id = ?")
        let insert = try database.prepare("INSERT INTO album_asset (album_id, asset_id, position) VALUES (?, ?, ?)")
        for (index, assetID) in after.enumerated() {
            let position = Int64(index)
            switch positions[assetID] {
            case position?: continue
            case .some: try update.execute([.integer(position), .integer(albumID), .integer(assetID)])
            case nil: try insert.execute([.integer(albumID), .integer(assetID), .integer(position)])
            }
        }
    }

    /// The index in `members` where an insertion at visible index `index` goes: just before
    /// the `index`-th visible member, or at the end.
    static func fullIndex(forVisibleIndex index: Int, in members: [Member]) -> Int {
        var seen = 0
        for (offset, member) in members.enumerated() where member.visible {
            if seen == index { return offset }
            seen += 1
        }
        return members.count
    }

    /// Bumps an album's modification date and records it as updated.
    private func touchAlbum(_ albumID: Int64, _ identifier: String) throws(PhotoLibError) {
        try database.prepare("UPDATE album SET modification_date = ? WHERE id = ?").execute([.integer(now), .integer(albumID)])
        changes.record(.assetCollection, identifier, .updated)
    }

    /// The albums (rowid, identifier) holding an asset.
    private func albums(containing assetID: Int64) throws(PhotoLibError) -> [(Int64, String)] {
        try database.prepare(
            "SELECT al.id, al.local_identifier FROM album_asset aa JOIN album al ON al.id = aa.album_id WHERE aa.asset_id = ? ORDER BY al.id"
        ).rows([.integer(assetID)]) { (row) throws(PhotoLibError) in (row.int64(0), row.text(1)) }
    }

    /// Records every album holding an asset as updated (its count, dates or cover may change).
    func recordAlbums(containing assetID: Int64) throws(PhotoLibError) {
        for (_, identifier) in try albums(containing: assetID) { changes.record(.assetCollection, identifier, .updated) }
    }

    // MARK: Identifiers

    /// A placeholder's real identifier, or a checked identifier.
    /// Album indexes count assets a limited client cannot see: it edits albums by identifier.
    private func refuseAlbumIndexesInLimitedView() throws(PhotoLibError) {
        guard limitedTo == nil else {
            throw PhotoLibError(
                .failedPrecondition,
                "a client with limited access edits albums by asset identifier (addAssets, removeAssets), not by index: the album holds assets it cannot see")
        }
    }

    /// The album or folder `identifier` names, for `operation` (rename, delete, move). In a
    /// limited view an album holding assets outside the client's selection, or a folder with
    /// such an album inside it, is the library owner's: the client may not change it (it may
    /// still add and remove its own assets by identifier).
    private func changeableCollectionRow(_ identifier: String, _ operation: String) throws(PhotoLibError) -> CollectionRow {
        let row = try collectionRow(identifier)
        guard let limitedTo else { return row }
        let outside = """
            EXISTS (SELECT 1 FROM album_asset aa JOIN asset a ON a.id = aa.asset_id WHERE aa.album_id = al.id AND NOT EXISTS (
                SELECT 1 FROM client_selection s WHERE s.client_identifier = ?2 AND s.asset_identifier = a.local_identifier))
            """
        let holds: Bool
        switch row {
        case .album(let id, _):
            holds = try database.prepare("SELECT \(outside) FROM album al WHERE al.id = ?1")
                .firstRow([.integer(id), .text(limitedTo)]) { $0.int(0) != 0 } ?? false
        case .folder(let id, _):
            holds = try database.prepare(
                """
                WITH RECURSIVE inside(id) AS (SELECT ?1 UNION ALL SELECT f.id FROM folder f JOIN inside ON f.parent_id = inside.id)
                SELECT EXISTS (SELECT 1 FROM album al WHERE al.folder_id IN (SELECT id FROM inside) AND \(outside))
                """
            ).firstRow([.integer(id), .text(limitedTo)]) { $0.int(0) != 0 } ?? false
        }
        guard !holds else {
            throw PhotoLibError(
                .failedPrecondition,
                "\(identifier) holds assets outside this client's selection: a client with limited access may not \(operation) it (it adds and removes its own assets by identifier)")
        }
        return row
    }

    func resolve(_ text: String) throws(PhotoLibError) -> String {
        if Placeholder.isPlaceholder(text) {
            guard let identifier = placeholders[text] else {
                if unnamedPlaceholders.contains(text) {
                    throw PhotoLibError(
                        .failedPrecondition,
                        "placeholder \(text) created no asset: its upload is a copy of a photo already in the library, which this client may not name or change")
                }
                throw PhotoLibError(.invalidArgument, "placeholder \(text) is used before a request of this batch declares it")
            }
            return identifier
        }
        try LocalIdentifier.validate(text)
        return text
    }

    /// Resolved identifiers, each once, in order.
    private func uniqueResolved(_ texts: [String]) throws(PhotoLibError) -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for text in texts {
            let identifier = try resolve(text)
            if seen.insert(identifier).inserted { result.append(identifier) }
        }
        return result
    }

    /// Throws `invalidArgument` unless `label` is a well-formed placeholder not declared yet.
    private func checkUndeclared(_ label: String) throws(PhotoLibError) {
        guard Placeholder.isPlaceholder(label) else {
            throw PhotoLibError(.invalidArgument, "'\(label.prefix(70))' is not a placeholder: expected $ and 1…64 letters, digits, _ or -")
        }
        guard placeholders[label] == nil && !unnamedPlaceholders.contains(label) else {
            throw PhotoLibError(.invalidArgument, "placeholder \(label) is declared twice in this batch")
        }
    }

    /// An asset's rowid and trash state; `notFound` or, for another kind of object, `invalidArgument`.
    private func assetRow(_ identifier: String) throws(PhotoLibError) -> (id: Int64, trashed: Bool) {
        let scope = SelectionScope(limitedTo)
        if let row = try database.prepare("SELECT id, trashed FROM asset WHERE local_identifier = ?\(scope.and("local_identifier"))")
            .firstRow([.text(identifier)] + scope.values, { (row) throws(PhotoLibError) in (id: row.int64(0), trashed: row.int(1) != 0) }) {
            return row
        }
        throw try wrongKind(identifier, expected: "asset")
    }

    /// An asset that is not in Recently Deleted (`failedPrecondition` otherwise).
    func untrashedAsset(_ identifier: String) throws(PhotoLibError) -> (id: Int64, trashed: Bool) {
        let row = try assetRow(identifier)
        guard !row.trashed else {
            throw PhotoLibError(.failedPrecondition, "asset \(identifier) is in Recently Deleted; restore it first")
        }
        return row
    }

    /// A user album's rowid and identifier.
    private func albumRow(_ identifier: String) throws(PhotoLibError) -> (Int64, String) {
        if let id = try database.prepare("SELECT id FROM album WHERE local_identifier = ?").firstRow([.text(identifier)], { $0.int64(0) }) {
            return (id, identifier)
        }
        throw try wrongKind(identifier, expected: "album")
    }

    /// A folder's rowid and identifier.
    private func folderRow(_ identifier: String) throws(PhotoLibError) -> (id: Int64, identifier: String) {
        if let id = try database.prepare("SELECT id FROM folder WHERE local_identifier = ?").firstRow([.text(identifier)], { $0.int64(0) }) {
            return (id, identifier)
        }
        throw try wrongKind(identifier, expected: "folder")
    }

    private enum CollectionRow {
        case album(Int64, parent: Int64?)
        case folder(Int64, parent: Int64?)
    }

    /// An album or folder.
    private func collectionRow(_ identifier: String) throws(PhotoLibError) -> CollectionRow {
        if let (id, parent) = try database.prepare("SELECT id, folder_id FROM album WHERE local_identifier = ?")
            .firstRow([.text(identifier)], { (row) throws(PhotoLibError) in (row.int64(0), row.isNull(1) ? nil : row.int64(1)) }) {
            return .album(id, parent: parent)
        }
        if let (id, parent) = try database.prepare("SELECT id, parent_id FROM folder WHERE local_identifier = ?")
            .firstRow([.text(identifier)], { (row) throws(PhotoLibError) in (row.int64(0), row.isNull(1) ? nil : row.int64(1)) }) {
            return .folder(id, parent: parent)
        }
        throw try wrongKind(identifier, expected: "album or folder")
    }

    /// The error for an identifier that names no `expected` object: `invalidArgument` when it
    /// names another kind of object, `notFound` otherwise.
    private func wrongKind(_ identifier: String, expected: String) throws(PhotoLibError) -> PhotoLibError {
        let kind: String?
        if SmartAlbum.withIdentifier(identifier) != nil {
            kind = "a smart album, which the library computes and which cannot be changed"
        } else if try database.prepare("SELECT 1 FROM asset WHERE local_identifier = ?").firstRow([.text(identifier)], { $0.int(0) }) != nil,
            try SelectionScope(limitedTo).contains(identifier, in: database) {
            // (An asset outside a limited view is as unknown as one that never existed.)
            kind = "an asset"
        } else if try database.prepare("SELECT 1 FROM album WHERE local_identifier = ?").firstRow([.text(identifier)], { $0.int(0) }) != nil {
            kind = "an album"
        } else if try database.prepare("SELECT 1 FROM folder WHERE local_identifier = ?").firstRow([.text(identifier)], { $0.int(0) }) != nil {
            kind = "a folder"
        } else {
            kind = nil
        }
        guard let kind else {
            return PhotoLibError(.notFound, "no \(expected) has the identifier \(identifier)")
        }
        let article = expected.hasPrefix("a") ? "an" : "a"
        return PhotoLibError(.invalidArgument, "\(identifier) is \(kind), not \(article) \(expected)")
    }
}

extension ChangeRequest {
    /// Whether the request frees disk space or leads to it (trashing before a purge, purging,
    /// removing assets from albums, deleting collections, reverting an edit): a batch of only
    /// these may use the library's disk reserve on a full disk (``DiskReserve``).
    var freesSpace: Bool {
        switch self {
        case .deleteAssets, .purgeAssets, .deleteCollections, .removeAssets, .revertAssetContent: return true
        default: return false
        }
    }
}
