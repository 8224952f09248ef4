/// Where a call's responses come from when something other than its handler task produces
/// them (the change feed's subscribers): the connection pulls them on its queue, one at a
/// time as the call's flow-control credit allows, after being told that some wait.
///
/// Pulling instead of a handler task sending each message means no task wakes up per
/// message, and a producer that reaches many calls of one connection at once (a change
/// fanned out to every subscriber) has them written in one turn of the connection's queue.
protocol ResponseSource: AnyObject, Sendable {
    /// The next encoded response message, or `nil` when none waits. Called on the
    /// connection's queue; must not block.
    func nextResponse() -> [UInt8]?
}

/// Tells a connection that the ``ResponseSource`` of one of its streams has messages
/// (``UntypedServerCall/pull(from:)`` makes it). One object per stream, so that a producer
/// holding many of them copies references to objects of its own, never the connection's.
///
/// A producer that reaches many streams of one connection at once gives their wakes
/// together (``wakeAll(_:)``): the connection is looked up once and told once, after the
/// producer is done with those streams, so its queue pulls them while the producer goes on
/// with the next connection instead of contending with it stream by stream.
final class ResponseSourceWake: Sendable {
    private weak let connection: ServerConnection?
    /// The connection's id (``ConnectionSession/connectionID``): wakes are grouped by it.
    let connectionID: UInt64
    let stream: UInt32

    init(connection: ServerConnection, stream: UInt32) {
        self.connection = connection
        self.connectionID = connection.id
        self.stream = stream
    }

    /// Tells the connection (if it is still there) that this stream's source has messages.
    func callAsFunction() {
        connection?.sourcesReady(streams: CollectionOfOne(stream))
    }

    /// Tells each connection named in `wakes` once about all its streams among them.
    static func wakeAll(_ wakes: [ResponseSourceWake]) {
        var start = 0
        while start < wakes.count {
            var end = start + 1
            while end < wakes.count, wakes[end].connectionID == wakes[start].connectionID { end += 1 }
            wakes[start].connection?.sourcesReady(streams: wakes[start..<end].lazy.map(\.stream))
            start = end
        }
    }
}
