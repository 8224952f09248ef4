package import CPhotoLibJPEG

/// Owns one C pixel buffer (`CPhotoLibJPEG_Image`) and frees it on deinit.
package final class PixelBuffer {
    /// The C image; its pixels belong to this object.
    package var image: CPhotoLibJPEG_Image

    /// Takes ownership of `image`.
    package init(taking image: CPhotoLibJPEG_Image) {
        self.image = image
    }

    deinit {
        CPhotoLibJPEG_image_free(&image)
    }

    /// Width in pixels.
    package var width: Int { Int(image.width) }
    /// Height in pixels.
    package var height: Int { Int(image.height) }
    /// Interleaved components per pixel (1 gray, 3 RGB, 4 CMYK).
    package var components: Int { Int(image.components) }

    /// A new buffer holding a copy of `bytes` (width × height × components, row by row).
    package static func make(
        width: Int, height: Int, components: Int, bytes: [UInt8]
    ) throws(ImagingError) -> PixelBuffer {
        guard bytes.count == width * height * components else {
            throw ImagingError(
                code: .invalidArgument,
                message: "\(bytes.count) bytes given for a \(width)x\(height) image with \(components) components")
        }
        let buffer = try LibJPEG.allocate(width: width, height: height, components: components)
        bytes.withUnsafeBufferPointer { source in
            buffer.image.pixels.update(from: source.baseAddress!, count: source.count)
        }
        return buffer
    }

    /// A copy of the pixels, row by row, no padding.
    package var bytes: [UInt8] {
        let count = width * height * components
        guard let pixels = image.pixels, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: pixels, count: count))
    }
}

@available(*, unavailable)
extension PixelBuffer: Sendable {}
