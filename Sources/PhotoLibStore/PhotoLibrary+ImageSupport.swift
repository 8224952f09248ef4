import Dispatch
import Foundation
import PhotoLibCore

/// What the image server needs to know about an asset's pixels: which file to render,
/// and a version that changes whenever those pixels may have changed.
public struct ImageSource: Sendable, Hashable {
    /// The file images are rendered from: the `fullSizePhoto` (edited) resource when the
    /// asset has one, else its original `photo`.
    public var current: AssetResourceRecord
    /// The original `photo` resource (what `version: original/unadjusted` render from).
    public var original: AssetResourceRecord
    /// Changes whenever the rendered content may change (see
    /// ``PhotoLibrary/imageSource(forAsset:)``). Use it in cache keys.
    public var contentVersion: String
}

extension PhotoLibrary {
    /// Every resource of an asset, by type (PhotoKit's `assetResources(for:)`);
    /// `notFound` for an unknown asset.
    public func resources(forAsset identifier: String) throws(PhotoLibError) -> [AssetResourceRecord] {
        try LocalIdentifier.validate(identifier)
        let rows = try read { (database) throws(PhotoLibError) -> [AssetResourceRecord]? in
            guard try database.prepare("SELECT id FROM asset WHERE local_identifier = ?").firstRow([.text(identifier)], { $0.int(0) }) != nil else {
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

    /// The files to render an asset's images from, and its content version.
    ///
    /// The content version is `SHA256(current).G.SIZE-MTIME-INODE`, where SHA256 is the
    /// recorded digest of the current resource (so an edit that adds a `fullSizePhoto`
    /// changes it), G is the asset's content generation (``bumpContentVersion(forAsset:)``,
    /// 0 until bumped; stored in `meta` under `content_generation/<identifier>` until the
    /// asset table has a content_version column), and SIZE-MTIME-INODE identify the file on
    /// disk (nanosecond mtime), so even a file replaced behind the library's back is never
    /// served from a stale cache entry.
    ///
    /// The rows are remembered until the database changes (any commit, in any process), and
    /// the file's identity until inotify reports a change under the library
    /// (``FileIdentityCache``), so a repeated request costs one `PRAGMA data_version` and one
    /// empty read of the inotify queue.
    ///
    /// Throws `notFound` for an unknown asset or one without a photo, and `dataLoss` when
    /// the current file is missing.
    ///
    /// `receivedAt` (uptime nanoseconds, `DispatchTime.uptimeNanoseconds`) is when the
    /// request asking for it arrived: the answer reflects the database as it was at that
    /// moment or later. A database version (and inotify queue) read after it is reused, so a
    /// batch of requests read from a socket together costs one check; `nil` means now.
    public func imageSource(forAsset identifier: String, receivedAt: UInt64? = nil) throws(PhotoLibError) -> ImageSource {
        try LocalIdentifier.validate(identifier)
        return try withDatabase { (database) throws(PhotoLibError) -> ImageSource in
            // The stamp is read before the rows: a commit in between only makes the entry
            // look older than it is, never newer. Our own commits count without a query.
            let dataVersion: Int
            if let receivedAt, let last = imageSources.lastVersionCheck, last.at >= receivedAt {
                dataVersion = last.dataVersion
            } else {
                let at = DispatchTime.now().uptimeNanoseconds
                dataVersion = try database.dataVersion()
                imageSources.lastVersionCheck = (at, dataVersion)
            }
            let stamp = dataVersion &+ database.localCommitCount
            let entry: ImageSourceCache.Entry
            if let known = imageSources.entry(identifier, stamp: stamp) {
                entry = known
            } else {
                entry = try database.inReadTransaction { () throws(PhotoLibError) -> ImageSourceCache.Entry in
                    let resources = try database.prepare(
                        """
                        SELECT r.type, r.original_filename, r.byte_size, r.sha256, r.uti, r.file_path
                        FROM asset a JOIN asset_resource r ON r.asset_id = a.id
                        WHERE a.local_identifier = ? AND r.type IN (1, 5) ORDER BY r.type
                        """
                    ).rows([.text(identifier)]) { (row) throws(PhotoLibError) in
                        AssetResourceRecord(
                            assetIdentifier: identifier, type: row.int(0) == 5 ? .fullSizePhoto : .photo,
                            originalFilename: row.text(1), byteSize: row.int(2), sha256: row.text(3),
                            uniformTypeIdentifier: row.text(4), path: files.absolutePath(row.text(5)))
                    }
                    let generation = try database.prepare("SELECT value FROM meta WHERE key = ?")
                        .firstRow([.text(Self.contentGenerationKey(identifier))]) { $0.int(0) } ?? 0
                    return ImageSourceCache.Entry(resources: resources, generation: generation)
                }
                imageSources.store(identifier, entry, stamp: stamp)
            }
            guard let original = entry.resources.first(where: { $0.type == .photo }) else {
                throw PhotoLibError(.notFound, "no asset with identifier \(identifier) (or it has no photo to render)")
            }
            let current = entry.resources.first(where: { $0.type == .fullSizePhoto }) ?? original
            let file: FileIdentity
            do throws(SystemError) {
                file = try fileIdentities.identity(of: current.path, receivedAt: receivedAt)
            } catch {
                throw PhotoLibError(.dataLoss, "the \(current.type == .photo ? "original" : "edited photo") of asset \(identifier) is missing (\(SystemError.text(error.errno))); restore it from a backup")
            }
            let version = "\(current.sha256).\(entry.generation).\(file.size)-\(file.modificationTime)-\(file.inode)"
            return ImageSource(current: current, original: original, contentVersion: version)
        }
    }

    /// Marks an asset's rendered content as changed (its content version moves on), so
    /// every cached image of it is ignored from now on. Editing calls this when it commits
    /// new content; tests call it to simulate an edit. Throws `notFound` for an unknown asset.
    @discardableResult
    public func bumpContentVersion(forAsset identifier: String) throws(PhotoLibError) -> Int {
        try LocalIdentifier.validate(identifier)
        return try write { (database) throws(PhotoLibError) -> Int in
            guard try database.prepare("SELECT id FROM asset WHERE local_identifier = ?").firstRow([.text(identifier)], { $0.int(0) }) != nil else {
                throw PhotoLibError(.notFound, "no asset has the identifier \(identifier)")
            }
            let key = Self.contentGenerationKey(identifier)
            try database.prepare(
                "INSERT INTO meta(key, value) VALUES (?, 1) ON CONFLICT(key) DO UPDATE SET value = value + 1"
            ).execute([.text(key)])
            return try database.prepare("SELECT value FROM meta WHERE key = ?").firstRow([.text(key)]) { $0.int(0) } ?? 0
        }
    }

    private static func contentGenerationKey(_ identifier: String) -> String {
        "content_generation/\(identifier)"
    }
}
