internal import CPhotoLibJPEG
internal import CPhotoLibWebP
import PhotoLibImaging

/// Swift face of the CPhotoLibWebP shim (libwebp's incremental decoder).
enum LibWebP {
    /// Header fields and where the metadata chunks are.
    struct Header {
        var width: Int
        var height: Int
        var hasAlpha: Bool
        var isAnimated: Bool
        var exif: Range<Int>?
        var xmp: Range<Int>?
    }

    /// Reads the RIFF container and the bitstream header.
    ///
    /// Related libwebp documentation: webp/decode.h (WebPGetFeatures).
    static func readHeader(_ data: [UInt8], limits: ImagingLimits) throws(ImagingError) -> Header {
        var cLimits = try LibJPEG.cLimits(limits)
        var info = CPhotoLibWebP_Info()
        try DecoderCall.run { message, capacity in
            data.withUnsafeBufferPointer { input in
                CPhotoLibWebP_read_header(input.baseAddress, input.count, &cLimits, &info, message, capacity)
            }
        }
        return Header(info)
    }

    /// Decodes a still WebP to RGB with alpha composited over white, box-shrunk by `shrink`
    /// (`keepPixels` false: validate only).
    ///
    /// Related libwebp documentation: webp/decode.h ("Advanced decoding API", WebPIDecode).
    static func decode(
        _ data: [UInt8], limits: ImagingLimits, control: RenderControl?, keepPixels: Bool, shrink: Int = 1
    ) throws(ImagingError) -> PixelBuffer? {
        var cLimits = try LibJPEG.cLimits(limits)
        var image = CPhotoLibJPEG_Image()
        try DecoderCall.run { message, capacity in
            data.withUnsafeBufferPointer { input in
                if keepPixels {
                    CPhotoLibWebP_decode(
                        input.baseAddress, input.count, &cLimits, control?.pointer, UInt32(clamping: shrink), nil, &image, message, capacity)
                } else {
                    CPhotoLibWebP_decode(input.baseAddress, input.count, &cLimits, control?.pointer, 1, nil, nil, message, capacity)
                }
            }
        }
        return keepPixels ? PixelBuffer(taking: image) : nil
    }
}

extension LibWebP.Header {
    init(_ info: CPhotoLibWebP_Info) {
        let exifStart = Int(info.exif_offset)
        let xmpStart = Int(info.xmp_offset)
        self.init(
            width: Int(info.width), height: Int(info.height), hasAlpha: info.has_alpha != 0,
            isAnimated: info.is_animated != 0,
            exif: info.exif_size > 0 ? exifStart..<(exifStart + Int(info.exif_size)) : nil,
            xmp: info.xmp_size > 0 ? xmpStart..<(xmpStart + Int(info.xmp_size)) : nil)
    }
}
