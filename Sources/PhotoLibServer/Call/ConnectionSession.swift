import Foundation
import PhotoLibCore
import Synchronization

/// What the server knows about one connection past its handshake.
public final class ConnectionSession: Sendable {
    /// A number for logs.
    public let connectionID: UInt64
    /// Who the connection is (owner, client, or nobody yet).
    public let identity: ConnectionIdentity
    /// Whether the client presented the owner token.
    public var isOwner: Bool { identity == .owner }
    /// The client's identifier when the connection is a client's.
    public var clientIdentifier: String? {
        if case .client(let identifier) = identity { return identifier }
        return nil
    }
    /// The connection's fetch-result snapshots.
    public let fetchResults: FetchResultRegistry
    /// The largest response message the client accepts (its maximum frame size).
    public let maxResponseSize: Int
    /// Turns for the image requests whose image may be large (``PhotoLibraryService/isLarge(_:)``):
    /// a call takes one before it renders or reads the image and gives it back once the image's
    /// last part is handed to the connection, so the connection's calls hold at most
    /// `ServerConfiguration.maxLargeImagesPerConnection` such images at once, however many it
    /// opens without reading.
    let largeImages: AsyncSlots
    /// Guards the running image requests' cancel actions, by client-chosen id. A leaf lock:
    /// a cancel action runs after it is released.
    private let imageRequests = Mutex<[UInt64: @Sendable () -> Void]>([:])

    init(connectionID: UInt64, identity: ConnectionIdentity, fetchResults: FetchResultRegistry, maxResponseSize: Int, largeImages: Int) {
        self.maxResponseSize = maxResponseSize
        self.largeImages = AsyncSlots(limit: largeImages)
        self.connectionID = connectionID
        self.identity = identity
        self.fetchResults = fetchResults
    }

    /// Remembers how to cancel the image request with a client-chosen id; `false` if the id is in use.
    func registerImageRequest(_ id: UInt64, cancel: @escaping @Sendable () -> Void) -> Bool {
        imageRequests.withLock { requests in
            guard requests[id] == nil else { return false }
            requests[id] = cancel
            return true
        }
    }

    /// Whether an image request with this id is running.
    func isImageRequestRunning(_ id: UInt64) -> Bool {
        // Most connections run none through the handler: no hash for an empty table.
        imageRequests.withLock { !$0.isEmpty && $0[id] != nil }
    }

    /// Forgets an image request id.
    func unregisterImageRequest(_ id: UInt64) {
        imageRequests.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// Cancels an image request by its id; `false` when no such request is running.
    func cancelImageRequest(_ id: UInt64) -> Bool {
        let cancel = imageRequests.withLock { $0.removeValue(forKey: id) }
        cancel?()
        return cancel != nil
    }
}
