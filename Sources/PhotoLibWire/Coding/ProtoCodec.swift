internal import CPhotoLibProto
internal import CProtobufC
import Foundation
import PhotoLibCore

/// Runs protobuf-c's generated pack / unpack functions and the wire-level text check.
///
/// Related protobuf-c documentation: protobuf-c.h, `protobuf_c_message_unpack()`,
/// `protobuf_c_message_pack()`, `protobuf_c_message_free_unpacked()`.
enum ProtoCodec {
    /// Unpacks `bytes` with a generated `…__unpack`, checks all text on the wire bytes, reads
    /// the C struct with `read`, and frees it.
    static func decode<C, T>(
        _ bytes: [UInt8], _ name: String,
        _ unpack: (UnsafeMutablePointer<ProtobufCAllocator>?, Int, UnsafePointer<UInt8>?) -> UnsafeMutablePointer<C>?,
        _ free: (UnsafeMutablePointer<C>?, UnsafeMutablePointer<ProtobufCAllocator>?) -> Void,
        _ read: (UnsafeMutablePointer<C>) -> T
    ) throws(PhotoLibError) -> T {
        var storage = bytes
        if storage.isEmpty { storage = [0] }  // a valid address for an empty message
        let count = bytes.count
        let message: UnsafeMutablePointer<C>? = storage.withUnsafeBufferPointer { unpack(nil, count, $0.baseAddress) }
        guard let message else {
            throw PhotoLibError(.invalidArgument, "malformed \(name) message (\(count) bytes): not valid protobuf for photolib.v1.\(name)")
        }
        defer { free(message, nil) }
        var error = [CChar](repeating: 0, count: 256)
        let descriptor = CPhotoLibProto_descriptor_of(message)
        let status = storage.withUnsafeBufferPointer { CPhotoLibProto_check_text(descriptor, $0.baseAddress, count, &error, error.count) }
        guard status == 0 else {
            let text = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw PhotoLibError(.invalidArgument, text, reason: .invalidText)
        }
        return read(message)
    }

    /// Packs a C message struct with its generated `…__get_packed_size` and `…__pack`.
    static func pack<C>(
        _ message: inout C,
        _ size: (UnsafePointer<C>?) -> Int,
        _ pack: (UnsafePointer<C>?, UnsafeMutablePointer<UInt8>?) -> Int
    ) -> [UInt8] {
        withUnsafePointer(to: &message) { pointer in
            let count = size(pointer)
            guard count > 0 else { return [] }
            return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                initialized = pack(pointer, buffer.baseAddress)
            }
        }
    }

    /// A Swift string from a protobuf-c string field (already checked to be UTF-8 without NUL).
    static func string(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer)
    }

    /// Swift strings from a repeated string field.
    static func strings(_ count: Int, _ pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> [String] {
        guard let pointer, count > 0 else { return [] }
        return (0..<count).map { string(pointer[$0]) }
    }

    /// Values from a repeated scalar field.
    static func array<T>(_ count: Int, _ pointer: UnsafeMutablePointer<T>?) -> [T] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }

    /// Values read from a repeated message field (NULL elements, which protobuf-c never makes, are skipped).
    static func messages<C, T>(_ count: Int, _ pointer: UnsafeMutablePointer<UnsafeMutablePointer<C>?>?, _ read: (UnsafeMutablePointer<C>) -> T) -> [T] {
        guard let pointer, count > 0 else { return [] }
        return UnsafeBufferPointer(start: pointer, count: count).compactMap { $0.map(read) }
    }

    /// Bytes from a `bytes` field.
    static func bytes(_ data: ProtobufCBinaryData) -> [UInt8] {
        guard let pointer = data.data, data.len > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: data.len))
    }
}

/// Owns the C memory a message struct points to while it is packed.
final class ProtoArena {
    private var blocks: [UnsafeMutableRawPointer] = []

    init() {}

    deinit {
        for block in blocks { free(block) }
    }

    /// A NUL-terminated copy of `text`.
    func string(_ text: String) -> UnsafeMutablePointer<CChar> {
        let utf8 = Array(text.utf8)
        let raw = malloc(utf8.count + 1)!
        blocks.append(raw)
        let pointer = raw.bindMemory(to: CChar.self, capacity: utf8.count + 1)
        utf8.withUnsafeBufferPointer { source in
            for i in 0..<utf8.count { pointer[i] = CChar(bitPattern: source[i]) }
        }
        pointer[utf8.count] = 0
        return pointer
    }

    /// A C array of NUL-terminated copies.
    func strings(_ texts: [String]) -> (Int, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) {
        guard !texts.isEmpty else { return (0, nil) }
        let array = allocate(UnsafeMutablePointer<CChar>?.self, count: texts.count)
        for (index, text) in texts.enumerated() { array[index] = string(text) }
        return (texts.count, array)
    }

    /// A copy of `values` as a C array.
    func array<T>(_ values: [T]) -> (Int, UnsafeMutablePointer<T>?) {
        guard !values.isEmpty else { return (0, nil) }
        let array = allocate(T.self, count: values.count)
        for (index, value) in values.enumerated() { (array + index).initialize(to: value) }
        return (values.count, array)
    }

    /// A copy of `value` in C memory.
    func object<T>(_ value: T) -> UnsafeMutablePointer<T> {
        let pointer = allocate(T.self, count: 1)
        pointer.initialize(to: value)
        return pointer
    }

    /// A C array of pointers to copies of `values` (a repeated message field).
    func objects<T>(_ values: [T]) -> (Int, UnsafeMutablePointer<UnsafeMutablePointer<T>?>?) {
        guard !values.isEmpty else { return (0, nil) }
        let array = allocate(UnsafeMutablePointer<T>?.self, count: values.count)
        for (index, value) in values.enumerated() { array[index] = object(value) }
        return (values.count, array)
    }

    /// A `bytes` field holding a copy of `data`.
    func bytes(_ data: some Collection<UInt8>) -> ProtobufCBinaryData {
        guard !data.isEmpty else { return ProtobufCBinaryData(len: 0, data: nil) }
        let pointer = allocate(UInt8.self, count: data.count)
        _ = UnsafeMutableBufferPointer(start: pointer, count: data.count).initialize(from: data)
        return ProtobufCBinaryData(len: data.count, data: pointer)
    }

    private func allocate<T>(_ type: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        let raw = malloc(max(1, MemoryLayout<T>.stride * count))!
        blocks.append(raw)
        return raw.bindMemory(to: T.self, capacity: count)
    }
}
