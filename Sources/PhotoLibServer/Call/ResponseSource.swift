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
