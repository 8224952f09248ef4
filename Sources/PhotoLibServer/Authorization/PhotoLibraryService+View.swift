import PhotoLibCore
import PhotoLibStore

extension PhotoLibraryService {
    /// The library as the caller of a call may see it: the whole library for the owner and
    /// authorized clients, the client's selection for a limited one
    /// (``PhotoLibrary/limited(to:)``: every asset read, count, album content, history and
    /// change target is computed as if the library held only the selection). Read from the
    /// client directory at each call, so a new selection applies to the next call. Memory only.
    func view(_ session: ConnectionSession) -> PhotoLibrary {
        guard let limitedTo = limitedTo(session) else { return library }
        return library.limited(to: limitedTo)
    }

    /// The client whose selection `session` is limited to; `nil` for a view of everything.
    func limitedTo(_ session: ConnectionSession) -> String? {
        guard let identifier = session.clientIdentifier, let client = clients.client(identifier), client.isLimited else { return nil }
        return identifier
    }
}
