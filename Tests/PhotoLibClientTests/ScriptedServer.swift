import Foundation
import PhotoLibClient
import PhotoLibNet
import PhotoLibTestSupport
import PhotoLibWire

/// A peer that plays the server by hand over a socket pair: it answers HELLO with WELCOME and
/// then does exactly what a test tells it (stay silent, send a bad frame…), so the real client
/// code can be tested against behaviour a correct server never shows.
final class ScriptedServer: @unchecked Sendable {
    /// The server's end, read and written by the test.
    let raw: RawConnection
    /// The HELLO the client sent.
    private(set) var hello: Wire.Hello?
    private let clientEnd: Int32

    init() throws {
        let (serverEnd, clientEnd) = try SocketPair.make()
        raw = RawConnection(connectedSocket: serverEnd)
        self.clientEnd = clientEnd
    }

    /// Connects a `PhotoLibrary` to this peer, answering its HELLO with a WELCOME.
    func connect(configuration: ClientConfiguration = ClientConfiguration()) async throws -> PhotoLibrary {
        let fd = clientEnd
        let connecting = Task { try await PhotoLibrary.connect(connectedSocket: fd, token: "scripted", configuration: configuration) }
        let hello = try await offPool { [raw] () throws -> Wire.Hello in
            guard case .frame(let frame) = raw.readFrame(timeout: 10), frame.type == .hello else {
                throw RawConnectionError("the client sent no HELLO")
            }
            let hello = try Wire.Hello(decoding: frame.payload)
            raw.send(Frame(.welcome, payload: Wire.Welcome(
                protocolVersion: WireLimits.protocolVersion, serverName: "scripted", libraryIdentifier: "scripted-library",
                isOwner: true).encoded()))
            return hello
        }
        self.hello = hello
        return try await connecting.value
    }

    /// The next frame the client sends that `match`es (PINGs answered, others skipped).
    func next(timeout: TimeInterval = 10, _ match: @escaping @Sendable (Frame) -> Bool) async throws -> Frame {
        try await offPool { [raw] () throws -> Frame in
            let (read, _) = raw.readUntil(timeout: timeout, match)
            guard case .frame(let frame) = read else { throw RawConnectionError("waiting for a frame from the client: \(read)") }
            return frame
        }
    }
}

/// Runs blocking socket reads on a Dispatch thread, off Swift's cooperative pool.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try body() })
        }
    }
}
