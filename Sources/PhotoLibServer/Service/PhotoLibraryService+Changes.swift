import Foundation
import PhotoLibCore
import PhotoLibImaging
import PhotoLibStore
import PhotoLibWire

extension PhotoLibraryService {
    /// Registers uploads and `PerformChanges`.
    func registerChangeRoutes(in router: inout RPCRouter) {
        router.register(PhotoLibraryMethods.uploadAsset) { [self] call in try await uploadAsset(call) }
        router.register(PhotoLibraryMethods.performChanges) { [self] call in try await performChanges(call) }
    }

    /// Client-streaming: a header, then data chunks adding up to exactly the announced size.
    ///
    /// Chunks are written to a spool file in the library as they arrive (memory per upload
    /// is one chunk, however slow the client); a first chunk that is not a JPEG is refused at
    /// once. The complete file is then checked (a photo decoded, a video's header and
    /// poster frame read where it lies) on the validation pool, with the
    /// call's deadline and cancellation and the server's decode time limit.
    func uploadAsset(_ call: ServerCall<Wire.UploadChunk, Wire.UploadResult>) async throws {
        guard case .header(let header)? = try await call.nextRequest()?.part else {
            throw PhotoLibError(.invalidArgument, "UploadAsset must start with an UploadHeader")
        }
        let filename = header.originalFilename, type = header.uniformTypeIdentifier
        guard type.isEmpty || OriginalFileType(uniformTypeIdentifier: type) != nil else {
            let known = OriginalFileType.allCases.map(\.uniformTypeIdentifier).joined(separator: ", ")
            throw PhotoLibError(.invalidArgument, "uploads of type '\(type)' are not supported; send one of \(known), or none (the server reads the type from the bytes)")
        }
        guard filename.utf8.count <= ImportMetadata.maximumFilenameLength, !filename.contains("/") else {
            throw PhotoLibError(.invalidArgument, "the original filename must be a plain name of at most \(ImportMetadata.maximumFilenameLength) bytes")
        }
        // A photo or movie without a date of its own is dated by its file's modification time
        // when the client sent it (as `photolibd import` does), else by this upload.
        let fallbackDate = header.fileModificationDate.map { Wire.date(milliseconds: $0.unixMs) } ?? Date()
        // Checked here, where it can be named: refused later it would read as the photo's
        // creation date, which the client did not send.
        let fallbackMicroseconds = PredicateDate.microseconds(fallbackDate)
        guard fallbackMicroseconds >= PredicateDate.minimum, fallbackMicroseconds <= PredicateDate.maximum else {
            throw PhotoLibError(.invalidArgument, "UploadHeader.file_modification_date \(header.fileModificationDate?.unixMs ?? 0) ms is outside the years 1…9999")
        }
        let library = self.library
        guard header.size <= UInt64(Int.max) else {
            // Named as sent (clamping it would report another number than the client's).
            throw PhotoLibError(.resourceExhausted, "an upload of \(header.size) bytes is larger than any this server takes (\(library.importLimits.videoBytes >> 20) MiB for a video)")
        }
        let size = Int(header.size)
        let spool = try await libraryIO.run { () throws(PhotoLibError) in try library.beginUpload(size: size) }
        defer { spool.discard() }
        while let chunk = try await call.nextRequest() {
            // A member this server does not know (a newer client) is skipped.
            guard let part = chunk.part else { continue }
            guard case .data(let bytes) = part else {
                throw PhotoLibError(.invalidArgument, "a second UploadHeader in one upload")
            }
            try await libraryIO.run { () throws(PhotoLibError) in try spool.append(bytes) }
        }
        let received = spool.receivedSize
        guard received == size else {
            throw PhotoLibError(.invalidArgument, "the upload ended after \(received) of the \(size) bytes its header announced")
        }
        let control = RenderControl()
        let metadata = try await validator.run(control: control) { () throws -> ImportMetadata in
            try PhotoIntake.metadata(forFileAt: spool.absolutePath, filename: filename, fallbackDate: fallbackDate, control: control)
        }
        var staged = try await libraryIO.run { () throws(PhotoLibError) in try library.stageUpload(spool, metadata: metadata) }
        // A client that may not read does not learn which assets exist; a limited one only
        // of those it can see.
        if let identifier = call.session.clientIdentifier, let existing = staged.existingAssetIdentifier {
            let visible = clients.client(identifier)?.canRead == true
                ? try await libraryIO.run { [view = view(call.session)] () throws(PhotoLibError) in try view.visibleIdentifiers(among: [existing]) }
                : []
            if !visible.contains(existing) { staged.existingAssetIdentifier = nil }
        }
        try await call.send(Wire.UploadResult(staged))
    }

    /// The longest a client's changes wait for the owner's confirmation (seconds); the call's
    /// own deadline ends the wait earlier.
    static let maxConfirmationWait: Double = 300

    /// One atomic batch.
    func performChanges(_ call: ServerCall<Wire.PerformChangesRequest, Wire.PerformChangesResponse>) async throws {
        let asked = try await call.singleRequest().domain()
        guard !asked.isEmpty else {
            throw PhotoLibError(.invalidArgument, "PerformChanges needs at least one request")
        }
        // An add-only client may only create assets (from its uploads), and names or changes
        // none that was there before (`PhotoLibrary.addingOnly()`).
        let addsOnly = call.session.clientIdentifier.map { clients.client($0)?.canRead != true } ?? false
        if let identifier = call.session.clientIdentifier, addsOnly {
            for (index, request) in asked.enumerated() {
                guard case .createAsset = request else {
                    clients.auditRefusal(client: identifier, detail: "PerformChanges: \(request.name) with add-only access")
                    throw PhotoLibError(
                        .permissionDenied, "request \(index) (\(request.name)): an add-only client may only create assets; nothing was applied",
                        reason: .notAuthorized, failedRequestIndex: index)
                }
            }
        }
        // A client whose edits need confirmation waits for the owner's answer first.
        if let identifier = call.session.clientIdentifier, let client = clients.client(identifier), client.confirmsEdits {
            let summary = "PerformChanges: \(asked.count) request\(asked.count == 1 ? "" : "s") (\(Set(asked.map(\.name)).sorted().joined(separator: ", ")))"
            let answer = try await editConfirmations.ask(client: identifier, clientName: client.name, summary: summary, timeout: Self.maxConfirmationWait)
            try Task.checkCancellation()
            guard let answer else {
                throw PhotoLibError(.deadlineExceeded, "the library's owner did not confirm these changes within \(Int(Self.maxConfirmationWait)) s; nothing was applied")
            }
            guard answer else {
                throw PhotoLibError(.permissionDenied, "the library's owner declined these changes; nothing was applied", reason: .notAuthorized)
            }
        }
        let library = addsOnly ? view(call.session).addingOnly() : view(call.session)
        let requests = try await preparingContentEdits(asked, in: library)
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
