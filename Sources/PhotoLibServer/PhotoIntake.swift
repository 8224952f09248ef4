import Foundation
import PhotoLibCore
import PhotoLibImaging
import PhotoLibStore

/// Turns photo bytes into what the store records: validates the JPEG completely (truncated
/// or damaged data is refused) and reads its upright size, EXIF date and GPS location.
///
/// Used by `photolibd import` and by uploads, so both accept and describe photos the same way.
public enum PhotoIntake {
    /// Validates `bytes` and returns their metadata; the creation date falls back to `fallbackDate`
    /// when the photo has no EXIF `DateTimeOriginal`.
    public static func metadata(for bytes: [UInt8], filename: String, fallbackDate: Date) throws(PhotoLibError) -> ImportMetadata {
        let info: JPEGInfo
        do {
            info = try JPEGInspector.validate(bytes)
        } catch {
            let code: StatusCode = error.code == .tooLarge ? .resourceExhausted : .invalidArgument
            throw PhotoLibError(code, error.message, reason: .invalidImage)
        }
        let location = info.location
        return ImportMetadata(
            originalFilename: filename.isEmpty ? "photo.jpg" : filename, pixelWidth: info.pixelWidth, pixelHeight: info.pixelHeight,
            creationDate: info.creationDate ?? fallbackDate, location: location, orientation: info.orientation)
    }
}
