import Foundation
import PhotoLibCore
import PhotoLibStore
import PhotoLibWire

extension PhotoLibraryService {
    /// Registers `GetAssetResources` and `RequestResourceData`.
    func registerResourceRoutes(in router: inout RPCRouter) {
        router.register(PhotoLibraryMethods.getAssetResources) { [self] call in try await getAssetResources(call) }
        router.register(PhotoLibraryMethods.requestResourceData) { [self] call in try await requestResourceData(call) }
    }

    /// `PHAssetResource.assetResources(for:)`: every file of the asset.
    func getAssetResources(_ call: ServerCall<Wire.AssetResourcesRequest, Wire.AssetResourcesResponse>) async throws {
        let request = try await call.singleRequest()
        let library = view(call.session), asset = request.assetIdentifier
        let records = try await libraryIO.run { () throws(PhotoLibError) in try library.resources(forAsset: asset) }
        try await call.send(Wire.AssetResourcesResponse(resources: records.map { Wire.AssetResource($0.resource) }))
    }

    /// `requestData(for:options:)`: the resource's bytes from `offset` (for `length` bytes,
    /// or to the end), in chunks of at most 64 KiB, each sent as flow control allows. The
    /// store and the file are read on the library I/O pool, one chunk per turn.
    func requestResourceData(_ call: ServerCall<Wire.ResourceDataRequest, Wire.ResourceDataChunk>) async throws {
        let wire = try await call.singleRequest()
        let request = (assetIdentifier: wire.assetIdentifier, type: try wire.type.domain(field: "ResourceDataRequest.type"))
        let library = view(call.session)
        let records = try await libraryIO.run { () throws(PhotoLibError) in try library.resources(forAsset: request.assetIdentifier) }
        guard let record = records.first(where: { $0.type == request.type }) else {
            let available = records.map(\.type.name).joined(separator: ", ")
            throw PhotoLibError(.notFound, "asset \(request.assetIdentifier) has no \(request.type.name) resource (it has: \(available))")
        }
        let total = record.byteSize
        guard wire.offset <= UInt64(total) else {
            throw PhotoLibError(.outOfRange, "offset \(wire.offset) is past the end of the \(total)-byte \(request.type.name) resource")
        }
        let start = Int(wire.offset)
        let end = wire.length == 0 ? total : start + min(total - start, Int(clamping: wire.length))
        if start == end {
            try await call.send(Wire.ResourceDataChunk(offset: UInt64(start), totalSize: UInt64(total)))
            return
        }
        try await streamFile(record, from: start, to: end) { offset, data in
            try await call.send(Wire.ResourceDataChunk(offset: UInt64(offset), data: data, totalSize: UInt64(total)))
        }
    }

    /// Sends bytes `start..<end` of `record`'s file in chunks of at most 64 KiB through
    /// `send(offset, bytes)`, each as flow control allows. The file is opened, checked against
    /// the recorded size and read on the library I/O pool, one chunk per turn, so a slow
    /// client holds one chunk, not the file.
    func streamFile(
        _ record: AssetResourceRecord, from start: Int, to end: Int, send: (Int, [UInt8]) async throws -> Void
    ) async throws {
        let path = record.path, total = record.byteSize
        let what = "the \(record.type.name) file of \(record.assetIdentifier)"
        let handle = try await libraryIO.run { () throws -> FileHandle in
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw LibraryFileError.make(errno: errno, what) }
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            do {
                let actual = try handle.seekToEnd()
                guard actual == UInt64(total) else {
                    throw PhotoLibError(.dataLoss, "\(what) is \(actual) bytes, not the recorded \(total); restore it from a backup")
                }
                try handle.seek(toOffset: UInt64(start))
            } catch let error as PhotoLibError {
                try? handle.close()
                throw error
            } catch {
                try? handle.close()
                throw Self.readError(error, what)
            }
            return handle
        }
        defer { try? handle.close() }
        var offset = start
        while offset < end {
            try Task.checkCancellation()
            let count = min(WireLimits.chunkSize, end - offset), at = offset
            let data = try await libraryIO.run { () throws -> Data in
                do {
                    guard let read = try handle.read(upToCount: count), read.count == count else {
                        throw PhotoLibError(.dataLoss, "\(what) ended early at byte \(at) of \(total)")
                    }
                    return read
                } catch let error as PhotoLibError {
                    throw error
                } catch {
                    throw Self.readError(error, what)
                }
            }
            try await send(offset, [UInt8](data))
            offset += count
        }
    }

    /// A Foundation read error as the client sees it: its errno when it has one, never the
    /// file's path (`localizedDescription` may hold it).
    static func readError(_ error: any Error, _ what: String) -> PhotoLibError {
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return LibraryFileError.make(errno: Int32(error.code), what) }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return LibraryFileError.make(errno: Int32(underlying.code), what)
        }
        return PhotoLibError(.dataLoss, "cannot read \(what) (Foundation error \(error.code))")
    }
}
