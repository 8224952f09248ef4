import PhotoLibWire
import Synchronization

/// The fetch results that `registerFetch` answers made on one connection, by snapshot id.
/// Subscriptions registering the same fetch while the server's live result is at one version
/// get the same snapshot id (docs/PROTOCOL.md, `register_fetch`), and here they share one
/// ``FetchResult``: its prefetched objects are built once per connection, not once per
/// subscription, and freed once when the subscriptions follow the result after the first
/// change (10,000 subscriptions of a 100-object first page built and freed a million
/// objects). A snapshot id of another answer (a second registration in one subscription) is
/// never the same, so nothing else is shared. Bounded: the last ``capacity`` results.
final class SharedRegistrations: Sendable {
    static let capacity = 4

    /// Guards the results kept, most recent first. A leaf lock (a result is built outside it).
    private let recent = Mutex<[FetchResult<Asset>]>([])

    /// The result `snapshot` describes: the one made from the same snapshot lately, or a new one.
    func result(for snapshot: Wire.FetchResultSnapshot, connection: ClientConnection) throws -> FetchResult<Asset> {
        let count = Int(clamping: snapshot.count)
        let found = recent.withLock { $0.first { $0.fetchResultID == snapshot.fetchResultID && $0.count == count } }
        if let found { return found }
        let made = try FetchResult<Asset>(snapshot: snapshot, connection: connection)
        recent.withLock { recent in
            recent.removeAll { $0.fetchResultID == made.fetchResultID }
            recent.insert(made, at: 0)
            if recent.count > Self.capacity { recent.removeLast() }
        }
        return made
    }
}
