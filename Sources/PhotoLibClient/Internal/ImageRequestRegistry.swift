import Synchronization

/// The image requests this connection's image manager started and handed an id for
/// (``ImageManager/startImageRequest(forAssetIdentifier:targetSize:contentMode:options:progress:)``,
/// the result-handler `requestImage`), by id, while they run: so that
/// ``ImageManager/cancelImageRequest(_:)`` of one of them cancels its call in the connection
/// (CANCEL, which the server reads after the request's CALL) instead of asking the server by
/// id, which could arrive before the server has seen the request and find nothing. Entries
/// leave when their request ends; a leaf lock (tasks add and cancel, the connection's queue
/// removes).
final class ImageRequestRegistry: Sendable {
    private let running = Mutex<[UInt64: ClientStream]>([:])

    /// `stream` carries the request with `id`, from before its CALL is sent.
    func add(_ id: UInt64, _ stream: ClientStream) {
        running.withLock { $0[id] = stream }
    }

    /// The request with `id` ended.
    func remove(_ id: UInt64) {
        running.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// Takes out the call of the running request with `id`, if this connection started it.
    func take(_ id: UInt64) -> ClientStream? {
        running.withLock { $0.removeValue(forKey: id) }
    }
}
