import Crypto
import Foundation
import PhotoLibCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An upload on its way in: its bytes go to a private file in the library's `tmp/` as they
/// arrive and are hashed on the way, so an upload holds one chunk of memory whatever its
/// size and however long the client takes. ``PhotoLibrary/stageUpload(_:metadata:now:)-(UploadSpool,_,_)``
/// turns a complete spool into a staged upload without copying it; a spool that is not
/// staged is removed when it is released (and by recovery after a crash: `tmp/` is garbage).
///
/// Blocking (file writes): call it from a thread that may block. One upload's chunks come
/// from one handler in order; the lock only makes the hand-over between threads safe.
public final class UploadSpool: Sendable {
    /// The size the upload announced; more is refused.
    public let expectedSize: Int
    /// The largest photo the library takes: an upload announcing more must be a video.
    let photoLimit: Int
    /// Where the bytes are, relative to the library.
    let relativePath: String
    private let files: FileStore
    /// The disk room promised to the upload; released when it is staged or discarded.
    private let room: DiskPromise

    private struct State {
        var descriptor: Int32
        var received = 0
        var hasher = SHA256()
        var digest: String?
        /// The first bytes, for the signature check.
        var head: [UInt8] = []
        var staged = false
    }

    /// Guards the file descriptor and the running hash (see the type's note).
    private let state: Mutex<State>

    /// How many leading bytes the signature check needs.
    static let signatureLength = OriginalFileType.signatureLength

    init(files: FileStore, expectedSize: Int, photoLimit: Int, room: DiskPromise) throws(PhotoLibError) {
        self.files = files
        self.room = room
        self.expectedSize = expectedSize
        self.photoLimit = photoLimit
        let relativePath = FileStore.temporaryFolder + "/upload-" + UUID().uuidString.lowercased() + ".part"
        self.relativePath = relativePath
        let descriptor = open(files.absolutePath(relativePath), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, FileStore.fileMode)
        guard descriptor >= 0 else { throw FileStore.error(errno, "create a file for an upload in the library's tmp/") }
        _ = fchmod(descriptor, FileStore.fileMode)
        state = Mutex(State(descriptor: descriptor))
    }

    deinit {
        discard()
    }

    /// Bytes written so far.
    public var receivedSize: Int { state.withLock { $0.received } }

    /// Appends `bytes`: refuses more than ``expectedSize`` in all (`invalidArgument`), a
    /// first chunk that is not a type the library stores (`invalidArgument`, as soon as its
    /// first bytes are in), and a photo announced larger than the library's photo limit
    /// (`resourceExhausted`: only a video may be that large, see ``ImportLimits``); a full disk
    /// is `resourceExhausted`.
    public func append(_ bytes: [UInt8]) throws(PhotoLibError) {
        try state.withLock { (state) throws(PhotoLibError) in
            guard state.descriptor >= 0, state.digest == nil else {
                throw PhotoLibError(.failedPrecondition, "this upload is finished already")
            }
            guard state.received + bytes.count <= expectedSize else {
                throw PhotoLibError(.invalidArgument, "the upload sent more than the \(expectedSize) bytes its header announced")
            }
            if state.head.count < Self.signatureLength {
                state.head.append(contentsOf: bytes.prefix(Self.signatureLength - state.head.count))
                let complete = state.head.count == Self.signatureLength || state.received + bytes.count == expectedSize
                try PhotoLibrary.checkSignature(state.head, complete: complete)
                if complete, expectedSize > photoLimit, OriginalFileType.movieType(of: state.head) == nil {
                    throw PhotoLibError(
                        .resourceExhausted,
                        "an upload of \(expectedSize) bytes is larger than the \(photoLimit) bytes (\(photoLimit >> 20) MiB) a photo may have; only a video (MOV, MP4, M4V) may be larger")
                }
            }
            let descriptor = state.descriptor
            let failure = bytes.withUnsafeBytes { FileStore.writeAll(descriptor, $0) }
            guard failure == 0 else { throw FileStore.error(failure, "write an upload to the library's tmp/") }
            state.hasher.update(data: bytes)
            state.received += bytes.count
        }
        // The free space counts these bytes now (outside `state`: the locks never nest).
        room.wrote(bytes.count)
    }

    /// Ends the upload: checks that exactly ``expectedSize`` bytes came, syncs the file and
    /// returns the SHA-256 of the bytes (hex).
    func finish() throws(PhotoLibError) -> String {
        try state.withLock { (state) throws(PhotoLibError) in
            if let digest = state.digest { return digest }
            guard state.received == expectedSize else {
                throw PhotoLibError(.invalidArgument, "the upload ended after \(state.received) of the \(expectedSize) bytes its header announced")
            }
            guard fsync(state.descriptor) == 0 else { throw FileStore.error(errno, "sync an upload in the library's tmp/") }
            let digest = state.hasher.finalize().map { OwnerToken.hexByte($0) }.joined()
            state.digest = digest
            return digest
        }
    }

    /// The absolute path of the spool's file, for reading a complete upload piece by piece
    /// (a video is inspected where it lies, never loaded whole).
    public var absolutePath: String { files.absolutePath(relativePath) }

    /// Reads the whole upload back (to decode it); throws unless it is complete.
    public func contents() throws(PhotoLibError) -> [UInt8] {
        _ = try finish()
        return try files.readWholeFile(relativePath, expectedSize: expectedSize)
    }

    /// Marks the spool as taken over by a staged upload (its file is linked there).
    func markStaged() {
        state.withLock { $0.staged = true }
        room.release()
    }

    /// Closes and removes the file (idempotent).
    public func discard() {
        room.release()
        let descriptor = state.withLock { (state) -> Int32 in
            let descriptor = state.descriptor
            state.descriptor = -1
            return descriptor
        }
        guard descriptor >= 0 else { return }
        close(descriptor)
        _ = unlink(files.absolutePath(relativePath))
    }
}

extension PhotoLibrary {
    /// Starts an upload of `size` bytes: checks the size (an empty upload is
    /// `invalidArgument` "empty file", more than ``ImportLimits/videoBytes`` `resourceExhausted`;
    /// a photo over ``ImportLimits/photoBytes`` is refused once its first bytes say it is not a
    /// video, see ``UploadSpool/append(_:)``) and
    /// that the disk can take it beside the uploads and imports in progress without touching
    /// the library's reserve (`resourceExhausted` "disk full"; the room stays promised to the
    /// upload until it is staged or discarded), then opens the spool the chunks are written to.
    public func beginUpload(size: Int) throws(PhotoLibError) -> UploadSpool {
        guard size > 0 else {
            throw PhotoLibError(.invalidArgument, "the upload is an empty file (its header announces 0 bytes)", reason: .invalidImage)
        }
        let limit = importLimits.videoBytes
        guard size <= limit else {
            throw PhotoLibError(
                .resourceExhausted,
                "an upload of \(size) bytes is larger than the \(limit) bytes (\(limit >> 20) MiB) a video may have (photos: \(importLimits.photoBytes >> 20) MiB)")
        }
        let room = try diskReserve.reserveRoom(for: size)
        return try UploadSpool(files: files, expectedSize: size, photoLimit: importLimits.photoBytes, room: room)
    }

    /// Throws `invalidArgument` unless `head` starts like a file type the library stores
    /// (``OriginalFileType``: JPEG, HEIC, PNG, WebP, MOV, MP4, M4V); with `complete` false a head shorter than
    /// the signatures is only checked as far as it goes.
    static func checkSignature(_ head: [UInt8], complete: Bool) throws(PhotoLibError) {
        let possible = OriginalFileType.allCases.contains { $0.matches(head, complete: false) }
        let recognised = !complete || OriginalFileType.allCases.contains { $0.matches(head, complete: true) }
        guard possible, recognised else {
            let shown = head.prefix(4).map { OwnerToken.hexByte($0).uppercased() }.joined(separator: " ")
            throw PhotoLibError(
                .invalidArgument, "the upload is not a JPEG, HEIC, PNG, WebP, MOV or MP4 file: it starts with \(shown)", reason: .invalidImage)
        }
    }
}
