import Foundation
import PhotoLibCore
import PhotoLibStore
import PhotoLibWire

extension PhotoLibraryService {
    /// Registers uploads and `PerformChanges`.
    func registerChangeRoutes(in router: inout RPCRouter) {
        router.register(PhotoLibraryMethods.uploadAsset) { [self] call in try await uploadAsset(call) }
        router.register(PhotoLibraryMethods.performChanges) { [self] call in try await performChanges(call) }
    }

    /// Client-streaming: a header, then data chunks adding up to exactly the announced size.
    func uploadAsset(_ call: ServerCall) async throws {
        guard case .header(let filename, let size, let type)? = try await call.nextRequest(UploadChunk.self) else {
            throw PhotoLibError(.invalidArgument, "UploadAsset must start with an UploadHeader")
        }
        guard size > 0, size <= PhotoLibrary.maximumImportBytes else {
            throw PhotoLibError(.resourceExhausted, "an upload of \(size) bytes is outside 1…\(PhotoLibrary.maximumImportBytes) bytes")
        }
        guard type.isEmpty || type == "public.jpeg" else {
            throw PhotoLibError(.invalidArgument, "uploads of type '\(type)' are not supported; only public.jpeg")
        }
        guard filename.utf8.count <= ImportMetadata.maximumFilenameLength, !filename.contains("/") else {
            throw PhotoLibError(.invalidArgument, "the original filename must be a plain name of at most \(ImportMetadata.maximumFilenameLength) bytes")
        }
        var data: [UInt8] = []
        data.reserveCapacity(size)
        while let chunk = try await call.nextRequest(UploadChunk.self) {
            guard case .data(let bytes) = chunk else { throw PhotoLibError(.invalidArgument, "a second UploadHeader in one upload") }
            guard data.count + bytes.count <= size else {
                throw PhotoLibError(.invalidArgument, "the upload sent more than the \(size) bytes its header announced")
            }
            data.append(contentsOf: bytes)
        }
        guard data.count == size else {
            throw PhotoLibError(.invalidArgument, "the upload ended after \(data.count) of the \(size) bytes its header announced")
        }
        let received = data
        let library = self.library
        let staged = try await renderer.run { () throws -> StagedUpload in
            let metadata = try PhotoIntake.metadata(for: received, filename: filename, fallbackDate: Date())
            return try library.stageUpload(received, metadata: metadata)
        }
        try await call.send(UploadResult(
            uploadID: staged.uploadID, sha256: staged.sha256, size: staged.size,
            existingAssetIdentifier: staged.existingAssetIdentifier, expiresAt: staged.expiresAt))
    }

    /// One atomic batch.
    func performChanges(_ call: ServerCall) async throws {
        let request = try await call.singleRequest(PerformChangesRequest.self)
        guard !request.requests.isEmpty else {
            throw PhotoLibError(.invalidArgument, "PerformChanges needs at least one request")
        }
        let result = try library.performChanges(request.requests, author: "performChanges")
        for failure in result.fileRemovalFailures {
            logger.warning("purged file not removed", metadata: ["error": "\(failure)"])
        }
        changesCommitted(result)
        try await call.send(PerformChangesResponse(placeholders: result.placeholders, changeToken: String(result.token)))
    }

    /// Hook for every transaction this server commits (the change feed listens here).
    func changesCommitted(_ result: ChangeResult) {
        logger.debug("committed", metadata: ["change.token": "\(result.token)", "objects": "\(result.changes.count)"])
        hub.committed()
    }
}
