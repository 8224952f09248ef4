/// Where an asset was taken: WGS-84 degrees, as in `CLLocation`'s coordinate.
public struct Location: Sendable, Hashable, Codable {
    /// Latitude in degrees, −90…90, positive north.
    public var latitude: Double
    /// Longitude in degrees, −180…180, positive east.
    public var longitude: Double
    /// Altitude in metres above sea level, when known.
    public var altitude: Double?

    /// Creates a location; see ``validated()`` to check the ranges.
    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    /// Returns `self` when the coordinates are finite and in range, else throws `invalidArgument`.
    public func validated() throws(PhotoLibError) -> Location {
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude),
            (-180...180).contains(longitude), altitude?.isFinite ?? true
        else {
            throw PhotoLibError(
                .invalidArgument,
                "location \(latitude),\(longitude) is out of range: latitude must be within −90…90 and longitude within −180…180")
        }
        return self
    }
}
