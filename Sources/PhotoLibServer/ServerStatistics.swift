import Foundation

/// What the server's bounded resources hold now: each budget's use beside its limit.
public struct ServerStatistics: Sendable, Hashable {
    /// The memory limit the budgets below draw from (`ServerConfiguration.maxMemory`).
    public var maxMemory: Int
    /// The process's resident memory now (bytes; 0 when unknown).
    public var residentBytes: Int
    /// Open connections.
    public var connections: Int
    /// Their limit (`ServerConfiguration.maxConnections`).
    public var connectionLimit: Int
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
    /// The estimated bytes they hold.
    public var liveResultBytes: Int
    /// The bytes they may hold (a quarter of ``maxMemory``).
    public var liveResultByteLimit: Int
    /// Fetch-result registrations of all subscriptions.
    public var registrations: Int
    /// Bytes of rendered images in the memory cache.
    public var imageCacheBytes: Int
    /// Its limit (`ServerConfiguration.imageMemoryCacheBytes`).
    public var imageCacheLimit: Int
}

extension ServerStatistics {
    /// The process's resident set size (`VmRSS` of /proc/self/status), 0 when unknown.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
        }
        return 0
    }
}
