import Foundation
import PhotoLibCore

/// What `RequestContentEditingInput` sends: the input, and the file whose bytes follow it.
public struct ContentEditingSource: Sendable, Hashable {
    /// The input (its `byteCount` is the file's size).
    public var input: ContentEditingInput
    /// The image to stream: the original, or the current render.
    public var file: AssetResourceRecord
}

extension PhotoLibrary {
    /// The input for editing `identifier`, read in one transaction (PhotoKit's
    /// `requestContentEditingInput(with:)`).
    ///
    /// When the asset has an edit whose adjustment data one of `formats` handles, the input is
    /// the original plus that adjustment data (re-edit without generation loss); otherwise it
    /// is the current image (the render of an edited asset, the original of an unedited one)
    /// with no adjustment data — also when the edit was made on an earlier render (it has an
    /// adjustment base photo), whose recipe applies to that render, not to the original. Its
    /// session id names the asset's version, so a commit made after another edit fails
    /// instead of overwriting it.
    ///
    /// Throws `notFound` for an unknown asset, `failedPrecondition` for one in Recently Deleted.
    public func contentEditingInput(forAsset identifier: String, canHandle formats: [AdjustmentFormat]) throws(PhotoLibError) -> ContentEditingSource {
        try LocalIdentifier.validate(identifier)
        return try read { (database) throws(PhotoLibError) -> ContentEditingSource in
            try requireVisible(identifier, in: database, message: "no asset has the identifier \(identifier)")
            guard let asset = try database.prepare("SELECT \(AssetRow.columns) FROM asset a WHERE a.local_identifier = ?")
                .firstRow([.text(identifier)], AssetRow.decode)
            else { throw PhotoLibError(.notFound, "no asset has the identifier \(identifier)") }
            let (generation, trashed, orientation) = try database.prepare(
                "SELECT content_generation, trashed, orientation FROM asset WHERE local_identifier = ?"
            ).firstRow([.text(identifier)]) { (row) throws(PhotoLibError) in (row.int(0), row.int(1) != 0, row.int(2)) } ?? (0, false, 1)
            guard !trashed else {
                throw PhotoLibError(.failedPrecondition, "asset \(identifier) is in Recently Deleted; restore it before editing")
            }
            let records = try database.prepare(
                """
                SELECT r.type, r.original_filename, r.byte_size, r.sha256, r.uti, r.file_path
                FROM asset a JOIN asset_resource r ON r.asset_id = a.id
                WHERE a.local_identifier = ? AND r.type IN (1, 5, 7, 8)
                """
            ).rows([.text(identifier)]) { (row) throws(PhotoLibError) in
                AssetResourceRecord(
                    assetIdentifier: identifier, type: AssetResourceType(rawValue: row.int(0)) ?? .photo, originalFilename: row.text(1),
                    byteSize: row.int(2), sha256: row.text(3), uniformTypeIdentifier: row.text(4), path: files.absolutePath(row.text(5)))
            }
            guard let original = records.first(where: { $0.type == .photo }) else {
                throw PhotoLibError(.failedPrecondition, "asset \(identifier) has no photo to edit")
            }
            let format = try database.prepare(
                "SELECT j.format_identifier, j.format_version FROM asset_adjustment j JOIN asset a ON a.id = j.asset_id WHERE a.local_identifier = ?"
            ).firstRow([.text(identifier)]) { (row) throws(PhotoLibError) in (row.text(0), row.text(1)) }
            var adjustment: AdjustmentData?
            // An edit made on an earlier render (an adjustment base photo) cannot be re-applied
            // to the original: its recipe is not offered, and the input is the current render.
            let builtOnRender = records.contains { $0.type == .adjustmentBasePhoto }
            if !builtOnRender, let (formatIdentifier, formatVersion) = format, let recipe = records.first(where: { $0.type == .adjustmentData }) {
                let data = try Self.readSmallFile(recipe.path, limit: AdjustmentData.maxDataBytes, what: "the adjustment data of \(identifier)")
                let candidate = AdjustmentData(formatIdentifier: formatIdentifier, formatVersion: formatVersion, data: data)
                if formats.contains(where: { $0.handles(candidate) }) { adjustment = candidate }
            }
            let render = records.first(where: { $0.type == .fullSizePhoto })
            let base: ContentEditingInput.Base = adjustment != nil || render == nil ? .original : .current
            let file = base == .original ? original : render ?? original
            let input = ContentEditingInput(
                asset: asset, base: base, adjustmentData: adjustment, byteCount: file.byteSize,
                editingSessionID: EditingSession(generation: generation, base: render == nil ? .original : base).text,
                // Renders are upright (no EXIF); the original keeps its orientation.
                fullSizeImageOrientation: file.type == .photo ? orientation : 1)
            return ContentEditingSource(input: input, file: file)
        }
    }

    /// The bytes of a small library file (at most `limit`).
    static func readSmallFile(_ path: String, limit: Int, what: String) throws(PhotoLibError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PhotoLibError(.dataLoss, "\(what) is missing from the library (\(path)); restore it from a backup")
        }
        guard data.count <= limit else {
            throw PhotoLibError(.dataLoss, "\(what) is \(data.count) bytes, over its \(limit)-byte limit")
        }
        return [UInt8](data)
    }
}
