/// Reads what a JPEG is without rendering it: headers and EXIF, or a full check that
/// the compressed data is complete and undamaged.
public enum JPEGInspector {
    /// Reads the frame header and EXIF only: fast, no pixel decode.
    ///
    /// Applies `limits.maxInputBytes` and `limits.maxPixels` (a header declaring
    /// 65000×65000 fails with ``ImagingError/Code/tooLarge`` before any pixel memory is
    /// allocated). Damaged EXIF never fails: its fields are reported as absent.
    /// CMYK/YCCK streams are accepted (rendering converts them to RGB); other colour
    /// spaces fail with ``ImagingError/Code/unsupported``.
    ///
    /// Related libjpeg documentation: libjpeg.txt, "Decompression details" (jpeg_read_header).
    public static func inspect(
        _ data: [UInt8], limits: ImagingLimits = .default
    ) throws(ImagingError) -> JPEGInfo {
        let header = try LibJPEG.readHeader(data, limits: limits)
        return info(header: header, data: data)
    }

    /// Decodes the whole image at the smallest DCT scale (1/8) to prove the entropy data
    /// is complete and undamaged, and returns the same info as ``inspect(_:limits:)``.
    ///
    /// Every libjpeg warning counts as damage: "premature end of JPEG file" fails with
    /// ``ImagingError/Code/truncated``, corrupt data (bad Huffman codes, premature end of a
    /// data segment, extraneous bytes) with ``ImagingError/Code/corrupt``. The scan count is
    /// limited by `limits.maxScans` and the work by `limits.maxScanPixels`; `control` stops
    /// the decode from another thread (``ImagingError/Code/cancelled``).
    ///
    /// Related libjpeg documentation: libjpeg.txt, "Decompression details",
    /// "Decompression parameter selection" (scale_num/scale_denom), "Error handling".
    public static func validate(
        _ data: [UInt8], limits: ImagingLimits = .default, control: RenderControl? = nil
    ) throws(ImagingError) -> JPEGInfo {
        let decoded = try LibJPEG.decode(data, scale: 1, limits: limits, keepPixels: false, control: control)
        return info(header: decoded.header, data: data)
    }

    static func info(header: LibJPEG.Header, data: [UInt8]) -> JPEGInfo {
        let exif = ExifMetadata(jpeg: data)
        return JPEGInfo(
            storedWidth: header.width, storedHeight: header.height, orientation: exif.orientation,
            isProgressive: header.isProgressive, components: header.components,
            creationDate: exif.creationDate, location: exif.location)
    }
}
