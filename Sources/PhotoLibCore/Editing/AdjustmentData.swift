/// What an edit did, in a form its editor can read back: PhotoKit's `PHAdjustmentData`.
///
/// The format identifier and version say which editor wrote `data` and in what layout; an
/// app that understands them can re-edit from the original (see ``AdjustmentFormat``).
public struct AdjustmentData: Sendable, Hashable {
    /// The largest `data` accepted: 64 KiB.
    public static let maxDataBytes = 64 * 1024
    /// The largest format identifier or version, in UTF-8 bytes.
    public static let maxFormatLength = 256

    /// Reverse-DNS name of the format, e.g. `org.photolib.filter`.
    public var formatIdentifier: String
    /// Version of the format, e.g. `1`.
    public var formatVersion: String
    /// The recipe, as its editor wrote it.
    public var data: [UInt8]

    /// Adjustment data as given; see ``validated()``.
    public init(formatIdentifier: String, formatVersion: String, data: [UInt8]) {
        self.formatIdentifier = formatIdentifier
        self.formatVersion = formatVersion
        self.data = data
    }

    /// Returns `self` when the identifier and version are non-empty and short and `data` is at
    /// most ``maxDataBytes``; otherwise throws `invalidArgument`.
    public func validated() throws(PhotoLibError) -> AdjustmentData {
        guard !formatIdentifier.isEmpty, formatIdentifier.utf8.count <= Self.maxFormatLength,
            !formatVersion.isEmpty, formatVersion.utf8.count <= Self.maxFormatLength
        else {
            throw PhotoLibError(
                .invalidArgument,
                "adjustment data needs a format identifier and version of 1…\(Self.maxFormatLength) bytes each (got '\(formatIdentifier.prefix(40))' version '\(formatVersion.prefix(40))')")
        }
        guard data.count <= Self.maxDataBytes else {
            throw PhotoLibError(
                .invalidArgument,
                "adjustment data is \(data.count) bytes; at most \(Self.maxDataBytes) (64 KiB) are kept: store the recipe, not an image")
        }
        return self
    }
}

/// A format an app can apply itself: the answer to PhotoKit's `canHandleAdjustmentData`.
///
/// A version ending in `*` is a prefix (`1.*` handles `1.0` and `1.2`); `*` alone handles every
/// version of the identifier.
public struct AdjustmentFormat: Sendable, Hashable {
    /// Reverse-DNS name of the format.
    public var formatIdentifier: String
    /// The version, or a prefix ending in `*`.
    public var formatVersion: String

    /// A format.
    public init(formatIdentifier: String, formatVersion: String) {
        self.formatIdentifier = formatIdentifier
        self.formatVersion = formatVersion
    }

    /// Whether an app handling this format can apply `adjustment`.
    public func handles(_ adjustment: AdjustmentData) -> Bool {
        guard adjustment.formatIdentifier == formatIdentifier else { return false }
        if formatVersion.hasSuffix("*") {
            return adjustment.formatVersion.hasPrefix(formatVersion.dropLast())
        }
        return adjustment.formatVersion == formatVersion
    }
}
