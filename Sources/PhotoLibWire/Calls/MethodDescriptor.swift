/// How many messages each side of a call sends.
public enum CallShape: String, Sendable, Hashable {
    /// One request, one response.
    case unary
    /// One request, a stream of responses.
    case serverStreaming
    /// A stream of requests, one response.
    case clientStreaming
    /// Streams both ways.
    case bidirectional

    /// Whether the client may send more than one request message.
    public var clientStreams: Bool { self == .clientStreaming || self == .bidirectional }
    /// Whether the server may send more than one response message.
    public var serverStreams: Bool { self == .serverStreaming || self == .bidirectional }
}

/// A method of `service PhotoLibrary` (Protos/service.proto): its name and call shape.
public struct MethodDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// The service's full name.
    public static let serviceName = "photolib.v1.PhotoLibrary"

    /// The method's name, e.g. `FetchAssets`.
    public var name: String
    /// Its call shape.
    public var shape: CallShape

    /// Creates a descriptor.
    public init(_ name: String, _ shape: CallShape) {
        self.name = name
        self.shape = shape
    }

    /// The wire name, `/photolib.v1.PhotoLibrary/<name>`.
    public var path: String { "/\(Self.serviceName)/\(name)" }

    /// The wire name.
    public var description: String { path }
}

/// Every method of `service PhotoLibrary`, as listed in Protos/service.proto.
public enum PhotoLibraryMethods {
    /// `GetLibraryInfo`.
    public static let getLibraryInfo = MethodDescriptor("GetLibraryInfo", .unary)
    /// `RequestAuthorization`.
    public static let requestAuthorization = MethodDescriptor("RequestAuthorization", .unary)
    /// `GetAuthorizationStatus`.
    public static let getAuthorizationStatus = MethodDescriptor("GetAuthorizationStatus", .unary)
    /// `ListClients`.
    public static let listClients = MethodDescriptor("ListClients", .unary)
    /// `SetClientAuthorization`.
    public static let setClientAuthorization = MethodDescriptor("SetClientAuthorization", .unary)
    /// `FetchAssets`.
    public static let fetchAssets = MethodDescriptor("FetchAssets", .unary)
    /// `FetchAssetCollections`.
    public static let fetchAssetCollections = MethodDescriptor("FetchAssetCollections", .unary)
    /// `FetchCollectionLists`.
    public static let fetchCollectionLists = MethodDescriptor("FetchCollectionLists", .unary)
    /// `FetchResultObjects`.
    public static let fetchResultObjects = MethodDescriptor("FetchResultObjects", .unary)
    /// `FetchResultIndex`.
    public static let fetchResultIndex = MethodDescriptor("FetchResultIndex", .unary)
    /// `ReleaseFetchResult`.
    public static let releaseFetchResult = MethodDescriptor("ReleaseFetchResult", .unary)
    /// `UploadAsset`.
    public static let uploadAsset = MethodDescriptor("UploadAsset", .clientStreaming)
    /// `PerformChanges`.
    public static let performChanges = MethodDescriptor("PerformChanges", .unary)
    /// `RequestImage`.
    public static let requestImage = MethodDescriptor("RequestImage", .serverStreaming)
    /// `CancelImageRequest`.
    public static let cancelImageRequest = MethodDescriptor("CancelImageRequest", .unary)
    /// `StartCachingImages`.
    public static let startCachingImages = MethodDescriptor("StartCachingImages", .unary)
    /// `StopCachingImages`.
    public static let stopCachingImages = MethodDescriptor("StopCachingImages", .unary)
    /// `StopCachingImagesForAllAssets`.
    public static let stopCachingImagesForAllAssets = MethodDescriptor("StopCachingImagesForAllAssets", .unary)
    /// `GetAssetResources`.
    public static let getAssetResources = MethodDescriptor("GetAssetResources", .unary)
    /// `RequestResourceData`.
    public static let requestResourceData = MethodDescriptor("RequestResourceData", .serverStreaming)
    /// `RequestContentEditingInput`.
    public static let requestContentEditingInput = MethodDescriptor("RequestContentEditingInput", .serverStreaming)
    /// `Subscribe`.
    public static let subscribe = MethodDescriptor("Subscribe", .bidirectional)
    /// `FetchPersistentChanges`.
    public static let fetchPersistentChanges = MethodDescriptor("FetchPersistentChanges", .unary)

    /// All of them, in service.proto's order.
    public static let all: [MethodDescriptor] = [
        getLibraryInfo, requestAuthorization, getAuthorizationStatus, listClients, setClientAuthorization,
        fetchAssets, fetchAssetCollections, fetchCollectionLists, fetchResultObjects, fetchResultIndex,
        releaseFetchResult, uploadAsset, performChanges, requestImage, cancelImageRequest, startCachingImages,
        stopCachingImages, stopCachingImagesForAllAssets, getAssetResources, requestResourceData,
        requestContentEditingInput, subscribe, fetchPersistentChanges,
    ]

    /// The method with wire name `path`, if any.
    public static func method(path: String) -> MethodDescriptor? {
        all.first { $0.path == path }
    }
}
