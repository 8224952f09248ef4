internal import CPhotoLibJPEG
internal import CPhotoLibPNG
import PhotoLibImaging

/// Swift face of the CPhotoLibPNG shim (libpng behind setjmp).
enum LibPNG {
    /// IHDR fields and where the metadata chunks are.
    struct Header {
        var width: Int
        var height: Int
        var hasAlpha: Bool
        var exif: Range<Int>?
        var xmp: Range<Int>?
    }

    /// Reads the signature, IHDR and the chunks before the image data (CRCs checked).
    ///
    /// Related libpng documentation: libpng-manual.txt, "Reading PNG files" (png_read_info).
    static func readHeader(_ data: [UInt8], limits: ImagingLimits) throws(ImagingError) -> Header {
        var cLimits = try LibJPEG.cLimits(limits)
        var info = CPhotoLibPNG_Info()
        try DecoderCall.run { message, capacity in
            data.withUnsafeBufferPointer { input in
                CPhotoLibPNG_read_header(input.baseAddress, input.count, &cLimits, &info, message, capacity)
            }
        }
        return Header(info)
    }

    /// Decodes to gray or RGB with alpha composited over white, box-shrunk by `shrink`
    /// (`keepPixels` false: validate only).
    ///
    /// Related libpng documentation: libpng-manual.txt, "Input transformations", "Reading image data".
    static func decode(
        _ data: [UInt8], limits: ImagingLimits, control: RenderControl?, keepPixels: Bool, shrink: Int = 1
    ) throws(ImagingError) -> (header: Header, pixels: PixelBuffer?) {
        var cLimits = try LibJPEG.cLimits(limits)
        var info = CPhotoLibPNG_Info()
        var image = CPhotoLibJPEG_Image()
        try DecoderCall.run { message, capacity in
            data.withUnsafeBufferPointer { input in
                if keepPixels {
                    CPhotoLibPNG_decode(
                        input.baseAddress, input.count, &cLimits, control?.pointer, UInt32(clamping: shrink), &info, &image, message, capacity)
                } else {
                    CPhotoLibPNG_decode(input.baseAddress, input.count, &cLimits, control?.pointer, 1, &info, nil, message, capacity)
                }
            }
        }
        return (Header(info), keepPixels ? PixelBuffer(taking: image) : nil)
    }
}

extension LibPNG.Header {
    init(_ info: CPhotoLibPNG_Info) {
        let exifStart = Int(info.exif_offset)
        let xmpStart = Int(info.xmp_offset)
        self.init(
            width: Int(info.width), height: Int(info.height), hasAlpha: info.has_alpha != 0,
            exif: info.exif_size > 0 ? exifStart..<(exifStart + Int(info.exif_size)) : nil,
            xmp: info.xmp_size > 0 ? xmpStart..<(xmpStart + Int(info.xmp_size)) : nil)
    }
}
