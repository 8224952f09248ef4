import Foundation
import PhotoLibCore

extension PhotoLibrary {
    /// The asset with this identifier, or `nil` when there is none. A lookup by identifier
    /// finds hidden and trashed assets too (as PhotoKit's `fetchAssets(withLocalIdentifiers:)`
    /// finds hidden ones): the identifier came from somewhere that could see it.
    public func asset(withIdentifier identifier: String) throws(PhotoLibError) -> Asset? {
        try LocalIdentifier.validate(identifier)
        let scope = SelectionScope(limitedTo)
        return try withDatabase { (database) throws(PhotoLibError) in
            try database.prepare("SELECT \(AssetRow.columns) FROM asset a WHERE a.local_identifier = ?\(scope.and("a.local_identifier"))")
                .firstRow([.text(identifier)] + scope.values, AssetRow.decode)
        }
    }

    /// The assets with these identifiers, in the order given, each once; unknown ones skipped.
    public func assets(withIdentifiers identifiers: [String]) throws(PhotoLibError) -> [Asset] {
        try Self.validateIdentifierList(identifiers)
        let scope = SelectionScope(limitedTo)
        let found = try withDatabase { (database) throws(PhotoLibError) in
            try database.prepare(
                """
                SELECT \(AssetRow.columns) FROM json_each(?) j JOIN asset a ON a.local_identifier = j.value
                \(scope.where("a.local_identifier")) ORDER BY j.key
                """
            ).rows([.text(JSONText.array(identifiers))] + scope.values, AssetRow.decode)
        }
        var seen = Set<String>()
        return found.filter { seen.insert($0.localIdentifier).inserted }
    }

    /// The identifiers matching `query`, in order: what a server-side fetch-result snapshot holds.
    public func fetchAssetIdentifiers(_ query: AssetQuery) throws(PhotoLibError) -> [String] {
        let query = scoped(query)
        return try read { (database) throws(PhotoLibError) in
            let plan = try QueryPlan(query, database: database)
            var sql = "SELECT a.local_identifier \(plan.fromWhere) ORDER BY \(plan.orderBy)"
            var values = plan.values
            if query.fetchLimit > 0 {
                sql += " LIMIT ?"
                values.append(.int(query.fetchLimit))
            }
            return try database.prepareUncached(sql).rows(values) { $0.text(0) }
        }
    }

    /// How many assets match `query` (at most its `fetchLimit`), without listing them.
    public func countAssets(_ query: AssetQuery) throws(PhotoLibError) -> Int {
        let query = scoped(query)
        return try read { (database) throws(PhotoLibError) in
            let plan = try QueryPlan(query, database: database)
            let count = try database.prepareUncached("SELECT count(*) \(plan.fromWhere)").firstRow(plan.values) { $0.int(0) } ?? 0
            return query.fetchLimit > 0 ? min(count, query.fetchLimit) : count
        }
    }

    /// Throws `invalidArgument` unless every identifier is valid and there are not too many.
    static func validateIdentifierList(_ identifiers: [String]) throws(PhotoLibError) {
        guard identifiers.count <= AssetQuery.maximumIdentifierCount else {
            throw PhotoLibError(
                .invalidArgument,
                "\(identifiers.count) identifiers in one request; the limit is \(AssetQuery.maximumIdentifierCount), split the request")
        }
        for identifier in identifiers { try LocalIdentifier.validate(identifier) }
    }
}

/// Decodes `asset` rows into ``Asset`` values.
enum AssetRow {
    /// The selected columns, in the order ``decode(_:)`` reads them; the table is aliased `a`.
    static let columns = """
        a.local_identifier, a.media_type, a.media_subtypes, a.pixel_width, a.pixel_height, \
        a.creation_date, a.modification_date, a.favorite, a.hidden, a.duration, a.burst_identifier, \
        a.latitude, a.longitude, a.altitude, a.has_adjustments, a.trashed_date, a.content_generation
        """

    /// The asset in the current row of `row`.
    /// Read through ``AssetColumns``, where the columns' indices and conversions live.
    static func decode(_ row: Statement) throws(PhotoLibError) -> Asset {
        guard let columns = AssetColumns(anyBurst: row) else {
            throw PhotoLibError(.dataLoss, "asset \(AssetColumns.localIdentifier(of: row)) has an invalid media type or subtype in the database")
        }
        return Asset(
            localIdentifier: columns.localIdentifier, mediaType: columns.mediaType, mediaSubtypes: columns.mediaSubtypes,
            pixelWidth: columns.pixelWidth, pixelHeight: columns.pixelHeight,
            creationDate: columns.creationDate, modificationDate: columns.modificationDate,
            isFavorite: columns.isFavorite, isHidden: columns.isHidden, duration: columns.duration,
            burstIdentifier: columns.burstIdentifier, location: columns.location, hasAdjustments: columns.hasAdjustments,
            trashedDate: columns.trashedDate, contentVersion: columns.contentVersion)
    }
}

/// The SQL for an ``AssetQuery``: a FROM/WHERE clause with its parameters and an ORDER BY.
struct QueryPlan {
    /// `FROM asset a [JOIN album_asset aa …] WHERE …`.
    var fromWhere: String
    /// Parameters of ``fromWhere``.
    var values: [DatabaseValue]
    /// The ORDER BY terms, ending with the local identifier.
    var orderBy: String

    /// Builds the plan, resolving the collection (`notFound` for an unknown one).
    init(_ query: AssetQuery, database: Database) throws(PhotoLibError) {
        guard query.fetchLimit >= 0 else {
            throw PhotoLibError(.invalidArgument, "fetchLimit \(query.fetchLimit) is negative; use 0 for no limit")
        }
        var from = "FROM asset a"
        var conditions: [String] = []
        var values: [DatabaseValue] = []
        var albumOrder = false
        var trashRule = "a.trashed = 0"
        var hiddenRule: String? = query.includeHiddenAssets ? nil : "a.hidden = 0"

        if let collection = query.collection {
            try LocalIdentifier.validate(collection)
            if let smart = SmartAlbum.withIdentifier(collection) {
                if smart.showsTrash { trashRule = "a.trashed = 1" }
                if smart.ownsHiddenRule { hiddenRule = nil }
                if smart.condition != "1" { conditions.append(smart.condition) }
                values += smart.parameters(now: Microseconds.now)
            } else {
                guard let albumID = try database.prepare("SELECT id FROM album WHERE local_identifier = ?")
                    .firstRow([.text(collection)], { $0.int64(0) })
                else {
                    throw PhotoLibError(.notFound, "no album or smart album has the identifier \(collection)")
                }
                from += " JOIN album_asset aa ON aa.asset_id = a.id AND aa.album_id = ?"
                values.insert(.integer(albumID), at: 0)
                albumOrder = true
            }
        }
        conditions.insert(contentsOf: [trashRule] + (hiddenRule.map { [$0] } ?? []), at: 0)
        if let mediaType = query.mediaType {
            conditions.append("a.media_type = \(mediaType.rawValue)")
        }
        if let identifiers = query.identifiers {
            try PhotoLibrary.validateIdentifierList(identifiers)
            conditions.append("a.local_identifier IN (SELECT value FROM json_each(?))")
            values.append(.text(JSONText.array(identifiers)))
        }
        if let predicate = query.predicate {
            let condition = try PredicateSQL(predicate)
            conditions.append(condition.sql)
            values += condition.values
        }
        if let client = query.limitedTo {
            conditions.append(SelectionScope.condition(column: "a.local_identifier"))
            values.append(.text(client))
        }
        self.fromWhere = from + " WHERE " + conditions.joined(separator: " AND ")
        self.values = values
        self.orderBy = Self.orderBy(query.sortDescriptors, albumOrder: albumOrder)
    }

    /// ORDER BY terms: the descriptors, then the local identifier in the last descriptor's
    /// direction (so a descending sort is the exact reverse of the ascending one and can walk
    /// the same index backwards). Empty descriptors: album order, or creation date ascending.
    static func orderBy(_ descriptors: [AssetSortDescriptor], albumOrder: Bool) -> String {
        if descriptors.isEmpty {
            return albumOrder ? "aa.position, a.local_identifier" : "a.creation_date, a.local_identifier"
        }
        var terms: [String] = []
        for descriptor in descriptors {
            terms.append(column(descriptor.key) + (descriptor.ascending ? " ASC" : " DESC"))
            // The identifier is unique: nothing after it can change the order.
            if descriptor.key == .localIdentifier { return terms.joined(separator: ", ") }
        }
        let last = descriptors[descriptors.count - 1]
        terms.append("a.local_identifier" + (last.ascending ? " ASC" : " DESC"))
        return terms.joined(separator: ", ")
    }

    /// The column a sort key reads.
    static func column(_ key: AssetSortKey) -> String {
        switch key {
        case .creationDate: return "a.creation_date"
        case .modificationDate: return "a.modification_date"
        case .pixelWidth: return "a.pixel_width"
        case .pixelHeight: return "a.pixel_height"
        case .duration: return "a.duration"
        case .isFavorite: return "a.favorite"
        case .isHidden: return "a.hidden"
        case .mediaType: return "a.media_type"
        case .localIdentifier: return "a.local_identifier"
        }
    }
}

/// JSON text for binding lists to `json_each(?)`: one parameter however long the list.
enum JSONText {
    /// A JSON array of strings. Escapes what JSON requires; identifiers are printable ASCII,
    /// but any Swift string encodes correctly. Built as UTF-8 bytes (a page of 100
    /// identifiers, scalar by scalar into a `String`, cost about 0.1 ms).
    static func array(_ strings: [String]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(strings.reduce(2) { $0 + $1.utf8.count + 3 })
        bytes.append(UInt8(ascii: "["))
        for (index, string) in strings.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    bytes.append(UInt8(ascii: "\\"))
                    bytes.append(byte)
                case 0..<0x20:
                    bytes += Array(String(format: "\\u%04x", byte).utf8)
                default:
                    bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
