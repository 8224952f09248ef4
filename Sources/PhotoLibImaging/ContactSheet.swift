/// Composes a grid picture of thumbnails (a contact sheet).
public enum ContactSheet {
    /// Lays `thumbnails` (JPEG bytes, upright) out left to right, top to bottom, `columns`
    /// per row, each fitted (aspect kept, centred) into a `cell` × `cell` square with
    /// `spacing` pixels between cells and around the edge, on a dark grey background.
    /// Encoded as an RGB JPEG at `quality`.
    ///
    /// Throws ``ImagingError/Code/invalidArgument`` for no thumbnails, `columns` < 1,
    /// `cell` outside 8...4096 or a sheet side above 65535, and the decode errors of a
    /// thumbnail that is not a valid JPEG.
    public static func compose(
        _ thumbnails: [[UInt8]], columns: Int, cell: Int, spacing: Int = 4, quality: Int = 85,
        limits: ImagingLimits = .default
    ) throws(ImagingError) -> RenderedImage {
        guard !thumbnails.isEmpty else {
            throw ImagingError(code: .invalidArgument, message: "a contact sheet needs at least one thumbnail")
        }
        guard columns >= 1, (8...4096).contains(cell), (0...256).contains(spacing) else {
            throw ImagingError(
                code: .invalidArgument,
                message: "contact sheet: columns (\(columns)) must be ≥ 1, cell (\(cell)) 8...4096 px, spacing (\(spacing)) 0...256 px")
        }
        let used = min(columns, thumbnails.count)
        let rows = (thumbnails.count + columns - 1) / columns
        let width = used * cell + (used + 1) * spacing
        let height = rows * cell + (rows + 1) * spacing
        guard width <= JPEGRenderer.maxTargetDimension, height <= JPEGRenderer.maxTargetDimension else {
            throw ImagingError(
                code: .invalidArgument,
                message: "a \(width)x\(height) contact sheet is too large (65535 px per side at most): use fewer columns, a smaller cell, or fewer assets")
        }
        let background = [UInt8](repeating: 40, count: width * height * 3)
        let sheet = try PixelBuffer.make(width: width, height: height, components: 3, bytes: background)
        for (index, jpeg) in thumbnails.enumerated() {
            let decoded = try LibJPEG.decode(jpeg, scale: 8, crop: nil, limits: limits, control: nil).pixels
            let fitted = try JPEGRenderer.outputSize(
                uprightWidth: decoded.width, uprightHeight: decoded.height, targetWidth: cell, targetHeight: cell,
                contentMode: .aspectFit)
            var pixels = decoded
            if fitted.width != decoded.width || fitted.height != decoded.height {
                pixels = try LibJPEG.resample(decoded, width: fitted.width, height: fitted.height, limits: limits)
            }
            let column = index % columns
            let row = index / columns
            let x = spacing + column * (cell + spacing) + (cell - pixels.width) / 2
            let y = spacing + row * (cell + spacing) + (cell - pixels.height) / 2
            try LibJPEG.paste(pixels, into: sheet, x: x, y: y)
        }
        let jpeg = try LibJPEG.encode(sheet, options: JPEGEncodeOptions(quality: quality), control: nil)
        return RenderedImage(jpeg: jpeg, width: width, height: height)
    }
}
