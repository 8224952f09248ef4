@_exported import PhotoLibCore
import Foundation
import PhotoLibNet
import PhotoLibWire

/// A remote photo library: PhotoKit's `PHPhotoLibrary`, `PHAsset.fetchAssets`,
/// `PHAssetCollection.fetchAssetCollections` and `PHImageManager`, over one connection.
///
/// ```swift
/// let library = try await PhotoLibrary.connect(to: "127.0.0.1:7800", token: token)
/// let assets = try await library.fetchAssets(with: FetchOptions(sortDescriptors: [.init(key: .creationDate, ascending: false)]))
/// if let newest = try await assets.firstObject {
///     let image = try await library.imageManager.image(
///         forAssetIdentifier: newest.localIdentifier, targetSize: PixelSize(width: 256, height: 256), contentMode: .aspectFill)
///     print("\(image.width)x\(image.height), \(image.data.count) bytes of \(image.uniformTypeIdentifier)")
/// }
/// ```
///
/// ``ImageManager/image(forAssetIdentifier:targetSize:contentMode:options:progress:)``
/// returns the final image; ``ImageManager/requestImage(for:targetSize:contentMode:options:progress:)``
/// returns a stream of images (in opportunistic delivery, a degraded one first).
///
/// ### Errors and cancellation
///
/// Every call throws `PhotoLibError`, with the server's status code (`notFound`,
/// `invalidArgument`, `failedPrecondition`, …) or one the client sets itself. Arguments the
/// wire cannot carry (a negative `fetchLimit`, a negative target size) are refused with
/// `invalidArgument` before anything is sent. Cancelling the task that awaits a call (or
/// iterates its stream) cancels the call on the server, and the call throws
/// `PhotoLibError` with code `cancelled` — not Swift's `CancellationError`: check
/// `(error as? PhotoLibError)?.code == .cancelled`. So does a call still running when
/// ``close()`` is called.
///
/// Fetch results are server-side snapshots that expire when unused (see ``FetchResult``).
public final class PhotoLibrary: Sendable {
    /// The library's identifier.
    public let libraryIdentifier: String
    /// The server's name and version.
    public let serverName: String
    /// Whether this connection holds the owner token.
    public let isOwner: Bool
    /// Image requests on this connection.
    public var imageManager: ImageManager { ImageManager(connection: connection) }
    /// A task executor that runs tasks on this connection's serial queue, where result
    /// handlers run: a task that prefers it and awaits this library's calls is resumed in the
    /// turn that read the answer, without waking a thread, and its next request leaves with
    /// that turn's writes. It makes the async API about as cheap as result handlers, for a task
    /// that prefers it for its whole life (a preference scoped around a single call gains
    /// nothing: the task hops back to Swift's pool when the scope ends):
    ///
    /// ```swift
    /// let loader = Task(executorPreference: library.taskExecutor) {
    ///     for id in identifiers {
    ///         let image = try await library.imageManager.image(forAssetIdentifier: id, targetSize: size)
    ///         thumbnails.append(image)   // quick work only: this runs on the connection's queue
    ///     }
    /// }
    /// ```
    ///
    /// The rule is the result handlers': code that runs there must return quickly and never
    /// block (no file I/O, no waiting for a lock held elsewhere, no `DispatchQueue.sync`), since
    /// the connection's I/O waits for it. Awaiting other work is fine: the task leaves and comes
    /// back. A task created with the preference (`Task(executorPreference:)`, `addTask`) keeps
    /// the executor alive; after the library is closed, its calls fail as any others do and
    /// its code still runs on the (idle) queue.
    public var taskExecutor: any TaskExecutor { connection.executor }

    let connection: ClientConnection
    /// What this connection's change subscriptions share (``SharedChangeDecoding``).
    let sharedChangeDecoding = SharedChangeDecoding()
    /// What its subscriptions' `registerFetch` answers share (``SharedRegistrations``).
    let sharedRegistrations = SharedRegistrations()

    private init(connection: ClientConnection, welcome: Wire.Welcome) {
        self.connection = connection
        self.libraryIdentifier = welcome.libraryIdentifier
        self.serverName = welcome.serverName
        self.isOwner = welcome.isOwner
    }

    /// Connects to `server` (`HOST:PORT`) and authenticates with `token`.
    ///
    /// Throws `unavailable` when nothing answers, `unauthenticated` for a wrong token.
    ///
    /// An empty `token` is not a wrong token: it opens a connection without a credential
    /// (``isOwner`` false), and `connect` succeeds. Its only call is `RequestAuthorization`
    /// (what ``requestAuthorization(for:name:server:configuration:)`` makes on a connection of
    /// its own, or ``call(_:_:timeout:)`` with `PhotoLibraryMethods.requestAuthorization`);
    /// every other call on it fails with `unauthenticated`, so a missing token shows at the
    /// first library call, not here. A server holds only a few such connections at once
    /// (photolibd: 32); beyond them it refuses the connection (GOAWAY `RESOURCE_EXHAUSTED`).
    public static func connect(to server: String, token: String, clientName: String = "PhotoLibClient/0.1", configuration: ClientConfiguration = ClientConfiguration()) async throws -> PhotoLibrary {
        let endpoint: Endpoint
        do {
            endpoint = try Endpoint(parsing: server)
        } catch {
            throw PhotoLibError(.invalidArgument, error.description)
        }
        let connection = try await ClientConnection.connect(to: endpoint, token: token, clientName: clientName, configuration: configuration)
        return try PhotoLibrary.make(handshaken: connection)
    }

    /// Connects over an already-connected stream socket `fd` (the library owns it from now
    /// on): one end of `SocketPair.make()` whose other end a `PhotoLibServer` serves in the
    /// same process, or a descriptor inherited from a supervisor. Otherwise as
    /// ``connect(to:token:clientName:configuration:)``.
    public static func connect(connectedSocket fd: Int32, token: String, clientName: String = "PhotoLibClient/0.1", configuration: ClientConfiguration = ClientConfiguration()) async throws -> PhotoLibrary {
        let connection = try await ClientConnection.handshake(fd: fd, endpoint: nil, token: token, clientName: clientName, configuration: configuration)
        return try PhotoLibrary.make(handshaken: connection)
    }

    /// The library of a connection whose handshake finished.
    private static func make(handshaken connection: ClientConnection) throws -> PhotoLibrary {
        guard let welcome = connection.queue.sync(execute: { connection.welcome }) else {
            throw PhotoLibError(.internalError, "handshake finished without WELCOME")
        }
        return PhotoLibrary(connection: connection, welcome: welcome)
    }

    /// Closes the connection; calls still running fail with `cancelled`.
    public func close() {
        connection.close()
    }

    /// Counts and identity of the library.
    public func libraryInfo() async throws -> LibraryInfo {
        let info = try await connection.unary(PhotoLibraryMethods.getLibraryInfo, Wire.Empty())
        return LibraryInfo(
            libraryIdentifier: info.libraryIdentifier, serverName: info.serverName, assetCount: Int(clamping: info.assetCount),
            albumCount: Int(clamping: info.albumCount), currentChangeToken: info.currentChangeToken,
            budgets: info.budgets.map {
                ResourceBudget(
                    name: $0.name, bytesHeld: Int(clamping: $0.bytesHeld), bytesLimit: Int(clamping: $0.bytesLimit),
                    itemsHeld: Int(clamping: $0.itemsHeld), itemsLimit: Int(clamping: $0.itemsLimit))
            })
    }

    /// `PHAsset.fetchAssets(with:)`: every asset matching `options`, as a server-side snapshot.
    public func fetchAssets(with options: FetchOptions = FetchOptions()) async throws -> FetchResult<Asset> {
        try await fetchAssets(Wire.FetchOptions(options))
    }

    /// `PHAsset.fetchAssets(in:options:)`: the assets of an album or smart album.
    public func fetchAssets(in collectionIdentifier: String, options: FetchOptions = FetchOptions()) async throws -> FetchResult<Asset> {
        try await fetchAssets(Wire.FetchOptions(options, collectionIdentifier: collectionIdentifier))
    }

    /// `PHAsset.fetchAssets(withLocalIdentifiers:options:)`.
    public func fetchAssets(withLocalIdentifiers identifiers: [String], options: FetchOptions = FetchOptions()) async throws -> FetchResult<Asset> {
        try await fetchAssets(Wire.FetchOptions(options, localIdentifiers: identifiers))
    }

    /// `PHAsset.fetchAssets(with:options:)` for one media type.
    public func fetchAssets(with mediaType: MediaType, options: FetchOptions = FetchOptions()) async throws -> FetchResult<Asset> {
        try await fetchAssets(Wire.FetchOptions(options, mediaTypes: [mediaType]))
    }

    /// `PHAssetCollection.fetchAssetCollections(with:subtype:options:)`; `nil` type or subtype means any.
    public func fetchAssetCollections(with type: AssetCollectionType? = nil, subtype: AssetCollectionSubtype? = nil) async throws -> FetchResult<AssetCollection> {
        let snapshot = try await connection.unary(
            PhotoLibraryMethods.fetchAssetCollections,
            Wire.FetchAssetCollectionsRequest(
                type: type.map(Wire.AssetCollectionType.init) ?? .any, subtype: subtype.map(Wire.AssetCollectionSubtype.init) ?? .any,
                prefetchCount: UInt32(FetchResult<AssetCollection>.pageSize)))
        return try FetchResult(snapshot: snapshot, connection: connection)
    }

    /// `PHAssetCollection.fetchAssetCollections(withLocalIdentifiers:options:)`.
    public func fetchAssetCollections(withLocalIdentifiers identifiers: [String]) async throws -> FetchResult<AssetCollection> {
        let snapshot = try await connection.unary(
            PhotoLibraryMethods.fetchAssetCollections,
            Wire.FetchAssetCollectionsRequest(localIdentifiers: identifiers, prefetchCount: UInt32(FetchResult<AssetCollection>.pageSize)))
        return try FetchResult(snapshot: snapshot, connection: connection)
    }

    /// `PHAssetCollection.fetchAssetCollectionsContaining(_:with:options:)`: the user albums holding an asset.
    public func fetchAssetCollectionsContaining(_ assetIdentifier: String) async throws -> FetchResult<AssetCollection> {
        let snapshot = try await connection.unary(
            PhotoLibraryMethods.fetchAssetCollections,
            Wire.FetchAssetCollectionsRequest(containingAssetIdentifier: assetIdentifier, prefetchCount: UInt32(FetchResult<AssetCollection>.pageSize)))
        return try FetchResult(snapshot: snapshot, connection: connection)
    }

    /// `PHAssetCollection.fetchCollections(in:options:)` for albums: the albums directly in
    /// `folder` (a `CollectionList`'s identifier), as a snapshot. A folder holds albums and
    /// folders; its folders are ``fetchCollectionLists(in:)``. Throws `notFound` for an
    /// unknown folder.
    ///
    /// ```swift
    /// let albums = try await library.fetchAssetCollections(in: folder.localIdentifier).allObjects()
    /// let subfolders = try await library.fetchCollectionLists(in: folder.localIdentifier).allObjects()
    /// ```
    public func fetchAssetCollections(in folder: String) async throws -> FetchResult<AssetCollection> {
        let snapshot = try await connection.unary(
            PhotoLibraryMethods.fetchAssetCollections,
            Wire.FetchAssetCollectionsRequest(parentFolderIdentifier: folder, prefetchCount: UInt32(FetchResult<AssetCollection>.pageSize)))
        return try FetchResult(snapshot: snapshot, connection: connection)
    }

    /// `PHCollectionList.fetchCollectionLists`: folders, optionally only the children of `parent`.
    ///
    /// With `parent`, only the folders in it: the albums in it are
    /// ``fetchAssetCollections(in:)``. Throws `notFound` for an unknown `parent`.
    public func fetchCollectionLists(in parent: String? = nil) async throws -> FetchResult<CollectionList> {
        let snapshot = try await connection.unary(
            PhotoLibraryMethods.fetchCollectionLists,
            Wire.FetchCollectionListsRequest(parentFolderIdentifier: parent ?? "", prefetchCount: UInt32(FetchResult<CollectionList>.pageSize)))
        return try FetchResult(snapshot: snapshot, connection: connection)
    }

    private func fetchAssets(_ options: Wire.FetchOptions) async throws -> FetchResult<Asset> {
        let snapshot = try await connection.unary(
            PhotoLibraryMethods.fetchAssets, Wire.FetchAssetsRequest(options: options, prefetchCount: UInt32(FetchResult<Asset>.pageSize)))
        return try FetchResult(snapshot: snapshot, connection: connection)
    }
}

/// Counts and identity of a library.
public struct LibraryInfo: Sendable, Hashable {
    /// The library's identifier.
    public var libraryIdentifier: String
    /// The server's name and version.
    public var serverName: String
    /// Assets (not in the trash).
    public var assetCount: Int
    /// User albums.
    public var albumCount: Int
    /// The library's current persistent-change token.
    public var currentChangeToken: String
    /// What each of the server's bounded resources holds beside its limit (the owner only;
    /// empty for other clients).
    public var budgets: [ResourceBudget] = []
}

/// One bounded resource of the server: what it holds now beside its limit.
public struct ResourceBudget: Sendable, Hashable, Codable {
    /// Its name: `memory`, `connections`, `snapshots`, `live-results`, `image-cache`,
    /// `disk-reserve`; servers may add others.
    public var name: String
    /// Bytes held now (0 when counted in items only).
    public var bytesHeld: Int
    /// The byte limit (0 when counted in items only).
    public var bytesLimit: Int
    /// Items held now (0 when counted in bytes only).
    public var itemsHeld: Int
    /// The item limit (0 when counted in bytes only).
    public var itemsLimit: Int
}
