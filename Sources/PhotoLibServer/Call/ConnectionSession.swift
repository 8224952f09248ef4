import Foundation
import PhotoLibCore

/// What the server knows about one authenticated connection.
public final class ConnectionSession: @unchecked Sendable {
    /// A number for logs.
    public let connectionID: UInt64
    /// Whether the client presented the owner token.
    public let isOwner: Bool
    /// The connection's fetch-result snapshots.
    public let fetchResults: FetchResultRegistry
    /// The largest response message the client accepts (its maximum frame size).
    public let maxResponseSize: Int
    private let lock = NSLock()
    private var imageRequests: [UInt64: @Sendable () -> Void] = [:]

    init(connectionID: UInt64, isOwner: Bool, fetchResults: FetchResultRegistry, maxResponseSize: Int) {
        self.maxResponseSize = maxResponseSize
        self.connectionID = connectionID
        self.isOwner = isOwner
        self.fetchResults = fetchResults
    }

    /// Remembers how to cancel the image request with a client-chosen id; `false` if the id is in use.
    func registerImageRequest(_ id: UInt64, cancel: @escaping @Sendable () -> Void) -> Bool {
        lock.withLock {
            guard imageRequests[id] == nil else { return false }
            imageRequests[id] = cancel
            return true
        }
    }

    /// Whether an image request with this id is running.
    func isImageRequestRunning(_ id: UInt64) -> Bool {
        lock.withLock { imageRequests[id] != nil }
    }

    /// Forgets an image request id.
    func unregisterImageRequest(_ id: UInt64) {
        lock.withLock { _ = imageRequests.removeValue(forKey: id) }
    }

    /// Cancels an image request by its id; `false` when no such request is running.
    func cancelImageRequest(_ id: UInt64) -> Bool {
        let cancel = lock.withLock { imageRequests.removeValue(forKey: id) }
        cancel?()
        return cancel != nil
    }
}
