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
    func getAssetResources(_ call: ServerCall) async throws {
        let request = try await call.singleRequest(AssetResourcesRequest.self)
        let records = try library.resources(forAsset: request.assetIdentifier)
        let resources = try records.map { (record) throws(PhotoLibError) in
            guard let type = ResourceType(rawValue: record.type.rawValue) else {
                throw PhotoLibError(.dataLoss, "asset \(request.assetIdentifier) has a resource of unknown type \(record.type.rawValue)")
            }
            return AssetResourceDescription(
                assetIdentifier: record.assetIdentifier, type: type, originalFilename: record.originalFilename,
                uniformTypeIdentifier: record.uniformTypeIdentifier, size: record.byteSize, sha256: record.sha256)
        }
        try await call.send(AssetResourcesResponse(resources: resources))
    }

    /// `requestData(for:options:)`: the resource's bytes from `offset` (for `length` bytes,
    /// or to the end), in chunks of at most 64 KiB, each sent as flow control allows.
    func requestResourceData(_ call: ServerCall) async throws {
        let request = try await call.singleRequest(ResourceDataRequest.self)
        let records = try library.resources(forAsset: request.assetIdentifier)
        guard let record = records.first(where: { $0.type.rawValue == request.type.rawValue }) else {
            let available = records.compactMap { ResourceType(rawValue: $0.type.rawValue)?.name }.joined(separator: ", ")
            throw PhotoLibError(.notFound, "asset \(request.assetIdentifier) has no \(request.type.name) resource (it has: \(available))")
        }
        let total = record.byteSize
        guard request.offset >= 0, request.offset <= total, request.length >= 0 else {
            throw PhotoLibError(.outOfRange, "offset \(request.offset) is past the end of the \(total)-byte \(request.type.name) resource")
        }
        let end = request.length == 0 ? total : min(total, request.offset + request.length)
        guard let handle = FileHandle(forReadingAtPath: record.path) else {
            throw PhotoLibError(.dataLoss, "the \(request.type.name) file of \(request.assetIdentifier) is missing from the library (\(record.path)); restore it from a backup")
        }
        defer { try? handle.close() }
        do {
            let actual = try handle.seekToEnd()
            guard actual == UInt64(total) else {
                throw PhotoLibError(.dataLoss, "the \(request.type.name) file of \(request.assetIdentifier) is \(actual) bytes, not the recorded \(total); restore it from a backup")
            }
            try handle.seek(toOffset: UInt64(request.offset))
        } catch let error as PhotoLibError {
            throw error
        } catch {
            throw PhotoLibError(.dataLoss, "cannot read \(record.path): \(error.localizedDescription)")
        }
        var offset = request.offset
        if offset == end {
            try await call.send(ResourceDataChunk(offset: offset, data: [], totalSize: total))
            return
        }
        while offset < end {
            try Task.checkCancellation()
            let count = min(WireLimits.chunkSize, end - offset)
            let data: Data
            do {
                guard let read = try handle.read(upToCount: count), read.count == count else {
                    throw PhotoLibError(.dataLoss, "\(record.path) ended early at byte \(offset) of \(total)")
                }
                data = read
            } catch let error as PhotoLibError {
                throw error
            } catch {
                throw PhotoLibError(.dataLoss, "cannot read \(record.path): \(error.localizedDescription)")
            }
            try await call.send(ResourceDataChunk(offset: offset, data: [UInt8](data), totalSize: total))
            offset += count
        }
    }
}
