internal import CPhotoLibHEIF
internal import CPhotoLibJPEG
import PhotoLibCore
import PhotoLibImaging

/// Swift face of the CPhotoLibHEIF shim (libheif).
enum LibHEIF {
    /// What the boxes say about the primary image.
    struct Header {
        /// Upright size (libheif applies irot/imir/clap).
        var width: Int
        var height: Int
        /// `ispe` size, before transforms.
        var storedWidth: Int
        var storedHeight: Int
        var hasAlpha: Bool
        /// Upright size of the largest thumbnail.
        var thumbnail: PixelSize?
        /// The irot/imir properties as one EXIF orientation (stored → upright).
        var orientation: Int
        /// The Exif block from its TIFF header on.
        var exif: [UInt8]
    }

    /// Parses the file structure (no pixel decode).
    ///
    /// Related libheif documentation: libheif/heif.h (heif_context_read_from_memory_without_copy,
    /// heif_image_handle_get_ispe_width, heif_image_handle_get_metadata).
    static func readHeader(_ data: [UInt8], limits: ImagingLimits) throws(ImagingError) -> Header {
        var cLimits = try LibJPEG.cLimits(limits)
        var info = CPhotoLibHEIF_Info()
        try DecoderCall.run { message, capacity in
            data.withUnsafeBufferPointer { input in
                CPhotoLibHEIF_read_header(input.baseAddress, input.count, &cLimits, &info, message, capacity)
            }
        }
        defer { CPhotoLibHEIF_buffer_free(info.exif) }
        let exif = info.exif.map { Array(UnsafeBufferPointer(start: $0, count: info.exif_size)) } ?? []
        let transforms = withUnsafeBytes(of: info.transforms) { raw in
            Array(raw.bindMemory(to: CPhotoLibHEIF_Transform.self).prefix(Int(info.transform_count)))
        }
        var orientation = Orientation.identity
        for transform in transforms {
            let step: Orientation
            switch (transform.kind, transform.value) {
            // irot turns anticlockwise: k quarter turns anticlockwise are 4 - k clockwise.
            case (1, let turns): step = quarterTurnsClockwise((4 - Int(turns) % 4) % 4)
            case (2, 0): step = .mirror
            case (2, _): step = Orientation.mirror.after(quarterTurnsClockwise(2))
            default: continue
            }
            orientation = step.after(orientation)
        }
        let thumbnail =
            info.thumbnail_width > 0 && info.thumbnail_height > 0
            ? PixelSize(width: Int(info.thumbnail_width), height: Int(info.thumbnail_height)) : nil
        return Header(
            width: Int(info.width), height: Int(info.height), storedWidth: Int(info.stored_width),
            storedHeight: Int(info.stored_height), hasAlpha: info.has_alpha != 0, thumbnail: thumbnail,
            orientation: orientation.exifCode, exif: exif)
    }

    private static func quarterTurnsClockwise(_ count: Int) -> Orientation {
        var result = Orientation.identity
        for _ in 0..<count { result = Orientation.quarterTurnClockwise.after(result) }
        return result
    }

    /// Who turns a decoded HEIF image into interleaved RGB rows.
    enum ColourConversion {
        /// The shim, row by row from libheif's native output (planar RGB in libheif 1.15).
        case rowByRow
        /// libheif, for the whole image (the reference in tests).
        case libheif
        /// The shim, from YCbCr 4:2:0 planes libheif is asked for (tests the YCbCr path).
        case ycbcr420RowByRow
    }

    /// Decodes the primary image (or its largest thumbnail) upright, to RGB with alpha
    /// composited over white, box-shrunk by `shrink` (`keepPixels` false: validate only).
    /// `colours` picks who converts to interleaved RGB (see ``ColourConversion``).
    ///
    /// Related libheif documentation: libheif/heif.h (heif_decode_image, heif_decoding_options).
    static func decode(
        _ data: [UInt8], thumbnail: Bool, limits: ImagingLimits, control: RenderControl?, keepPixels: Bool,
        shrink: Int = 1, colours: ColourConversion = .rowByRow
    ) throws(ImagingError) -> PixelBuffer? {
        var cLimits = try LibJPEG.cLimits(limits)
        var image = CPhotoLibJPEG_Image()
        var flags = thumbnail ? CPhotoLibHEIF_DECODE_THUMBNAIL : 0
        switch colours {
        case .rowByRow: break
        case .libheif: flags |= CPhotoLibHEIF_DECODE_LIBHEIF_RGB
        case .ycbcr420RowByRow: flags |= CPhotoLibHEIF_DECODE_YCBCR_420
        }
        try DecoderCall.run { message, capacity in
            data.withUnsafeBufferPointer { input in
                if keepPixels {
                    CPhotoLibHEIF_decode(
                        input.baseAddress, input.count, &cLimits, control?.pointer, flags, UInt32(clamping: shrink), &image,
                        message, capacity)
                } else {
                    CPhotoLibHEIF_decode(
                        input.baseAddress, input.count, &cLimits, control?.pointer, flags, 1, nil, message, capacity)
                }
            }
        }
        return keepPixels ? PixelBuffer(taking: image) : nil
    }
}
