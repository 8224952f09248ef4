import Foundation
import PhotoLibCore

/// What a JPEG's headers and EXIF say about it, without decoding pixels.
public struct JPEGInfo: Sendable, Hashable {
    /// Width as stored in the frame header (before EXIF orientation).
    public var storedWidth: Int
    /// Height as stored in the frame header (before EXIF orientation).
    public var storedHeight: Int
    /// EXIF orientation, 1...8 (1 when absent or invalid).
    public var orientation: Int
    /// Upright width: `storedHeight` for orientations 5...8, else `storedWidth`.
    public var pixelWidth: Int
    /// Upright height: `storedWidth` for orientations 5...8, else `storedHeight`.
    public var pixelHeight: Int
    /// Whether the stream is progressive.
    public var isProgressive: Bool
    /// Colour components in the stream: 1 gray, 3 YCbCr/RGB, 4 CMYK/YCCK.
    public var components: Int
    /// EXIF DateTimeOriginal. With OffsetTimeOriginal when present; otherwise the
    /// wall-clock time is interpreted as UTC. `nil` when absent or not a valid date.
    public var creationDate: Date?
    /// EXIF GPS position, when latitude and longitude (and their refs) are all valid.
    public var location: Location?

    /// Creates an info value; `pixelWidth`/`pixelHeight` are derived from the orientation.
    public init(
        storedWidth: Int, storedHeight: Int, orientation: Int, isProgressive: Bool,
        components: Int, creationDate: Date?, location: Location?
    ) {
        self.storedWidth = storedWidth
        self.storedHeight = storedHeight
        self.orientation = orientation
        (self.pixelWidth, self.pixelHeight) = Orientation(exif: orientation).sides(width: storedWidth, height: storedHeight)
        self.isProgressive = isProgressive
        self.components = components
        self.creationDate = creationDate
        self.location = location
    }
}
