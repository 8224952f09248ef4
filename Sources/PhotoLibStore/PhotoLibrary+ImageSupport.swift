import Foundation
import PhotoLibCore

/// The database half of what the image server needs about an asset's pixels: its `photo`
/// and `fullSizePhoto` records and its content generation (see
/// ``PhotoLibrary/bumpContentVersion(forAsset:)``). The server adds the files' identities on
/// disk and remembers the result until the database changes.
public struct ImageSourceRecords: Sendable, Hashable {
    /// The `photo` record, then the `fullSizePhoto` one when the asset has been edited.
    public var resources: [AssetResourceRecord]
    /// Moves whenever the asset's rendered content changes.
    public var generation: Int
}

extension PhotoLibrary {
    /// Every resource of an asset, by type (PhotoKit's `assetResources(for:)`);
    /// `notFound` for an unknown asset.
    public func resources(forAsset identifier: String) throws(PhotoLibError) -> [AssetResourceRecord] {
        try LocalIdentifier.validate(identifier)
        let rows = try read { (database) throws(PhotoLibError) -> [AssetResourceRecord]? in
            guard try database.prepare("SELECT id FROM asset WHERE local_identifier = ?").firstRow([.text(identifier)], { $0.int(0) }) != nil,
                try SelectionScope(limitedTo).contains(identifier, in: database)
            else {
                return nil
            }
            return try database.prepare(
                """
                SELECT r.type, r.original_filename, r.byte_size, r.sha256, r.uti, r.file_path
                FROM asset a JOIN asset_resource r ON r.asset_id = a.id
                WHERE a.local_identifier = ? ORDER BY r.type
                """
            ).rows([.text(identifier)]) { (row) throws(PhotoLibError) in
                guard let type = AssetResourceType(rawValue: row.int(0)) else {
                    throw PhotoLibError(.dataLoss, "asset \(identifier) has a resource of unknown type \(row.int(0))")
                }
                return AssetResourceRecord(
                    assetIdentifier: identifier, type: type, originalFilename: row.text(1), byteSize: row.int(2),
                    sha256: row.text(3), uniformTypeIdentifier: row.text(4), path: files.absolutePath(row.text(5)))
            }
        }
        guard let rows else { throw PhotoLibError(.notFound, "no asset has the identifier \(identifier)") }
        return rows
    }

    /// The records images of `identifier` render from (its `photo` and `fullSizePhoto`, or a
    /// video's `video`, whose poster frame is its image), and its content generation, read in
    /// one transaction; an unknown asset has no records (the caller says `notFound`).
    public func imageSourceRecords(forAsset identifier: String) throws(PhotoLibError) -> ImageSourceRecords {
        try LocalIdentifier.validate(identifier)
        return try read { (database) throws(PhotoLibError) -> ImageSourceRecords in
            // Outside a limited view: no records, as for an unknown asset.
            guard try SelectionScope(limitedTo).contains(identifier, in: database) else { return ImageSourceRecords(resources: [], generation: 0) }
            let resources = try database.prepare(
                """
                SELECT r.type, r.original_filename, r.byte_size, r.sha256, r.uti, r.file_path
                FROM asset a JOIN asset_resource r ON r.asset_id = a.id
                WHERE a.local_identifier = ? AND r.type IN (1, 2, 5) ORDER BY r.type
                """
            ).rows([.text(identifier)]) { (row) throws(PhotoLibError) in
                AssetResourceRecord(
                    assetIdentifier: identifier, type: AssetResourceType(rawValue: row.int(0)) ?? .photo,
                    originalFilename: row.text(1), byteSize: row.int(2), sha256: row.text(3),
                    uniformTypeIdentifier: row.text(4), path: files.absolutePath(row.text(5)))
            }
            let generation = try database.prepare("SELECT content_generation FROM asset WHERE local_identifier = ?")
                .firstRow([.text(identifier)]) { $0.int(0) } ?? 0
            return ImageSourceRecords(resources: resources, generation: generation)
        }
    }

    /// Marks an asset's rendered content as changed (its content generation moves on), so
    /// every cached image of it is ignored from now on. Edits and reverts do this themselves;
    /// tests call it to simulate a change. Throws `notFound` for an unknown asset.
    @discardableResult
    public func bumpContentVersion(forAsset identifier: String) throws(PhotoLibError) -> Int {
        try LocalIdentifier.validate(identifier)
        return try write { (database) throws(PhotoLibError) -> Int in
            try database.prepare("UPDATE asset SET content_generation = content_generation + 1 WHERE local_identifier = ?")
                .execute([.text(identifier)])
            guard database.changes == 1 else { throw PhotoLibError(.notFound, "no asset has the identifier \(identifier)") }
            return try database.prepare("SELECT content_generation FROM asset WHERE local_identifier = ?").firstRow([.text(identifier)]) { $0.int(0) } ?? 0
        }
    }
}
