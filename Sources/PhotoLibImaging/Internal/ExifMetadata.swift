internal import CPhotoLibExif
import Foundation
import PhotoLibCore

/// The EXIF fields PhotoLib uses, read through the CPhotoLibExif shim (libexif).
struct ExifMetadata: Sendable, Hashable {
    /// 1...8; 1 when absent.
    var orientation: Int = 1
    /// DateTimeOriginal (+ OffsetTimeOriginal, else UTC).
    var creationDate: Date?
    /// GPS position.
    var location: Location?

    /// Reads EXIF from JPEG bytes. Malformed or absent EXIF gives the defaults.
    init(jpeg data: [UInt8]) {
        var info = CPhotoLibExif_Info()
        data.withUnsafeBufferPointer { input in
            CPhotoLibExif_read(input.baseAddress, input.count, &info)
        }
        if info.has_orientation != 0 {
            orientation = Int(info.orientation)
        }
        if info.has_date_time_original != 0 {
            let text = Self.string(from: info.date_time_original)
            let offset =
                info.has_offset_time_original != 0
                ? Self.string(from: info.offset_time_original) : nil
            creationDate = ExifDate.date(dateTime: text, offset: offset)
        }
        if info.has_location != 0 {
            // Out-of-range coordinates (a broken GPS block) are dropped, not stored.
            location = try? Location(
                latitude: info.latitude, longitude: info.longitude,
                altitude: info.has_altitude != 0 ? info.altitude : nil
            ).validated()
        }
    }

    /// A NUL-terminated fixed-size C char array (imported as a tuple) as a String.
    private static func string<T>(from tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
