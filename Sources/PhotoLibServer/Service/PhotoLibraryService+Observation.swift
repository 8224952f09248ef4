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
    func subscribe(_ call: ServerCall<Wire.SubscriptionRequest, Wire.SubscriptionEvent>) async throws {
        let subscriber = await hub.makeSubscriber(session: call.session, limitedTo: limitedTo(call.session))
        defer { hub.remove(subscriber) }
        enum Side { case sender, requests }
        try await withThrowingTaskGroup(of: Side.self) { group in
            group.addTask {
                // The connection pulls the subscriber's events as credit allows: no task
                // runs per event. This one waits for the subscription to end.
                subscriber.attach(wake: call.pull(from: subscriber))
                await subscriber.untilFinished()
                return .sender
            }
            group.addTask { [hub] in
                while let request = try await call.nextRequest() {
                    try await hub.handle(request, for: subscriber)
                }
                return .requests
            }
            // The client half-closing keeps the subscription going; the sender ending (the
            // server is shutting down: a subscription never ends by itself, so it does not
            // wait for the grace period) or any error ends the call.
            while let result = await group.nextResult() {
                switch result {
                case .success(.requests):
                    continue
                case .success(.sender):
                    group.cancelAll()
                    throw PhotoLibError(.unavailable, "server shutting down: subscribe again on a new connection and resume from your last change token")
                case .failure(let error):
                    group.cancelAll()
                    subscriber.finish()
                    throw error
                }
            }
        }
    }

    /// `fetchPersistentChanges(since:)`.
    func fetchPersistentChanges(_ call: ServerCall<Wire.PersistentChangesRequest, Wire.PersistentChangesResponse>) async throws {
        let request = try await call.singleRequest()
        let text = request.sinceToken
        let limit = request.limit == 0 ? 500 : min(Int(request.limit), 10_000)
        let library = view(call.session)
        let page = try await libraryIO.run { () throws(PhotoLibError) in
            // Empty: from the oldest transaction kept, even after history was pruned.
            let since = text.isEmpty ? try library.retainedHistoryStart() : try ChangeHub.token(text)
            return try library.persistentChanges(since: since, limit: limit)
        }
        let changes = page.changes.map(Wire.PersistentChange.init)
        let response = Self.fitting(changes, within: call.session.maxResponseSize) { part in
            Wire.PersistentChangesResponse(changes: part, hasMore: page.hasMore || part.count < changes.count, currentToken: String(page.currentToken))
        }
        try await call.send(response)
    }
}
