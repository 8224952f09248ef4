import PhotoLibCore

extension PhotoLibrary {
    /// Marks assets as favourites (or not), in one transaction; `notFound` for an unknown
    /// asset, and then nothing changes.
    public func setFavorite(_ isFavorite: Bool, forAssets identifiers: [String]) throws(PhotoLibError) {
        try setFlag("favorite", to: isFavorite, forAssets: identifiers)
    }

    /// Hides assets (or shows them again), in one transaction; `notFound` for an unknown
    /// asset, and then nothing changes.
    public func setHidden(_ isHidden: Bool, forAssets identifiers: [String]) throws(PhotoLibError) {
        try setFlag("hidden", to: isHidden, forAssets: identifiers)
    }

    /// Sets a 0/1 column of `asset` and bumps the modification date where it changed.
    private func setFlag(_ column: String, to value: Bool, forAssets identifiers: [String]) throws(PhotoLibError) {
        try Self.validateIdentifierList(identifiers)
        try write { (database) throws(PhotoLibError) in
            let ids = try Self.assetRowIDs(identifiers, in: database)
            let update = try database.prepare("UPDATE asset SET \(column) = ?, modification_date = ? WHERE id = ? AND \(column) <> ?")
            let now = Microseconds.now
            for id in ids {
                try update.execute([.bool(value), .integer(now), .integer(id), .bool(value)])
            }
        }
    }
}
