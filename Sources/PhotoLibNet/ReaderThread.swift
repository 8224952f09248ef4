#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A detached POSIX thread, for a socket's reader.
enum ReaderThread {
    /// The body a thread runs, boxed to cross `pthread_create`'s `void *`.
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) {
            self.run = run
        }
    }

    /// Starts a detached thread running `body`, with the system's default stack size.
    /// Throws (`pthread_create`'s error) when the system refuses a thread.
    static func start(_ body: @escaping () -> Void) throws(SocketError) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let code = pthread_create(&thread, &attributes, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            body.run()
            return nil
        }, context)
        guard code == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw SocketError(call: "pthread_create", errno: code, context: "reader thread")
        }
    }
}
