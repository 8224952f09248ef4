import PhotoLibCore

// PhotoLibError ⇄ `Status` (transport.proto): the STATUS frame and GOAWAY's reason.

extension Wire.Status {
    /// The OK status.
    public static let ok = Wire.Status(code: .ok)

    /// The status carrying `error`.
    public init(_ error: PhotoLibError) {
        self.init(
            code: .init(error.code), message: error.message, reason: .init(error.reason),
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
