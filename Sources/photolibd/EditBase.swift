import ArgumentParser
import Foundation
import PhotoLibClient
import PhotoLibImaging
import PhotoLibMedia

extension PhotoLibDaemon {
    /// `photolibd edit-base`: the JPEG an edit of a photo starts from, made offline by the
    /// server's decoders (`photolib filter-preview` runs it for HEIC, PNG and WebP photos: the
    /// client reads JPEG alone).
    struct EditBase: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit-base",
            abstract: "Write the JPEG an edit of a photo starts from (no library needed).",
            discussion: """
                A JPEG is written as it is. A HEIC, PNG or WebP is written as its editing base: decoded \
                at full size, turned upright, alpha over white, encoded as a JPEG at quality \
                \(StillImageRenderer.editingBaseQuality) without chroma subsampling or EXIF: the image \
                the server gives editors for such an original and renders filter recipes on \
                (docs/FILTERS.md). 'photolib filter-preview' runs this for photos that are not JPEG.
                """)

        @Argument(help: "A JPEG, HEIC, PNG or WebP photo.")
        var photo: String

        @Option(name: .shortAndLong, help: "The JPEG to write; - for standard output.")
        var output: String

        func run() throws {
            let data: [UInt8]
            do throws(PhotoLibError) {
                if output != "-" { try FileOutput.check(output) }
                data = try FileInput.readWhole(photo, limit: ImagingLimits.default.maxInputBytes)
            } catch {
                throw Failure.exit("photolibd edit-base: \(error.message)")
            }
            let base: [UInt8]
            do {
                base = try StillImageRenderer.editingBase(data)
            } catch {
                throw Failure.exit("photolibd edit-base: \(photo): \(error.message)")
            }
            if output == "-" {
                FileHandle.standardOutput.write(Data(base))
                return
            }
            do throws(PhotoLibError) {
                try FileOutput.write(base, to: output)
            } catch {
                throw Failure.exit("photolibd edit-base: \(error.message)")
            }
        }
    }
}
