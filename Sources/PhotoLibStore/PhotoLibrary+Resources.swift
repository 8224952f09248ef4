import PhotoLibCore

extension PhotoLibrary {
    /// The absolute path of the asset's original file; `notFound` for an unknown asset.
    public func originalFilePath(forAsset identifier: String) throws(PhotoLibError) -> String {
        try originalResource(forAsset: identifier).path
    }

    /// The asset's original file: name, size, SHA-256, type and path; `notFound` for an
    /// unknown asset, `dataLoss` when its row exists but the file is gone.
    public func originalResource(forAsset identifier: String) throws(PhotoLibError) -> AssetResourceRecord {
        try LocalIdentifier.validate(identifier)
        let row = try withDatabase { (database) throws(PhotoLibError) -> (AssetResourceType, String, Int, String, String, String)? in
            guard try SelectionScope(limitedTo).contains(identifier, in: database) else { return nil }
            return try database.prepare(
                """
                SELECT r.type, r.original_filename, r.byte_size, r.sha256, r.uti, r.file_path
                FROM asset a JOIN asset_resource r ON r.asset_id = a.id
                WHERE a.local_identifier = ? AND r.type IN (1, 2, 3) ORDER BY r.type LIMIT 1
                """
            ).firstRow([.text(identifier)]) { (row) throws(PhotoLibError) in
                guard let type = AssetResourceType(rawValue: row.int(0)) else {
                    throw PhotoLibError(.dataLoss, "asset \(identifier) has a resource of unknown type \(row.int(0))")
                }
                return (type, row.text(1), row.int(2), row.text(3), row.text(4), row.text(5))
            }
        }
        guard let (type, filename, size, digest, uti, relativePath) = row else {
            throw PhotoLibError(.notFound, "no asset with identifier \(identifier) (or it has no original file)")
        }
        guard files.fileSize(relativePath) == size else {
            throw PhotoLibError(
                .dataLoss,
                "the original of asset \(identifier), \(files.absolutePath(relativePath)), is missing or not \(size) bytes; restore it from a backup")
        }
        return AssetResourceRecord(
            assetIdentifier: identifier, type: type, originalFilename: filename, byteSize: size, sha256: digest,
            uniformTypeIdentifier: uti, path: files.absolutePath(relativePath))
    }
}
