import Foundation
import Synchronization
import Logging
import PhotoLibCore
import PhotoLibImaging
import PhotoLibStore
import PhotoLibWire

/// The `PhotoLibrary` service: the handlers of the methods this server has built.
///
/// Methods of Protos/service.proto that are not registered here answer `UNIMPLEMENTED`.
final class PhotoLibraryService: Sendable {
    let library: PhotoLibrary
    let configuration: ServerConfiguration
    let logger: Logger
    let renderer: RenderPool
    /// Checks uploads (full decodes) apart from ``renderer``: see ``RenderPool``.
    let validator: RenderPool
    /// Where handlers run their store reads and writes and library file reads (SQLite and
    /// file I/O block, so never on the cooperative pool): see ``BlockingPool``.
    let libraryIO: BlockingPool
    /// Read-ahead batches of `RequestResourceData` (exports, video streaming) across all
    /// connections, within ``ServerConfiguration/resourceReadAheadBytes``.
    let resourceBatchBudget: ByteBudget
    let hub: ChangeHub
    /// Which files an asset's images render from, and their content version (cached).
    let imageSources: ImageSourceResolver
    /// Snapshot lists shared by identical fetches.
    let sharedSnapshots = SharedSnapshotCache()
    /// Rendered images in memory and on disk, and the pre-render bookkeeping.
    let imageCache: ImageCache
    /// Where `GetLibraryInfo` reads the server's statistics (set by the server).
    let statisticsSource = StatisticsSource()
    /// How a decision reaches a client's open connections (set by the server).
    let clientConnections = ClientConnectionControl()
    /// Client changes waiting for the owner's confirmation (answer: confirm or decline).
    let editConfirmations = OwnerQuestions<Bool>(idPrefix: "edit-", what: "changes wait for the owner's confirmation")
    /// Limited clients' requests for more assets (answer: the assets newly selected).
    let pickerRequests = OwnerQuestions<[String]>(idPrefix: "more-", what: "requests for more assets wait for the owner")

    /// Objects returned with a snapshot or per page, at most.
    static let maxPageLength = 1000
    /// Threads of ``libraryIO``: the store's readers run beside each other and beside its
    /// writer (at most one at a time); these also read files and snapshots.
    static let libraryIOConcurrency = 4

    /// The library's clients (authentication, decisions, waiting for decisions).
    let clients: ClientDirectory

    init(library: PhotoLibrary, configuration: ServerConfiguration, logger: Logger, clients: ClientDirectory) {
        self.clients = clients
        self.library = library
        self.configuration = configuration
        self.logger = logger
        self.renderer = RenderPool(concurrency: configuration.renderConcurrency, timeLimit: configuration.decodeTimeLimit)
        self.validator = RenderPool(
            name: "photolibd.validate", concurrency: configuration.validationConcurrency, timeLimit: configuration.decodeTimeLimit)
        self.libraryIO = BlockingPool(name: "photolibd.library-io", concurrency: Self.libraryIOConcurrency)
        self.resourceBatchBudget = ByteBudget(limit: configuration.resourceReadAheadBytes)
        self.imageSources = ImageSourceResolver(library: library)
        self.imageCache = ImageCache(directory: library.directory, configuration: configuration, logger: logger)
        self.hub = ChangeHub(
            library: library, logger: logger, pollInterval: configuration.changePollInterval, maxQueuedPerSubscriber: configuration.maxQueuedNotifications,
            limits: ObservationLimits(
                maxRegistrationsPerConnection: configuration.maxObservedResultsPerConnection, maxLiveResults: configuration.maxLiveResults,
                maxObjectsPerSubscription: configuration.maxObservedObjectsPerSubscription,
                maxLiveResultBytes: configuration.liveResultMemoryBytes))
    }

    func register(in router: inout RPCRouter) {
        router.register(PhotoLibraryMethods.getLibraryInfo) { [self] call in try await getLibraryInfo(call) }
        router.register(PhotoLibraryMethods.fetchAssets) { [self] call in try await fetchAssets(call) }
        router.register(PhotoLibraryMethods.fetchAssetCollections) { [self] call in try await fetchAssetCollections(call) }
        router.register(PhotoLibraryMethods.fetchCollectionLists) { [self] call in try await fetchCollectionLists(call) }
        router.register(PhotoLibraryMethods.fetchResultObjects, on: libraryIO) { [self] request, context throws(PhotoLibError) in
            try fetchResultObjects(request, context)
        }
        router.register(PhotoLibraryMethods.fetchResultIndex, on: libraryIO) { [self] request, context throws(PhotoLibError) in
            try fetchResultIndex(request, context)
        }
        router.register(PhotoLibraryMethods.releaseFetchResult) { [self] call in try await releaseFetchResult(call) }
        registerImageRoutes(in: &router)
        registerChangeRoutes(in: &router)
        registerEditingRoutes(in: &router)
        registerObservationRoutes(in: &router)
        registerAuthorizationRoutes(in: &router)
    }

    private func getLibraryInfo(_ call: ServerCall<Wire.Empty, Wire.LibraryInfo>) async throws {
        _ = try await call.singleRequest()
        let library = view(call.session), source = statisticsSource, isOwner = call.session.isOwner
        let (assets, albums, token, statistics) = try await libraryIO.run { () throws(PhotoLibError) in
            (try library.countAssets(AssetQuery()), try library.userAlbumCount(), try library.currentChangeToken(),
             isOwner ? source.current() : nil)
        }
        try await call.send(Wire.LibraryInfo(
            libraryIdentifier: library.libraryIdentifier, serverName: configuration.serverName,
            assetCount: UInt64(assets), albumCount: UInt64(albums), currentChangeToken: String(token),
            budgets: statistics.map { Self.budgets(of: $0, library: library) } ?? []))
    }

    /// The owner's view of the server's bounded resources.
    static func budgets(of statistics: ServerStatistics, library: PhotoLibrary) -> [Wire.ResourceBudget] {
        func budget(_ name: String, bytes: Int = 0, byteLimit: Int = 0, items: Int = 0, itemLimit: Int = 0) -> Wire.ResourceBudget {
            Wire.ResourceBudget(
                name: name, bytesHeld: UInt64(max(0, bytes)), bytesLimit: UInt64(max(0, byteLimit)),
                itemsHeld: UInt64(max(0, items)), itemsLimit: UInt64(max(0, itemLimit)))
        }
        let reserve = library.diskReserve
        return [
            budget("memory", bytes: statistics.residentBytes, byteLimit: statistics.maxMemory),
            budget("connections", items: statistics.connections, itemLimit: statistics.connectionLimit),
            budget("snapshots", bytes: statistics.snapshotBytes, byteLimit: statistics.snapshotLimit),
            budget("live-results", bytes: statistics.liveResultBytes, byteLimit: statistics.liveResultByteLimit,
                   items: statistics.liveResults, itemLimit: statistics.liveResultLimit),
            budget("image-cache", bytes: statistics.imageCacheBytes, byteLimit: statistics.imageCacheLimit),
            budget("disk-reserve", bytes: reserve.isHeld ? reserve.size : 0, byteLimit: reserve.size),
        ]
    }
}

/// The server's statistics, as the service reads them (the server sets the provider once
/// it exists; the service is made first).
final class StatisticsSource: Sendable {
    /// Guards the provider. A leaf lock.
    private let provider = Mutex<(@Sendable () -> ServerStatistics?)?>(nil)

    func set(_ provider: @escaping @Sendable () -> ServerStatistics?) {
        self.provider.withLock { $0 = provider }
    }

    /// The statistics now; `nil` before the server has set a provider.
    func current() -> ServerStatistics? {
        provider.withLock { $0 }?()
    }
}

/// Closes a client's open connections when the owner denies or revokes it (the server sets
/// the action once it exists; the service is made first).
final class ClientConnectionControl: Sendable {
    /// Guards the action. A leaf lock.
    private let action = Mutex<(@Sendable (String, PhotoLibError) -> Void)?>(nil)

    func set(_ action: @escaping @Sendable (String, PhotoLibError) -> Void) {
        self.action.withLock { $0 = action }
    }

    /// Ends every open connection of `client` with `error`.
    func close(client: String, error: PhotoLibError) {
        action.withLock { $0 }?(client, error)
    }
}
