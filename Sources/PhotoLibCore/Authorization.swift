/// Whether a client may use the library: PhotoKit's `PHAuthorizationStatus`.
public enum AuthorizationStatus: Int, Sendable, Hashable, CaseIterable {
    /// The owner has not decided yet.
    case notDetermined = 0
    /// Access is restricted by policy.
    case restricted = 1
    /// The owner denied access.
    case denied = 2
    /// Full access.
    case authorized = 3
    /// Access to a selection of assets only.
    case limited = 4
}

/// What a client asks to do: PhotoKit's `PHAccessLevel`.
public enum AccessLevel: Int, Sendable, Hashable, CaseIterable {
    /// Only add assets.
    case addOnly = 1
    /// Read and change the library.
    case readWrite = 2
}
