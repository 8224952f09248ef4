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
    func uploadAsset(_ call: ServerCall<Wire.UploadChunk, Wire.UploadResult>) async throws {
        guard case .header(let header)? = try await call.nextRequest()?.part else {
            throw PhotoLibError(.invalidArgument, "UploadAsset must start with an UploadHeader")
        }
        let filename = header.originalFilename, type = header.uniformTypeIdentifier
        let size = Int(clamping: header.size)
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
        while let chunk = try await call.nextRequest() {
            guard case .data(let bytes)? = chunk.part else {
                throw PhotoLibError(.invalidArgument, chunk.part == nil ? "an UploadChunk carries neither a header nor data" : "a second UploadHeader in one upload")
            }
            guard data.count + bytes.count <= size else {
                throw PhotoLibError(.invalidArgument, "the upload sent more than the \(size) bytes its header announced")
            }
            data.append(contentsOf: bytes)
        }
        guard data.count == size else {
            throw PhotoLibError(.invalidArgument, "the upload ended after \(data.count) of the \(size) bytes its header announced")
        }
        let received = data
        let intake = PhotoIntake(library: library)
        let staged = try await renderer.run { () throws -> Upload in try intake.stage(received, filename: filename) }
        try await call.send(Wire.UploadResult(staged))
    }

    /// One atomic batch.
    func performChanges(_ call: ServerCall<Wire.PerformChangesRequest, Wire.PerformChangesResponse>) async throws {
        let requests = try await preparingContentEdits(try await call.singleRequest().domain())
        guard !requests.isEmpty else {
            throw PhotoLibError(.invalidArgument, "PerformChanges needs at least one request")
        }
        let library = self.library
        let result = try await libraryIO.run { () throws(PhotoLibError) in try library.performChanges(requests, author: "performChanges") }
        for failure in result.fileRemovalFailures {
            logger.warning("purged file not removed", metadata: ["error": "\(failure)"])
        }
        changesCommitted(result)
        try await call.send(Wire.PerformChangesResponse(
            placeholders: result.placeholders.sorted { $0.key < $1.key }.map { Wire.PlaceholderResolution(placeholderID: $0.key, localIdentifier: $0.value) },
            changeToken: String(result.token)))
    }

    /// Hook for every transaction this server commits (the change feed listens here).
    func changesCommitted(_ result: ChangeResult) {
        logger.debug("committed", metadata: ["change.token": "\(result.token)", "objects": "\(result.changes.count)"])
        hub.committed()
    }
}
