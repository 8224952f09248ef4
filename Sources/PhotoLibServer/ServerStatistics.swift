/// What the server's bounded resources hold now: each budget's use beside its limit.
public struct ServerStatistics: Sendable, Hashable {
    /// Open connections.
    public var connections: Int
    /// Bytes all fetch-result snapshots hold (identical lists counted once).
    public var snapshotBytes: Int
    /// The snapshot budget (`ServerConfiguration.snapshotMemoryBytes`).
    public var snapshotLimit: Int
    /// Snapshots released to keep within the budget since the server started.
    public var snapshotsReleased: Int
    /// Distinct live fetch results kept up to date for subscribers.
    public var liveResults: Int
    /// Their limit (`ServerConfiguration.maxLiveResults`).
    public var liveResultLimit: Int
    /// Fetch-result registrations of all subscriptions.
    public var registrations: Int
    /// Bytes of rendered images in the memory cache.
    public var imageCacheBytes: Int
    /// Its limit (`ServerConfiguration.imageMemoryCacheBytes`).
    public var imageCacheLimit: Int
}
