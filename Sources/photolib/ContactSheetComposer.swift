import PhotoLibCore
import PhotoLibImaging

/// Composes thumbnails into one picture on the client (for `photolib contact-sheet`).
enum ContactSheetComposer {
    /// A grid of `thumbnails` (JPEG bytes), `columns` per row, each fitted into a
    /// `cell` × `cell` square; returns the JPEG and its size. Throws `invalidArgument` for
    /// bad dimensions and `dataLoss` when a thumbnail cannot be decoded.
    static func compose(_ thumbnails: [[UInt8]], columns: Int, cell: Int) throws -> (jpeg: [UInt8], width: Int, height: Int) {
        do throws(ImagingError) {
            let sheet = try ContactSheet.compose(thumbnails, columns: columns, cell: cell)
            return (sheet.jpeg, sheet.width, sheet.height)
        } catch {
            throw PhotoLibError(error.code == .invalidArgument ? .invalidArgument : .dataLoss, "contact sheet: \(error.message)")
        }
    }
}
