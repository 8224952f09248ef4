import Foundation
import Logging
import PhotoLibCore
import PhotoLibNet
import PhotoLibServer
import PhotoLibStore
import PhotoLibTestSupport

/// The real `PhotoLibServer` over a real library (SQLite file and photos in a temporary
/// directory), reached through the in-process transport: each connection is a socket pair
/// whose one end the server serves exactly like an accepted TCP connection. No listener, no
/// port, no process: what the Server and Client test targets drive.
public final class InProcessServer: @unchecked Sendable {
    /// The temporary directory holding the library.
    public let directory: TestDirectory
    /// The library, as the server sees it.
    public let library: PhotoLibrary
    /// The server.
    public let server: PhotoLibServer
    /// The owner token.
    public let token: String
    /// The identifiers of the photos imported at start, in the order given.
    public let assets: [String]

    /// Imports `photos` (paths) into a new library and starts serving it with `configuration`;
    /// `maximumPhotoBytes` lowers the library's photo limit (``ImportLimits/photoBytes``).
    public init(photos: [String] = [], configuration: ServerConfiguration = ServerConfiguration(), maximumPhotoBytes: Int? = nil) throws {
        directory = try TestDirectory()
        do {
            library = try PhotoLibrary.open(
                at: directory.library, importLimits: ImportLimits(photoBytes: maximumPhotoBytes ?? PhotoLibrary.maximumImportBytes))
            let intake = PhotoIntake(library: library)
            var imported: [String] = []
            for path in photos {
                let bytes = try Fixtures.bytes(at: path)
                switch try intake.add(bytes, filename: (path as NSString).lastPathComponent, fallbackDate: Date(timeIntervalSince1970: 1_600_000_000)) {
                case .added(let asset), .alreadyPresent(let asset): imported.append(asset.localIdentifier)
                }
            }
            assets = imported
            token = try library.ownerToken()
            var logger = Logger(label: "photolibd.in-process")
            logger.logLevel = .critical
            server = try PhotoLibServer(library: library, configuration: configuration, logger: logger)
            server.start()
        } catch {
            directory.cleanUp()
            throw error
        }
    }

    /// A new connection: the server serves one end; the other end is returned (owned by the
    /// caller: hand it to `RawConnection(connectedSocket:)` or `PhotoLibrary.connect(connectedSocket:…)`).
    public func connectedSocket() throws -> Int32 {
        let (serverEnd, clientEnd) = try SocketPair.make()
        server.serve(connectedSocket: serverEnd)
        return clientEnd
    }

    /// A raw frame connection, not yet past the handshake.
    public func rawConnection() throws -> RawConnection {
        RawConnection(connectedSocket: try connectedSocket())
    }

    /// Shuts the server down gracefully (GOAWAY, in-flight calls finish) and waits until it
    /// has stopped.
    public func shutDown() async {
        server.beginGracefulShutdown()
        await server.serve()
    }

    /// Shuts down and removes the library.
    public func tearDown() async {
        await shutDown()
        directory.cleanUp()
    }
}
