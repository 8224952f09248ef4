import Dispatch
import PhotoLibCore
import PhotoLibWire

/// One call's state on the client side. Confined to the connection's queue.
final class ClientStream {
    let id: UInt32
    let method: MethodDescriptor
    let responses: AsyncThrowingStream<[UInt8], any Error>.Continuation
    var sendWindow: FlowWindow
    var receiveWindow: FlowWindow
    var pending: [(payload: [UInt8], endStream: Bool, continuation: CheckedContinuation<Void, any Error>)] = []
    var deadline: DispatchWorkItem?

    init(id: UInt32, method: MethodDescriptor, responses: AsyncThrowingStream<[UInt8], any Error>.Continuation, sendWindow: Int, receiveWindow: Int) {
        self.id = id
        self.method = method
        self.responses = responses
        self.sendWindow = FlowWindow(initial: sendWindow)
        self.receiveWindow = FlowWindow(initial: receiveWindow)
    }

    /// Ends the call: fails waiting sends and finishes the response stream.
    func end(_ error: PhotoLibError?) {
        deadline?.cancel()
        deadline = nil
        let waiting = pending
        pending = []
        for entry in waiting { entry.continuation.resume(throwing: error ?? PhotoLibError(.cancelled, "\(method.name) ended")) }
        if let error { responses.finish(throwing: error) } else { responses.finish() }
    }
}
