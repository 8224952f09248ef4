import PhotoLibCore
import PhotoLibWire

/// Who a connection is: the library's owner, a registered client, or nobody yet (a
/// connection opened with an empty token, which may only ask for authorization).
public enum ConnectionIdentity: Sendable, Hashable {
    /// The owner token.
    case owner
    /// A client token; the client's identifier.
    case client(String)
    /// No token.
    case unauthenticated
}

/// What each method requires of a connection: the one table the server checks every call
/// against (before the handler runs) and the enforcement-matrix test walks.
public enum MethodAccess: Sendable, Hashable {
    /// Anyone, a connection without a credential included (`RequestAuthorization`).
    case anyone
    /// The owner or any client with a credential, whatever its status (`GetAuthorizationStatus`).
    case anyCredential
    /// The owner only (`ListClients`, `SetClientAuthorization`, `GetAuditLog`, pending requests).
    case owner
    /// Reading the library: the owner, or a client authorized for read-write, or limited
    /// (which sees only its selection: see `PhotoLibraryService.view(_:)`).
    case read
    /// Asking for more assets: a limited client only.
    case limited
    /// Adding to the library: the owner, or a client authorized (or limited) for read-write,
    /// or authorized for add-only.
    case add

    /// What `method` (a wire method name such as `FetchAssets`) requires. A method not in the
    /// table requires the owner (a new method is closed until it is listed).
    public static func required(for method: String) -> MethodAccess {
        table[method] ?? .owner
    }

    /// The table, by method name.
    public static let table: [String: MethodAccess] = [
        "GetLibraryInfo": .read,
        "RequestAuthorization": .anyone,
        "GetAuthorizationStatus": .anyCredential,
        "ListClients": .owner,
        "SetClientAuthorization": .owner,
        "GetAuditLog": .owner,
        "ListPendingRequests": .owner,
        "AnswerPendingRequest": .owner,
        "RequestMoreAssets": .limited,
        "FetchAssets": .read,
        "FetchAssetCollections": .read,
        "FetchCollectionLists": .read,
        "FetchResultObjects": .read,
        "FetchResultIndex": .read,
        "ReleaseFetchResult": .read,
        "UploadAsset": .add,
        // Add-only clients may only create assets (checked per request by the handler).
        "PerformChanges": .add,
        "RequestImage": .read,
        "CancelImageRequest": .read,
        "StartCachingImages": .read,
        "StopCachingImages": .read,
        "StopCachingImagesForAllAssets": .read,
        "GetAssetResources": .read,
        "RequestResourceData": .read,
        "RequestContentEditingInput": .read,
        "Subscribe": .read,
        "FetchPersistentChanges": .read,
    ]

    /// Why a connection that is `identity` (with the current `client` record, `nil` when it
    /// is unknown or revoked) may not call a method requiring this; `nil` when it may.
    func refusal(identity: ConnectionIdentity, client: ClientRecord?, method: String) -> PhotoLibError? {
        switch identity {
        case .owner:
            return nil
        case .unauthenticated:
            guard self == .anyone else {
                return PhotoLibError(
                    .unauthenticated,
                    "\(method) needs a credential: ask for one with RequestAuthorization (photolib auth request), then connect with its token")
            }
            return nil
        case .client(let identifier):
            guard let client, !client.isRevoked else {
                return PhotoLibError(.permissionDenied, "client \(identifier) was revoked by the library's owner; its token opens nothing", reason: .notAuthorized)
            }
            switch self {
            case .anyone, .anyCredential:
                return nil
            case .owner:
                return PhotoLibError(.permissionDenied, "\(method) is for the library's owner only", reason: .notAuthorized)
            case .limited:
                guard client.isLimited else {
                    return PhotoLibError(
                        .failedPrecondition,
                        "\(method) is for a client with limited access, which asks for more assets; this client's read-write access is \(client.readWrite.name)")
                }
                return nil
            case .read:
                guard client.canRead else {
                    return PhotoLibError(.permissionDenied, "\(method) needs read-write access, and this client's read-write access is \(client.readWrite.name)\(client.addOnly == .authorized ? " (it may add photos only)" : "")", reason: .notAuthorized)
                }
                return nil
            case .add:
                guard client.canRead || client.addOnly == .authorized else {
                    return PhotoLibError(.permissionDenied, "\(method) needs add-only or read-write access; this client has neither (read-write \(client.readWrite.name), add-only \(client.addOnly.name))", reason: .notAuthorized)
                }
                return nil
            }
        }
    }
}
