import Foundation
import PhotoLibCore

/// Content editing inside a `performChanges` transaction: commit an edit, revert to the
/// original. The original's file and row are never touched.
///
/// Files: the render and the recipe are written (temp file, fsync, rename) or linked under
/// `originals/` before the transaction commits, and removed again if it does not; files an
/// edit replaces are removed after the commit. A crash in between leaves only unreferenced
/// files, which recovery removes at the next start: the asset is either at its old version
/// or its new one.
extension ChangeBatch {
    /// The resource types an edit owns.
    static let editResourceTypes: [AssetResourceType] = [.fullSizePhoto, .adjustmentData, .adjustmentBasePhoto]

    func commitContentEdit(_ edit: ContentEdit) throws(PhotoLibError) {
        let identifier = try resolve(edit.asset)
        let asset = try untrashedAsset(identifier)
        let adjustment = try edit.adjustmentData.validated()
        guard let state = try editState(assetID: asset.id) else {
            throw PhotoLibError(.failedPrecondition, "asset \(identifier) has no photo to edit (a video's content is not edited)")
        }
        let session = try EditingSession(parsing: edit.editingSessionID)
        guard session.generation == state.generation else {
            throw PhotoLibError(
                .aborted,
                "asset \(identifier) was edited since this input was requested (session \(edit.editingSessionID), the asset is at version \(state.generation)); request a new input and edit again")
        }
        guard let uploadID = edit.renderedUploadID else {
            throw PhotoLibError(.invalidArgument, "an edit needs its rendered JPEG (an upload), unless its adjustment data is \(FilterRecipe.formatIdentifier) version \(FilterRecipe.formatVersion), which the server renders")
        }
        let render = try consumeUpload(uploadID)
        guard render.metadata.fileType == .jpeg else {
            throw PhotoLibError(
                .invalidArgument, "the rendered image of an edit must be a JPEG; upload \(render.metadata.fileType.uniformTypeIdentifier) \"\(render.metadata.originalFilename)\" as a JPEG",
                reason: .invalidImage)
        }
        // An edit of the current render (an editor that could not read the adjustment data)
        // keeps that render's size; one of the original keeps the original's, unless its recipe
        // crops or turns it (the size it declares).
        let onRender = session.base == .current && state.resources[.fullSizePhoto] != nil
        let expected = edit.expectedSize
            ?? (onRender ? PixelSize(width: state.currentWidth, height: state.currentHeight) : PixelSize(width: state.originalWidth, height: state.originalHeight))
        let actual = PixelSize(width: render.metadata.pixelWidth, height: render.metadata.pixelHeight)
        guard actual == expected else {
            let which = onRender ? "the size of the render it was made from, the input's" : "the original's size after orientation, unless the recipe crops or turns it"
            throw PhotoLibError(
                .invalidArgument,
                "the rendered image is \(actual.width)x\(actual.height) but the edit of \(identifier) must be \(expected.width)x\(expected.height) (\(which))",
                reason: .invalidImage)
        }

        let uuid = String(identifier.prefix(while: { $0 != "/" }))
        let generation = state.generation + 1
        let renderPath = FileStore.originalPath(uuid: "\(uuid)_render\(generation)", fileExtension: "jpg")
        let recipePath = FileStore.originalPath(uuid: "\(uuid)_adjustment\(generation)", fileExtension: "data")
        try files.link(render.filePath, to: renderPath)
        linkedFiles.append(renderPath)
        try files.writeAtomically(adjustment.data, to: recipePath)
        linkedFiles.append(recipePath)

        // An edit built on the previous render keeps that render as its base photo.
        let keepsBase = onRender
        var released: [String] = []
        for type in Self.editResourceTypes {
            guard let path = state.resources[type] else { continue }
            if keepsBase && type == .fullSizePhoto { continue }
            released.append(path)
        }
        try database.prepare("DELETE FROM asset_resource WHERE asset_id = ? AND type IN (5, 7, 8)").execute([.integer(asset.id)])
        let insert = try database.prepare(
            """
            INSERT INTO asset_resource (asset_id, type, original_filename, uti, file_path, byte_size, sha256)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        let stem = (state.originalFilename as NSString).deletingPathExtension
        try insert.execute([
            .integer(asset.id), .int(AssetResourceType.fullSizePhoto.rawValue), .text("FullSizeRender.jpg"), .text("public.jpeg"),
            .text(renderPath), .int(render.byteSize), .text(render.sha256),
        ])
        try insert.execute([
            .integer(asset.id), .int(AssetResourceType.adjustmentData.rawValue), .text("Adjustments.data"),
            .text("com.apple.photos.adjustment-data"), .text(recipePath), .int(adjustment.data.count),
            .text(PhotoLibrary.sha256Hex(adjustment.data)),
        ])
        if keepsBase, let basePath = state.resources[.fullSizePhoto], let base = state.renderRecord {
            try insert.execute([
                .integer(asset.id), .int(AssetResourceType.adjustmentBasePhoto.rawValue), .text("\(stem)_base.jpg"), .text("public.jpeg"),
                .text(basePath), .int(base.byteSize), .text(base.sha256),
            ])
        }
        try database.prepare(
            """
            INSERT INTO asset_adjustment (asset_id, format_identifier, format_version, original_width, original_height, sized)
            VALUES (?, ?, ?, nullif(?, 0), nullif(?, 0), 1)
            ON CONFLICT(asset_id) DO UPDATE SET format_identifier = excluded.format_identifier, format_version = excluded.format_version,
                original_width = coalesce(asset_adjustment.original_width, excluded.original_width),
                original_height = coalesce(asset_adjustment.original_height, excluded.original_height), sized = 1
            """
        ).execute([
            .integer(asset.id), .text(adjustment.formatIdentifier), .text(adjustment.formatVersion),
            .int(state.originalWidth), .int(state.originalHeight),
        ])
        // The asset's size is its current version's, the render's (PHAsset.pixelWidth).
        try database.prepare(
            "UPDATE asset SET has_adjustments = 1, content_generation = ?, pixel_width = ?, pixel_height = ?, modification_date = ? WHERE id = ?"
        ).execute([.int(generation), .int(actual.width), .int(actual.height), .integer(now), .integer(asset.id)])
        purgedFiles += released
        changes.record(.asset, identifier, .updated, contentChanged: true)
    }

    func revertAssetContent(_ reference: String) throws(PhotoLibError) {
        let identifier = try resolve(reference)
        let asset = try untrashedAsset(identifier)
        // A video, or an unedited photo: nothing to revert.
        guard let state = try editState(assetID: asset.id), state.hasAdjustments || !state.resources.isEmpty else { return }
        try database.prepare("DELETE FROM asset_resource WHERE asset_id = ? AND type IN (5, 7, 8)").execute([.integer(asset.id)])
        // The original's size again (its adjustment row kept it), then the row goes.
        try database.prepare(
            """
            UPDATE asset SET has_adjustments = 0, content_generation = content_generation + 1, modification_date = ?,
                pixel_width = ?, pixel_height = ?
            WHERE id = ?
            """
        ).execute([.integer(now), .int(state.originalWidth), .int(state.originalHeight), .integer(asset.id)])
        try database.prepare("DELETE FROM asset_adjustment WHERE asset_id = ?").execute([.integer(asset.id)])
        purgedFiles += Self.editResourceTypes.compactMap { state.resources[$0] }
        changes.record(.asset, identifier, .updated, contentChanged: true)
    }

    /// What an asset's edit is now.
    private struct EditState {
        var generation: Int
        var hasAdjustments: Bool
        /// The original's upright size (kept by the adjustment row once the asset is edited).
        var originalWidth: Int
        var originalHeight: Int
        /// The current version's size (the render's, once edited).
        var currentWidth: Int
        var currentHeight: Int
        var originalFilename: String
        /// Edit resource type → relative path.
        var resources: [AssetResourceType: String]
        /// Size and digest of the current render.
        var renderRecord: (byteSize: Int, sha256: String)?
    }

    /// The edit state of asset row `assetID`; `nil` when it has no original photo (a video).
    private func editState(assetID: Int64) throws(PhotoLibError) -> EditState? {
        guard var state = try database.prepare(
            """
            SELECT a.content_generation, a.has_adjustments, coalesce(j.original_width, a.pixel_width), coalesce(j.original_height, a.pixel_height),
                r.original_filename, a.pixel_width, a.pixel_height
            FROM asset a JOIN asset_resource r ON r.asset_id = a.id AND r.type = 1 LEFT JOIN asset_adjustment j ON j.asset_id = a.id
            WHERE a.id = ?
            """
        ).firstRow([.integer(assetID)], { (row) throws(PhotoLibError) in
            EditState(
                generation: row.int(0), hasAdjustments: row.int(1) != 0, originalWidth: row.int(2), originalHeight: row.int(3),
                currentWidth: row.int(5), currentHeight: row.int(6), originalFilename: row.text(4), resources: [:])
        }) else {
            return nil
        }
        let rows = try database.prepare("SELECT type, file_path, byte_size, sha256 FROM asset_resource WHERE asset_id = ? AND type IN (5, 7, 8)")
            .rows([.integer(assetID)]) { (row) throws(PhotoLibError) in (row.int(0), row.text(1), row.int(2), row.text(3)) }
        for (raw, path, size, digest) in rows {
            guard let type = AssetResourceType(rawValue: raw) else { continue }
            state.resources[type] = path
            if type == .fullSizePhoto { state.renderRecord = (size, digest) }
        }
        return state
    }
}

/// The editing session id handed out with a `ContentEditingInput`: the asset's content
/// generation when the input was made and which image it carried (`g<generation>-o`: the
/// original, `g<generation>-c`: the current render).
struct EditingSession: Equatable {
    var generation: Int
    var base: ContentEditingInput.Base

    init(generation: Int, base: ContentEditingInput.Base) {
        self.generation = generation
        self.base = base
    }

    init(parsing text: String) throws(PhotoLibError) {
        let parts = text.split(separator: "-")
        guard parts.count == 2, parts[0].hasPrefix("g"), let generation = Int(parts[0].dropFirst()), generation >= 0,
            parts[1] == "o" || parts[1] == "c"
        else {
            throw PhotoLibError(.invalidArgument, "'\(text.prefix(40))' is not an editing session id; pass the one of the ContentEditingInput the edit started from")
        }
        self.init(generation: generation, base: parts[1] == "o" ? .original : .current)
    }

    var text: String { "g\(generation)-\(base == .original ? "o" : "c")" }
}
