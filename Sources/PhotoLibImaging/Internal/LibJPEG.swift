package import CPhotoLibJPEG

/// Swift face of the CPhotoLibJPEG shim: every call goes through ``call(_:)``, which
/// turns a C status and message into a thrown ``ImagingError``.
package enum LibJPEG {
    /// Header fields from the frame header.
    package struct Header: Sendable, Hashable {
        package var width: Int
        package var height: Int
        package var components: Int
        package var isProgressive: Bool
        package var isCMYK: Bool
    }

    /// Runs a C function that returns a status and writes a message; throws on failure.
    package static func call(
        _ body: (UnsafeMutablePointer<CChar>, Int) -> Int32
    ) throws(ImagingError) {
        var message = [CChar](repeating: 0, count: Int(CPhotoLibJPEG_MESSAGE_CAPACITY))
        let status = message.withUnsafeMutableBufferPointer { buffer in
            body(buffer.baseAddress!, buffer.count)
        }
        guard status != CPhotoLibJPEG_OK else { return }
        let bytes = message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        var text = String(decoding: bytes, as: UTF8.self)
        if text.isEmpty { text = "JPEG operation failed with status \(status)" }
        throw ImagingError(code: code(for: status), message: text)
    }

    /// The Swift code for a C status.
    package static func code(for status: Int32) -> ImagingError.Code {
        switch status {
        case CPhotoLibJPEG_NOT_JPEG: .notJPEG
        case CPhotoLibJPEG_TRUNCATED: .truncated
        case CPhotoLibJPEG_CORRUPT: .corrupt
        case CPhotoLibJPEG_TOO_LARGE: .tooLarge
        case CPhotoLibJPEG_UNSUPPORTED: .unsupported
        case CPhotoLibJPEG_INVALID_ARGUMENT: .invalidArgument
        case CPhotoLibJPEG_CANCELLED: .cancelled
        default: .internalError
        }
    }

    /// The C form of the limits, after checking they are positive.
    package static func cLimits(_ limits: ImagingLimits) throws(ImagingError) -> CPhotoLibJPEG_Limits {
        guard limits.maxPixels > 0, limits.maxInputBytes > 0, limits.maxMemoryBytes > 0,
            limits.maxScans > 0, limits.maxScanPixels > 0
        else {
            throw ImagingError(
                code: .invalidArgument,
                message: "imaging limits must be positive (got \(limits))")
        }
        return CPhotoLibJPEG_Limits(
            max_pixels: UInt64(limits.maxPixels),
            max_input_bytes: UInt64(limits.maxInputBytes),
            max_memory_bytes: UInt64(limits.maxMemoryBytes),
            max_scans: UInt32(clamping: limits.maxScans),
            max_scan_pixels: UInt64(limits.maxScanPixels))
    }

    /// Reads the frame header (no entropy decode).
    ///
    /// Related libjpeg documentation: libjpeg.txt, "Decompression details" (jpeg_read_header).
    package static func readHeader(_ data: [UInt8], limits: ImagingLimits) throws(ImagingError) -> Header {
        var cLimits = try cLimits(limits)
        var info = CPhotoLibJPEG_HeaderInfo()
        try call { message, capacity in
            data.withUnsafeBufferPointer { input in
                CPhotoLibJPEG_read_header(
                    input.baseAddress, input.count, &cLimits, &info, message, capacity)
            }
        }
        return Header(info)
    }

    /// Decodes the whole stream at DCT scale `scale`/8; with `keepPixels` false the
    /// scanlines are discarded (validation).
    ///
    /// Related libjpeg documentation: libjpeg.txt, "Decompression details",
    /// "Decompression parameter selection" (scale_num, scale_denom).
    package static func decode(
        _ data: [UInt8], scale: Int, limits: ImagingLimits, keepPixels: Bool, control: RenderControl? = nil
    ) throws(ImagingError) -> (header: Header, pixels: PixelBuffer?) {
        var cLimits = try cLimits(limits)
        var info = CPhotoLibJPEG_HeaderInfo()
        var image = CPhotoLibJPEG_Image()
        var options = CPhotoLibJPEG_DecodeOptions()
        options.scale_num = UInt32(clamping: scale)
        options.control = control?.pointer
        try call { message, capacity in
            data.withUnsafeBufferPointer { input in
                if keepPixels {
                    CPhotoLibJPEG_decode_ex(input.baseAddress, input.count, &cLimits, &options, &info, &image, nil, message, capacity)
                } else {
                    CPhotoLibJPEG_decode_ex(input.baseAddress, input.count, &cLimits, &options, &info, nil, nil, message, capacity)
                }
            }
        }
        return (Header(info), keepPixels ? PixelBuffer(taking: image) : nil)
    }

    /// Decodes with the shim's options: DCT scale, a crop of the scaled output (in scaled
    /// pixels), skipping the progressive scans a 1/8 decode never reads, and a control for
    /// cancellation and progress. Returns the pixels and how many scans were skipped (0 when the
    /// whole stream was decoded).
    ///
    /// Related libjpeg documentation: libjpeg.txt, "Decompression parameter selection"
    /// (scale_num, do_block_smoothing), "Progress monitoring".
    package static func decode(
        _ data: [UInt8], scale: Int, crop: PixelRect?, skipUnneededScans: Bool = false, limits: ImagingLimits,
        control: RenderControl?, colors: [CPhotoLibJPEG_ColorOp] = []
    ) throws(ImagingError) -> (header: Header, pixels: PixelBuffer, skippedScans: Int) {
        var cLimits = try cLimits(limits)
        var info = CPhotoLibJPEG_HeaderInfo()
        var image = CPhotoLibJPEG_Image()
        var options = CPhotoLibJPEG_DecodeOptions()
        options.scale_num = UInt32(clamping: scale)
        if let crop {
            options.crop_x = UInt32(clamping: crop.x)
            options.crop_y = UInt32(clamping: crop.y)
            options.crop_width = UInt32(clamping: crop.width)
            options.crop_height = UInt32(clamping: crop.height)
        }
        options.skip_unneeded_scans = skipUnneededScans ? 1 : 0
        options.control = control?.pointer
        var plan = CPhotoLibJPEG_ScanPlan()
        try call { message, capacity in
            colors.withUnsafeBufferPointer { ops in
                options.color_ops = ops.baseAddress
                options.color_op_count = ops.count
                return data.withUnsafeBufferPointer { input in
                    CPhotoLibJPEG_decode_ex(
                        input.baseAddress, input.count, &cLimits, &options, &info, &image, &plan, message, capacity)
                }
            }
        }
        let skipped = plan.outcome == CPhotoLibJPEG_SCANS_SKIPPED ? Int(plan.total_scans - plan.kept_scans) : 0
        return (Header(info), PixelBuffer(taking: image), skipped)
    }

    /// What a decode at DCT scale `scale`/8 would read of a progressive stream.
    package struct ScanPlan: Sendable, Hashable {
        /// Whether scans are skipped; when not, ``reason`` says why.
        var skips: Bool
        /// Why nothing is skipped (empty when scans are).
        var reason: String
        /// Scans in the file, and those the decode reads.
        var totalScans: Int
        var keptScans: Int
        /// Bytes of the file, and those libjpeg is given.
        var totalBytes: Int
        var keptBytes: Int
        /// Each component's reduced inverse-DCT size at this scale.
        var idctSizes: [Int]
    }

    /// Which scans of `data` a decode at `scale`/8 needs, without decoding (the shim's planner).
    package static func scanPlan(_ data: [UInt8], scale: Int, limits: ImagingLimits) throws(ImagingError) -> ScanPlan {
        var cLimits = try cLimits(limits)
        var plan = CPhotoLibJPEG_ScanPlan()
        try call { message, capacity in
            data.withUnsafeBufferPointer { input in
                CPhotoLibJPEG_scan_plan(input.baseAddress, input.count, &cLimits, UInt32(clamping: scale), &plan, message, capacity)
            }
        }
        let reason: String
        switch plan.outcome {
        case CPhotoLibJPEG_SCANS_SKIPPED: reason = ""
        case CPhotoLibJPEG_SCANS_NOT_PROGRESSIVE: reason = "not a Huffman-coded progressive stream"
        case CPhotoLibJPEG_SCANS_SCALE: reason = "scale above 1/8"
        case CPhotoLibJPEG_SCANS_NOTHING_TO_SKIP: reason = "every scan carries coefficients the decode reads"
        case CPhotoLibJPEG_SCANS_SMOOTHING: reason = "incomplete coefficients: the full decode smooths blocks"
        case CPhotoLibJPEG_SCANS_TRUNCATED: reason = "the data ends before EOI"
        default: reason = "a stream structure left to the full decode"
        }
        let sizes = [plan.idct_size.0, plan.idct_size.1, plan.idct_size.2, plan.idct_size.3].map(Int.init)
        return ScanPlan(
            skips: plan.outcome == CPhotoLibJPEG_SCANS_SKIPPED, reason: reason, totalScans: Int(plan.total_scans),
            keptScans: Int(plan.kept_scans), totalBytes: Int(plan.total_bytes), keptBytes: Int(plan.kept_bytes),
            idctSizes: sizes)
    }

    /// Copies a rectangle of `source` into a new buffer.
    package static func crop(_ source: PixelBuffer, _ rect: PixelRect) throws(ImagingError) -> PixelBuffer {
        var output = CPhotoLibJPEG_Image()
        try call { message, capacity in
            CPhotoLibJPEG_crop(
                &source.image, UInt32(clamping: rect.x), UInt32(clamping: rect.y), UInt32(clamping: rect.width),
                UInt32(clamping: rect.height), &output, message, capacity)
        }
        return PixelBuffer(taking: output)
    }

    /// Pastes `source` into `destination` at (x, y), clipped.
    package static func paste(_ source: PixelBuffer, into destination: PixelBuffer, x: Int, y: Int) throws(ImagingError) {
        try call { message, capacity in
            CPhotoLibJPEG_paste(&source.image, &destination.image, Int32(clamping: x), Int32(clamping: y), message, capacity)
        }
    }

    /// Encodes with explicit options (sampling, progressive, restart interval, CMYK form).
    ///
    /// Related libjpeg documentation: libjpeg.txt, "Compression parameter selection"
    /// (jpeg_simple_progression, restart_in_rows, jpeg_set_colorspace).
    package static func encode(
        _ source: PixelBuffer, options: JPEGEncodeOptions, control: RenderControl?
    ) throws(ImagingError) -> [UInt8] {
        var cOptions = CPhotoLibJPEG_EncodeOptions()
        cOptions.quality = Int32(clamping: options.quality)
        switch options.chromaSubsampling {
        case .none: (cOptions.h_samp, cOptions.v_samp) = (1, 1)
        case .horizontal: (cOptions.h_samp, cOptions.v_samp) = (2, 1)
        case .both: (cOptions.h_samp, cOptions.v_samp) = (2, 2)
        }
        cOptions.progressive = options.progressive ? 1 : 0
        cOptions.restart_rows = Int32(clamping: options.restartIntervalRows)
        cOptions.plain_cmyk = options.plainCMYK ? 1 : 0
        cOptions.optimize_coding = options.optimizeCoding ? 1 : 0
        cOptions.control = control?.pointer
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        try call { message, capacity in
            CPhotoLibJPEG_encode_ex(&source.image, &cOptions, &output, &size, message, capacity)
        }
        defer { CPhotoLibJPEG_buffer_free(output) }
        guard let output, size > 0 else {
            throw ImagingError(code: .internalError, message: "JPEG encoder produced no bytes")
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// The size libjpeg produces for `dimension` at DCT scale `scale`/8.
    package static func scaledDimension(_ dimension: Int, scale: Int) -> Int {
        Int(CPhotoLibJPEG_scaled_dimension(UInt32(clamping: dimension), UInt32(clamping: scale)))
    }

    /// Resamples with the shim's Lanczos-3 filter (antialiased when downscaling).
    package static func resample(
        _ source: PixelBuffer, width: Int, height: Int, limits: ImagingLimits
    ) throws(ImagingError) -> PixelBuffer {
        var output = CPhotoLibJPEG_Image()
        try call { message, capacity in
            CPhotoLibJPEG_resample(
                &source.image, UInt32(clamping: width), UInt32(clamping: height),
                UInt64(max(0, limits.maxMemoryBytes)), &output, message, capacity)
        }
        return PixelBuffer(taking: output)
    }

    /// Applies EXIF orientation 1...8 so the result is upright.
    package static func orient(_ source: PixelBuffer, orientation: Int) throws(ImagingError) -> PixelBuffer {
        var output = CPhotoLibJPEG_Image()
        try call { message, capacity in
            CPhotoLibJPEG_orient(&source.image, Int32(clamping: orientation), &output, message, capacity)
        }
        return PixelBuffer(taking: output)
    }

    /// Makes a zeroed buffer (for synthetic images in tests).
    package static func allocate(width: Int, height: Int, components: Int) throws(ImagingError) -> PixelBuffer {
        var output = CPhotoLibJPEG_Image()
        try call { message, capacity in
            CPhotoLibJPEG_image_alloc(
                UInt32(clamping: width), UInt32(clamping: height), UInt32(clamping: components),
                &output, message, capacity)
        }
        return PixelBuffer(taking: output)
    }

    /// Encodes a baseline JPEG at `quality` (1...100).
    ///
    /// Related libjpeg documentation: libjpeg.txt, "Compression details",
    /// "Compression parameter selection" (jpeg_set_quality).
    package static func encode(_ source: PixelBuffer, quality: Int) throws(ImagingError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        try call { message, capacity in
            CPhotoLibJPEG_encode(&source.image, Int32(clamping: quality), &output, &size, message, capacity)
        }
        defer { CPhotoLibJPEG_buffer_free(output) }
        guard let output, size > 0 else {
            throw ImagingError(code: .internalError, message: "JPEG encoder produced no bytes")
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }
}

package extension LibJPEG.Header {
    init(_ info: CPhotoLibJPEG_HeaderInfo) {
        self.init(
            width: Int(info.width), height: Int(info.height), components: Int(info.components),
            isProgressive: info.is_progressive != 0, isCMYK: info.is_cmyk != 0)
    }
}
