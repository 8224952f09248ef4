internal import CPhotoLibExif
import Foundation
import PhotoLibCore

/// The EXIF fields PhotoLib uses, read through the CPhotoLibExif shim (libexif).
package struct ExifMetadata: Sendable, Hashable {
    /// 1...8; 1 when absent.
    package var orientation: Int = 1
    /// DateTimeOriginal (+ OffsetTimeOriginal, else UTC).
    package var creationDate: Date?
    /// GPS position.
    package var location: Location?
    /// Whether IFD0 names a camera (Make or Model).
    package var hasCamera = false
    /// The UserComment text, when it is readable and not blank.
    package var userComment: String?
    /// The Apple MakerNote's ContentIdentifier (tag 0x0011), which pairs Live Photos.
    package var contentIdentifier: String?
    /// EXIF CustomRendered (0 normal, 1 custom; Apple: 2/3 HDR, 4 HDR original, 6 panorama,
    /// 7 portrait HDR, 8 portrait), if present.
    package var customRendered: Int?

    /// No EXIF: every field at its default.
    package init() {}

    /// Reads EXIF from JPEG bytes. Malformed or absent EXIF gives the defaults.
    package init(jpeg data: [UInt8]) {
        var info = CPhotoLibExif_Info()
        data.withUnsafeBufferPointer { input in
            CPhotoLibExif_read(input.baseAddress, input.count, &info)
        }
        self.init(info)
    }

    /// Reads a bare EXIF block (TIFF header first, or "Exif\0\0" then the TIFF header), as a
    /// HEIF 'Exif' item, a PNG eXIf chunk or a WebP EXIF chunk holds it. Malformed or absent
    /// EXIF gives the defaults.
    package init<Bytes: ContiguousBytes>(tiff data: Bytes) {
        var info = CPhotoLibExif_Info()
        data.withUnsafeBytes { raw in
            let input = raw.bindMemory(to: UInt8.self)
            CPhotoLibExif_read_tiff(input.baseAddress, input.count, &info)
        }
        self.init(info)
    }

    private init(_ info: CPhotoLibExif_Info) {
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
        hasCamera = info.has_camera != 0
        if info.has_user_comment != 0 {
            userComment = Self.string(from: info.user_comment)
        }
        if info.has_custom_rendered != 0 {
            customRendered = Int(info.custom_rendered)
        }
        if info.has_content_identifier != 0 {
            contentIdentifier = Self.string(from: info.content_identifier)
        }
    }

    /// A NUL-terminated fixed-size C char array (imported as a tuple) as a String.
    private static func string<T>(from tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
