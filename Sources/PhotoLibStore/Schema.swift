import PhotoLibCore

/// The library's SQL schema, as migrations applied in order and counted by `PRAGMA user_version`.
///
/// Conventions: dates are INTEGER microseconds since 1970-01-01 UTC (exact, totally ordered,
/// portable to PostgreSQL's `timestamptz`); booleans are 0/1 with a CHECK; identifiers are
/// the PhotoKit-shaped local identifiers, unique, with an INTEGER rowid used for joins.
enum Schema {
    /// One schema step. Never edit a released migration: append a new one.
    struct Migration {
        /// The `user_version` after this migration.
        var version: Int
        /// The SQL, run in the migration's transaction.
        var sql: String
    }

    /// Every migration, oldest first; `migrations[i].version == i + 1`.
    static let migrations: [Migration] = [
        Migration(version: 1, sql: version1),
        Migration(version: 2, sql: version2),
        Migration(version: 3, sql: version3),
        Migration(version: 4, sql: version4),
        Migration(version: 5, sql: version5),
        Migration(version: 6, sql: version6),
        Migration(version: 7, sql: version7),
        Migration(version: 8, sql: version8),
        Migration(version: 9, sql: version9),
    ]

    /// The version this build writes.
    static var currentVersion: Int { migrations.last?.version ?? 0 }

    /// Brings the database up to ``currentVersion`` in one write transaction, creating the
    /// meta rows of a new library. Concurrent openers serialize on the write lock, and the
    /// second one finds nothing left to do.
    ///
    /// Throws `failedPrecondition` for a library written by a newer PhotoLib.
    static func migrate(_ database: Database, newLibraryIdentifier: () -> String) throws(PhotoLibError) {
        try database.inTransaction { () throws(PhotoLibError) in
            let version = try database.prepare("PRAGMA user_version").firstRow { $0.int(0) } ?? 0
            guard version <= currentVersion else {
                throw PhotoLibError(
                    .failedPrecondition,
                    "\(database.path) has schema version \(version), newer than this PhotoLib understands (\(currentVersion)); upgrade PhotoLib")
            }
            for migration in migrations where migration.version > version {
                try database.execute(migration.sql)
                try database.execute("PRAGMA user_version = \(migration.version)")
            }
            if version == 0 {
                try database.prepare("INSERT INTO meta(key, value) VALUES ('library_identifier', ?), ('created', ?)")
                    .execute([.text(newLibraryIdentifier()), .integer(Microseconds.now)])
            }
        }
    }

    /// Version 1: assets and their files, albums, folders, meta.
    static let version1 = """
        CREATE TABLE meta (
            key   TEXT PRIMARY KEY NOT NULL,
            value ANY NOT NULL
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE asset (
            id                INTEGER PRIMARY KEY,
            local_identifier  TEXT    NOT NULL UNIQUE CHECK (length(local_identifier) BETWEEN 1 AND 128),
            media_type        INTEGER NOT NULL CHECK (media_type BETWEEN 0 AND 3),
            media_subtypes    INTEGER NOT NULL DEFAULT 0 CHECK (media_subtypes >= 0),
            pixel_width       INTEGER NOT NULL CHECK (pixel_width >= 0),
            pixel_height      INTEGER NOT NULL CHECK (pixel_height >= 0),
            orientation       INTEGER NOT NULL DEFAULT 1 CHECK (orientation BETWEEN 1 AND 8),
            creation_date     INTEGER NOT NULL,
            modification_date INTEGER NOT NULL,
            added_date        INTEGER NOT NULL,
            favorite          INTEGER NOT NULL DEFAULT 0 CHECK (favorite IN (0, 1)),
            hidden            INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1)),
            trashed           INTEGER NOT NULL DEFAULT 0 CHECK (trashed IN (0, 1)),
            trashed_date      INTEGER,
            duration          REAL    NOT NULL DEFAULT 0 CHECK (duration >= 0),
            burst_identifier  TEXT,
            latitude          REAL CHECK (latitude BETWEEN -90 AND 90),
            longitude         REAL CHECK (longitude BETWEEN -180 AND 180),
            altitude          REAL,
            has_adjustments   INTEGER NOT NULL DEFAULT 0 CHECK (has_adjustments IN (0, 1)),
            CHECK ((trashed = 0) = (trashed_date IS NULL)),
            CHECK ((latitude IS NULL) = (longitude IS NULL))
        ) STRICT;

        -- Visible assets (not trashed, not hidden) in the default order: paging and counting
        -- All Photos walk this index only.
        CREATE INDEX asset_by_creation
            ON asset(trashed, hidden, creation_date, local_identifier);
        -- Hidden assets included (includeHiddenAssets, Recently Deleted).
        CREATE INDEX asset_by_creation_all
            ON asset(trashed, creation_date, local_identifier);
        CREATE INDEX asset_by_modification
            ON asset(trashed, hidden, modification_date, local_identifier);
        -- Videos, photos only: fetchAssets(with: mediaType).
        CREATE INDEX asset_by_media_type
            ON asset(trashed, hidden, media_type, creation_date, local_identifier);
        -- Favorites.
        CREATE INDEX asset_favorites
            ON asset(trashed, hidden, favorite, creation_date, local_identifier);
        -- Recently Added: a range on added_date among visible assets.
        CREATE INDEX asset_by_added ON asset(trashed, hidden, added_date);
        -- Screenshots, panoramas, Live Photos: a subtype bit is set on few assets, and the
        -- partial index holds only those (the queries repeat `media_subtypes <> 0` to use it).
        CREATE INDEX asset_with_subtypes
            ON asset(trashed, hidden, creation_date, local_identifier, media_subtypes) WHERE media_subtypes <> 0;
        CREATE INDEX asset_bursts
            ON asset(burst_identifier) WHERE burst_identifier IS NOT NULL;

        -- Files of an asset. `type` is PhotoKit's PHAssetResourceType (1 photo, 2 video,
        -- 7 adjustment data, 9 paired video…). `file_path` is relative to the library directory.
        CREATE TABLE asset_resource (
            id                INTEGER PRIMARY KEY,
            asset_id          INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
            type              INTEGER NOT NULL CHECK (type BETWEEN 1 AND 16),
            original_filename TEXT    NOT NULL CHECK (length(original_filename) BETWEEN 1 AND 255),
            uti               TEXT    NOT NULL,
            file_path         TEXT    NOT NULL UNIQUE,
            byte_size         INTEGER NOT NULL CHECK (byte_size >= 0),
            sha256            TEXT    NOT NULL CHECK (length(sha256) = 64),
            UNIQUE (asset_id, type)
        ) STRICT;
        -- Dedupe: one asset per original content (photo or video resource).
        CREATE UNIQUE INDEX asset_resource_original_sha256
            ON asset_resource(sha256) WHERE type IN (1, 2);

        -- Folders (PHCollectionList). `position` orders siblings.
        CREATE TABLE folder (
            id               INTEGER PRIMARY KEY,
            local_identifier TEXT    NOT NULL UNIQUE,
            title            TEXT    NOT NULL CHECK (length(title) BETWEEN 1 AND 255),
            parent_id        INTEGER REFERENCES folder(id) ON DELETE CASCADE,
            position         INTEGER NOT NULL,
            creation_date    INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX folder_children ON folder(parent_id, position);

        -- User albums (PHAssetCollection, albumRegular). `position` orders siblings.
        CREATE TABLE album (
            id               INTEGER PRIMARY KEY,
            local_identifier TEXT    NOT NULL UNIQUE,
            title            TEXT    NOT NULL CHECK (length(title) BETWEEN 1 AND 255),
            folder_id        INTEGER REFERENCES folder(id) ON DELETE CASCADE,
            position         INTEGER NOT NULL,
            creation_date    INTEGER NOT NULL,
            modification_date INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX album_children ON album(folder_id, position);

        -- An album's assets in the album's own order. Positions need not be contiguous; they
        -- are not UNIQUE so that a move can renumber in one UPDATE.
        CREATE TABLE album_asset (
            album_id INTEGER NOT NULL REFERENCES album(id) ON DELETE CASCADE,
            asset_id INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            PRIMARY KEY (album_id, asset_id)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX album_asset_order ON album_asset(album_id, position);
        CREATE INDEX album_asset_by_asset ON album_asset(asset_id);
        """

    /// Version 2: staged uploads, album key assets, and the change log (persistent history).
    ///
    /// `change_transaction.token` is AUTOINCREMENT so that a token is never reused, even
    /// after pruning removed every row: `sqlite_sequence` remembers the highest one.
    /// `meta('history_pruned_through')` holds the highest token pruning removed.
    static let version2 = """
        CREATE TABLE staged_upload (
            id                INTEGER PRIMARY KEY,
            upload_id         TEXT    NOT NULL UNIQUE CHECK (length(upload_id) BETWEEN 1 AND 128),
            file_path         TEXT    NOT NULL UNIQUE,
            sha256            TEXT    NOT NULL CHECK (length(sha256) = 64),
            byte_size         INTEGER NOT NULL CHECK (byte_size > 0),
            original_filename TEXT    NOT NULL CHECK (length(original_filename) BETWEEN 1 AND 255),
            media_type        INTEGER NOT NULL CHECK (media_type BETWEEN 0 AND 3),
            media_subtypes    INTEGER NOT NULL DEFAULT 0 CHECK (media_subtypes >= 0),
            pixel_width       INTEGER NOT NULL CHECK (pixel_width > 0),
            pixel_height      INTEGER NOT NULL CHECK (pixel_height > 0),
            orientation       INTEGER NOT NULL CHECK (orientation BETWEEN 1 AND 8),
            creation_date     INTEGER NOT NULL,
            latitude          REAL CHECK (latitude BETWEEN -90 AND 90),
            longitude         REAL CHECK (longitude BETWEEN -180 AND 180),
            altitude          REAL,
            created           INTEGER NOT NULL,
            expires           INTEGER NOT NULL,
            CHECK ((latitude IS NULL) = (longitude IS NULL))
        ) STRICT;
        CREATE INDEX staged_upload_expiry ON staged_upload(expires);
        CREATE INDEX staged_upload_sha256 ON staged_upload(sha256);

        -- The album's chosen cover (setKeyAsset); NULL: its first visible asset.
        ALTER TABLE album ADD COLUMN key_asset_id INTEGER REFERENCES asset(id) ON DELETE SET NULL;

        -- One row per committed transaction that changed something.
        CREATE TABLE change_transaction (
            token        INTEGER PRIMARY KEY AUTOINCREMENT,
            committed_at INTEGER NOT NULL,
            author       TEXT    NOT NULL CHECK (length(author) BETWEEN 1 AND 64)
        ) STRICT;
        CREATE INDEX change_transaction_by_date ON change_transaction(committed_at);

        -- The objects a transaction touched, in the order it first touched them.
        -- object_type: 1 asset, 2 asset collection (album), 3 collection list (folder).
        -- kind: 1 inserted, 2 updated, 3 deleted.
        CREATE TABLE change_object (
            token           INTEGER NOT NULL REFERENCES change_transaction(token) ON DELETE CASCADE,
            seq             INTEGER NOT NULL,
            object_type     INTEGER NOT NULL CHECK (object_type IN (1, 2, 3)),
            identifier      TEXT    NOT NULL,
            kind            INTEGER NOT NULL CHECK (kind IN (1, 2, 3)),
            content_changed INTEGER NOT NULL DEFAULT 0 CHECK (content_changed IN (0, 1)),
            PRIMARY KEY (token, seq)
        ) STRICT, WITHOUT ROWID;
        """

    /// Version 3: content editing. An asset's current edit is at most one row of
    /// `asset_adjustment` (the recipe's format; its bytes are the adjustmentData resource, the
    /// render the fullSizePhoto resource), and `content_generation` counts edits and reverts
    /// (it names the version an editing session starts from, and moves the content version of
    /// cached images). Generations kept in `meta` by earlier builds move into the column.
    static let version3 = """
        CREATE TABLE asset_adjustment (
            asset_id          INTEGER PRIMARY KEY REFERENCES asset(id) ON DELETE CASCADE,
            format_identifier TEXT    NOT NULL CHECK (length(format_identifier) BETWEEN 1 AND 256),
            format_version    TEXT    NOT NULL CHECK (length(format_version) BETWEEN 1 AND 256)
        ) STRICT;
        ALTER TABLE asset ADD COLUMN content_generation INTEGER NOT NULL DEFAULT 0;
        UPDATE asset SET content_generation = (
            SELECT value FROM meta WHERE key = 'content_generation/' || asset.local_identifier)
        WHERE EXISTS (SELECT 1 FROM meta WHERE key = 'content_generation/' || asset.local_identifier);
        DELETE FROM meta WHERE key LIKE 'content_generation/%';
        """

    /// Version 4: clients other than the owner. A client's secret token is stored only as
    /// its SHA-256; its decision is kept per access level (0 not determined … 4 limited, as
    /// `AuthorizationStatus`). `audit_log` records every decision and every refused call, for
    /// the owner.
    static let version4 = """
        CREATE TABLE client (
            id                 INTEGER PRIMARY KEY,
            client_identifier  TEXT    NOT NULL UNIQUE,
            name               TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 128),
            token_sha256       TEXT    NOT NULL UNIQUE CHECK (length(token_sha256) = 64),
            read_write_status  INTEGER NOT NULL DEFAULT 0 CHECK (read_write_status BETWEEN 0 AND 4),
            add_only_status    INTEGER NOT NULL DEFAULT 0 CHECK (add_only_status BETWEEN 0 AND 4),
            revoked            INTEGER NOT NULL DEFAULT 0 CHECK (revoked IN (0, 1)),
            confirm_edits      INTEGER NOT NULL DEFAULT 0 CHECK (confirm_edits IN (0, 1)),
            requested_at       INTEGER NOT NULL,
            decided_at         INTEGER
        ) STRICT;
        CREATE TABLE audit_log (
            id                 INTEGER PRIMARY KEY,
            at                 INTEGER NOT NULL,
            client_identifier  TEXT    NOT NULL,
            event              TEXT    NOT NULL,
            detail             TEXT    NOT NULL
        ) STRICT;
        """

    /// Version 5: limited access. A limited client's selection is a set of asset identifiers
    /// (kept by identifier, so that a purged asset's deletion still reaches the client that
    /// could see it); the rows of a revoked client are removed with the decision.
    static let version5 = """
        CREATE TABLE client_selection (
            client_identifier TEXT NOT NULL,
            asset_identifier  TEXT NOT NULL,
            PRIMARY KEY (client_identifier, asset_identifier)
        ) STRICT, WITHOUT ROWID;
        """

    /// Version 6: originals other than JPEG (HEIC, PNG, WebP). A staged upload remembers the
    /// type identifier of its file, which names the extension it gets under `originals/`.
    static let version6 = """
        ALTER TABLE staged_upload ADD COLUMN uti TEXT NOT NULL DEFAULT 'public.jpeg';
        """

    /// Version 7: videos and Live Photos. A resource keeps its file's Apple content
    /// identifier, which pairs a Live Photo's still and movie imported apart; a staged upload
    /// keeps its video's duration and content identifier; a Live Photo's paired video
    /// deduplicates like an original.
    static let version7 = """
        ALTER TABLE asset_resource ADD COLUMN content_identifier TEXT
            CHECK (content_identifier IS NULL OR length(content_identifier) BETWEEN 1 AND 128);
        CREATE INDEX asset_resource_by_content_identifier
            ON asset_resource(content_identifier) WHERE content_identifier IS NOT NULL;
        DROP INDEX asset_resource_original_sha256;
        CREATE UNIQUE INDEX asset_resource_original_sha256
            ON asset_resource(sha256) WHERE type IN (1, 2, 9);
        ALTER TABLE staged_upload ADD COLUMN duration REAL NOT NULL DEFAULT 0 CHECK (duration >= 0);
        ALTER TABLE staged_upload ADD COLUMN content_identifier TEXT;
        """

    /// The access level each client asked for (0: not known; 1: add-only; 2: read-write, as
    /// `AccessLevel`), so that the owner approves what was asked. Clients recorded before
    /// take it from their `requested` audit line when it is still kept.
    static let version8 = """
        ALTER TABLE client ADD COLUMN requested_level INTEGER NOT NULL DEFAULT 0 CHECK (requested_level IN (0, 1, 2));
        UPDATE client SET requested_level = coalesce((
            SELECT CASE WHEN a.detail LIKE 'add-only access%' THEN 1 WHEN a.detail LIKE 'read-write access%' THEN 2 ELSE 0 END
            FROM audit_log a WHERE a.client_identifier = client.client_identifier AND a.event = 'requested'
            ORDER BY a.id LIMIT 1), 0);
        """

    /// An edited asset's `pixel_width` × `pixel_height` is its current version's size (as
    /// PhotoKit's `PHAsset.pixelWidth`); the original's upright size moves to its adjustment
    /// row, for a revert and for the size an edit of the original must have. `sized` says the
    /// asset's size is the render's: edits made before this version are 0 (their asset still
    /// holds the original's size) until the server reads their render's size.
    static let version9 = """
        ALTER TABLE asset_adjustment ADD COLUMN original_width INTEGER CHECK (original_width IS NULL OR original_width > 0);
        ALTER TABLE asset_adjustment ADD COLUMN original_height INTEGER CHECK (original_height IS NULL OR original_height > 0);
        ALTER TABLE asset_adjustment ADD COLUMN sized INTEGER NOT NULL DEFAULT 0 CHECK (sized IN (0, 1));
        UPDATE asset_adjustment SET
            original_width = (SELECT nullif(a.pixel_width, 0) FROM asset a WHERE a.id = asset_adjustment.asset_id),
            original_height = (SELECT nullif(a.pixel_height, 0) FROM asset a WHERE a.id = asset_adjustment.asset_id);
        """
}
