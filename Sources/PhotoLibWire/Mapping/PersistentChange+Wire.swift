import PhotoLibCore

// PersistentChange (PhotoLibCore) ⇄ `PersistentChange` (observation.proto): the objects of a
// transaction travel grouped by object type.

extension Wire.PersistentChange {
    /// The message for `change`: one group per object type it touched.
    public init(_ change: PersistentChange) {
        var groups: [Wire.PersistentObjectChanges] = []
        for type in ObjectChange.ObjectType.allCases where change.objects.contains(where: { $0.objectType == type }) {
            groups.append(Wire.PersistentObjectChanges(
                objectType: .init(type), insertedIdentifiers: change.identifiers(type, .inserted),
                updatedIdentifiers: change.identifiers(type, .updated), deletedIdentifiers: change.identifiers(type, .deleted)))
        }
        self.init(changeToken: change.changeToken, committedAtMs: Wire.milliseconds(change.committedAt), author: change.author, changes: groups)
    }
}

extension PersistentChange {
    /// The transaction a message describes; a token that is not a decimal number or an
    /// unknown object type is `invalidArgument`.
    public init(_ wire: Wire.PersistentChange) throws(PhotoLibError) {
        guard let token = Int64(wire.changeToken) else {
            throw PhotoLibError(.invalidArgument, "PersistentChange.change_token \"\(wire.changeToken)\" is not a change token")
        }
        var objects: [ObjectChange] = []
        for group in wire.changes {
            let type: ObjectChange.ObjectType = try group.objectType.domain(field: "PersistentObjectChanges.object_type")
            for (kind, identifiers) in [(ObjectChange.Kind.inserted, group.insertedIdentifiers), (.updated, group.updatedIdentifiers), (.deleted, group.deletedIdentifiers)] {
                objects += identifiers.map { ObjectChange(objectType: type, identifier: $0, kind: kind) }
            }
        }
        self.init(token: token, committedAt: Wire.date(milliseconds: wire.committedAtMs), author: wire.author, objects: objects)
    }
}

extension PersistentChangePage {
    /// The page a response carries.
    public init(_ wire: Wire.PersistentChangesResponse) throws(PhotoLibError) {
        guard let current = Int64(wire.currentToken) else {
            throw PhotoLibError(.invalidArgument, "PersistentChangesResponse.current_token \"\(wire.currentToken)\" is not a change token")
        }
        self.init(changes: try wire.changes.map { (change) throws(PhotoLibError) in try PersistentChange(change) }, hasMore: wire.hasMore, currentToken: current)
    }
}
