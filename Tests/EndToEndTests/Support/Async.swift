import Foundation
import PhotoLibClient

/// Runs `body`, failing with a clear error after `seconds` (the body is then abandoned, never awaited:
/// a hung call cannot hang the test run).
func withTimeout<T: Sendable>(_ seconds: Double, _ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let once = ResumeOnce<T>()
    return try await withCheckedThrowingContinuation { continuation in
        once.set(continuation)
        let work = Task {
            do { once.resume(.success(try await body())) } catch { once.resume(.failure(error)) }
        }
        Task {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            if once.resume(.failure(E2EError("\(what) did not finish within \(seconds) s"))) { work.cancel() }
        }
    }
}

/// Resumes a continuation exactly once.
private final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var pending: Result<T, any Error>?

    func set(_ continuation: CheckedContinuation<T, any Error>) {
        lock.lock()
        if let pending {
            self.pending = nil
            lock.unlock()
            continuation.resume(with: pending)
            return
        }
        self.continuation = continuation
        lock.unlock()
    }

    @discardableResult
    func resume(_ result: Result<T, any Error>) -> Bool {
        lock.lock()
        if let continuation {
            self.continuation = nil
            lock.unlock()
            continuation.resume(with: result)
            return true
        }
        let first = pending == nil
        if first { pending = result }
        lock.unlock()
        return first
    }
}

/// Connects a `PhotoLibClient` to `server` with the owner token (20 s at most).
func connectClient(
    _ server: ServerProcess, token: String? = nil, configuration: ClientConfiguration = ClientConfiguration(), name: String = "e2e-tests"
) async throws -> PhotoLibrary {
    let address = server.address
    let token = token ?? server.token
    return try await withTimeout(20, "PhotoLibrary.connect(\(address))") {
        try await PhotoLibrary.connect(to: address, token: token, clientName: name, configuration: configuration)
    }
}

/// Every asset of the library, through the client (30 s at most).
func fetchAllAssets(_ library: PhotoLibrary) async throws -> [Asset] {
    try await withTimeout(30, "fetchAssets") {
        try await library.fetchAssets().allObjects()
    }
}

/// One final image through the client (60 s at most).
func fetchImage(_ library: PhotoLibrary, _ identifier: String, _ width: Int, _ height: Int, _ mode: ContentMode = .aspectFit) async throws -> DeliveredImage {
    try await withTimeout(60, "image of \(identifier) at \(width)x\(height)") {
        try await library.imageManager.image(
            forAssetIdentifier: identifier, targetSize: PixelSize(width: width, height: height), contentMode: mode,
            options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact))
    }
}
