import Foundation
import PhotoLibCore
import PhotoLibStore
import PhotoLibWire

extension PhotoLibraryService {
    /// Registers the change feed and persistent history.
    func registerObservationRoutes(in router: inout RPCRouter) {
        router.register(PhotoLibraryMethods.subscribe) { [self] call in try await subscribe(call) }
        router.register(PhotoLibraryMethods.fetchPersistentChanges) { [self] call in try await fetchPersistentChanges(call) }
    }

    /// Bidirectional: requests (resume, register…) in, notifications out, until the client cancels.
    func subscribe(_ call: ServerCall) async throws {
        let subscriber = hub.makeSubscriber(session: call.session)
        defer { hub.remove(subscriber) }
        enum Side { case sender, requests }
        try await withThrowingTaskGroup(of: Side.self) { group in
            group.addTask {
                while let event = await subscriber.next() {
                    try await call.send(event)
                }
                return .sender
            }
            group.addTask { [hub] in
                while let request = try await call.nextRequest(SubscriptionRequest.self) {
                    try await hub.handle(request, for: subscriber)
                }
                return .requests
            }
            // The client half-closing keeps the subscription going; the sender ending (the
            // server is shutting down) or any error ends the call.
            while let result = await group.nextResult() {
                switch result {
                case .success(.requests):
                    continue
                case .success(.sender):
                    group.cancelAll()
                    return
                case .failure(let error):
                    group.cancelAll()
                    subscriber.finish()
                    throw error
                }
            }
        }
    }

    /// One transaction of history, grouped by object type.
    static func persistentMessage(_ change: PhotoLibStore.PersistentChange) -> PersistentChangeMessage {
        let types: [ObjectChange.ObjectType] = [.asset, .assetCollection, .collectionList]
        var groups: [PersistentChangeMessage.ObjectChanges] = []
        for type in types {
            let objects = change.objects.filter { $0.objectType == type }
            guard !objects.isEmpty else { continue }
            func identifiers(_ kind: ObjectChange.Kind) -> [String] { objects.filter { $0.kind == kind }.map(\.identifier) }
            groups.append(PersistentChangeMessage.ObjectChanges(
                objectType: FetchObjectType(rawValue: type.rawValue) ?? .asset,
                inserted: identifiers(.inserted), updated: identifiers(.updated), deleted: identifiers(.deleted)))
        }
        return PersistentChangeMessage(changeToken: String(change.token), committedAt: change.committedAt, author: change.author, changes: groups)
    }

    /// `fetchPersistentChanges(since:)`.
    func fetchPersistentChanges(_ call: ServerCall) async throws {
        let request = try await call.singleRequest(PersistentChangesRequest.self)
        let since = try ChangeHub.token(request.sinceToken)
        let limit = request.limit == 0 ? 500 : min(max(1, request.limit), 10_000)
        let page = try library.persistentChanges(since: since, limit: limit)
        let changes = page.changes.map(Self.persistentMessage)
        let response = Self.fitting(changes, within: call.session.maxResponseSize) { part in
            PersistentChangesResponse(changes: part, hasMore: page.hasMore || part.count < changes.count, currentToken: String(page.currentToken))
        }
        try await call.send(response)
    }
}
