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
        let records = try library.resources(forAsset: request.assetIdentifier)
        try await call.send(Wire.AssetResourcesResponse(resources: records.map { Wire.AssetResource($0.resource) }))
    }

    /// `requestData(for:options:)`: the resource's bytes from `offset` (for `length` bytes,
    /// or to the end), in chunks of at most 64 KiB, each sent as flow control allows.
    func requestResourceData(_ call: ServerCall<Wire.ResourceDataRequest, Wire.ResourceDataChunk>) async throws {
        let wire = try await call.singleRequest()
        let request = (assetIdentifier: wire.assetIdentifier, type: try wire.type.domain(field: "ResourceDataRequest.type"))
        let records = try library.resources(forAsset: request.assetIdentifier)
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
        guard let handle = FileHandle(forReadingAtPath: record.path) else {
            throw PhotoLibError(.dataLoss, "the \(request.type.name) file of \(request.assetIdentifier) is missing from the library; restore it from a backup")
        }
        defer { try? handle.close() }
        do {
            let actual = try handle.seekToEnd()
            guard actual == UInt64(total) else {
                throw PhotoLibError(.dataLoss, "the \(request.type.name) file of \(request.assetIdentifier) is \(actual) bytes, not the recorded \(total); restore it from a backup")
            }
            try handle.seek(toOffset: UInt64(start))
        } catch let error as PhotoLibError {
            throw error
        } catch {
            throw PhotoLibError(.dataLoss, "cannot read the \(request.type.name) file of \(request.assetIdentifier): \(error.localizedDescription)")
        }
        var offset = start
        if offset == end {
            try await call.send(Wire.ResourceDataChunk(offset: UInt64(offset), totalSize: UInt64(total)))
            return
        }
        while offset < end {
            try Task.checkCancellation()
            let count = min(WireLimits.chunkSize, end - offset)
            let data: Data
            do {
                guard let read = try handle.read(upToCount: count), read.count == count else {
                    throw PhotoLibError(.dataLoss, "the \(request.type.name) file of \(request.assetIdentifier) ended early at byte \(offset) of \(total)")
                }
                data = read
            } catch let error as PhotoLibError {
                throw error
            } catch {
                throw PhotoLibError(.dataLoss, "cannot read the \(request.type.name) file of \(request.assetIdentifier): \(error.localizedDescription)")
            }
            try await call.send(Wire.ResourceDataChunk(offset: UInt64(offset), data: [UInt8](data), totalSize: UInt64(total)))
            offset += count
        }
    }
}
