/// A position read from EXIF GPS tags.
public struct GeoLocation: Sendable, Equatable, Hashable {
    /// Decimal degrees, north positive, -90...90.
    public var latitude: Double
    /// Decimal degrees, east positive, -180...180.
    public var longitude: Double
    /// Metres above sea level (negative below), when the file records it.
    public var altitude: Double?

    /// Creates a location.
    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}
