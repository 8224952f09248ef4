import PhotoLibCore
import Synchronization

/// Per-connection registrations of `StartCachingImages`, bounded per connection.
///
/// Entries are keyed by the connection's id and hold the session weakly: once a connection
/// is gone (its session freed) its registrations are dropped at the next use and its
/// queued pre-renders are skipped.
final class ImageCachePrefetch: Sendable {
    /// One caching registration: an asset at a size.
    struct Entry: Hashable, Sendable {
        var assetIdentifier: String
        var targetSize: PixelSize
        var contentMode: ContentMode
        var resizeMode: ResizeMode
        var version: ImageVersion
    }

    /// One connection's registrations; the session is held weakly so a closed connection's
    /// entries are purged.
    private struct Registrations: Sendable {
        weak var session: ConnectionSession?
        var entries: Set<Entry> = []
    }

    let limitPerConnection: Int
    /// Registrations by connection id.
    private let connections = Mutex<[UInt64: Registrations]>([:])

    init(limitPerConnection: Int) {
        self.limitPerConnection = max(1, limitPerConnection)
    }

    /// Adds entries for `session`; returns the ones that were new. Throws
    /// `resourceExhausted` when the connection would hold more than the limit.
    func add(_ entries: [Entry], session: ConnectionSession) throws(PhotoLibError) -> [Entry] {
        let limit = limitPerConnection
        return try connections.withLock { connections throws(PhotoLibError) in
            Self.purge(&connections)
            var registrations = connections[session.connectionID] ?? Registrations(session: session)
            let new = Array(Set(entries.filter { !registrations.entries.contains($0) }))
            guard registrations.entries.count + new.count <= limit else {
                throw PhotoLibError(.resourceExhausted, "this connection already caches \(registrations.entries.count) images; at most \(limit) at once: stopCaching the ones that scrolled away first")
            }
            registrations.entries.formUnion(new)
            connections[session.connectionID] = registrations
            return new
        }
    }

    /// Removes entries of `session`.
    func remove(_ entries: [Entry], session: ConnectionSession) {
        connections.withLock { connections in
            connections[session.connectionID]?.entries.subtract(entries)
            Self.purge(&connections)
        }
    }

    /// Removes every entry of `session`.
    func removeAll(session: ConnectionSession) {
        connections.withLock { connections in
            connections[session.connectionID] = nil
            Self.purge(&connections)
        }
    }

    /// Whether `entry` is still wanted by a live connection `connectionID`.
    func isWanted(_ entry: Entry, connectionID: UInt64) -> Bool {
        connections.withLock { connections in
            guard let registrations = connections[connectionID], registrations.session != nil else { return false }
            return registrations.entries.contains(entry)
        }
    }

    /// Registrations held for a connection.
    func count(connectionID: UInt64) -> Int {
        connections.withLock { $0[connectionID]?.entries.count ?? 0 }
    }

    /// Drops the registrations of closed connections and empty ones.
    private static func purge(_ connections: inout [UInt64: Registrations]) {
        connections = connections.filter { $0.value.session != nil && !$0.value.entries.isEmpty }
    }
}
