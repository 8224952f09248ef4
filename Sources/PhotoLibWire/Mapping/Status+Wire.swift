import PhotoLibCore

// PhotoLibError ⇄ `Status` (transport.proto): the STATUS frame and GOAWAY's reason.

extension Wire.Status {
    /// The OK status.
    public static let ok = Wire.Status(code: .ok)

    /// The status carrying `error`. A `PERMISSION_DENIED` always carries a reason
    /// (docs/PROTOCOL.md 8.3): `NOT_AUTHORIZED` when the error names none, so no refusal
    /// reaches the wire without it, wherever it was raised.
    public init(_ error: PhotoLibError) {
        let reason = error.code == .permissionDenied && error.reason == .unspecified ? ErrorReason.notAuthorized : error.reason
        self.init(
            code: .init(error.code), message: error.message, reason: .init(reason),
            failedRequestIndexPlusOne: error.failedRequestIndex.map { UInt32(clamping: $0 + 1) } ?? 0)
    }

    /// Whether the code is OK.
    public var isOK: Bool { code == .ok }

    /// The error this status stands for (`nil` for OK); unknown codes read as `UNKNOWN`.
    public var error: PhotoLibError? {
        if code == .ok { return nil }
        return PhotoLibError(
            StatusCode(rawValue: Int(code.rawValue)) ?? .unknown, message,
            reason: ErrorReason(rawValue: Int(reason.rawValue)) ?? .unspecified,
            failedRequestIndex: failedRequestIndexPlusOne > 0 ? Int(failedRequestIndexPlusOne) - 1 : nil)
    }
}
