import PhotoLibCore

extension JPEGRenderer {
    /// The largest target side accepted (and the largest JPEG side libjpeg writes).
    public static let maxTargetDimension = 65535

    /// The size ``render(_:request:limits:control:)`` (resize mode `exact`) produces
    /// for an upright image of `uprightWidth` × `uprightHeight` (PhotoKit semantics).
    ///
    /// With s = min(tw/W, th/H) for aspectFit or max(tw/W, th/H) for aspectFill: when
    /// s ≥ 1 the result is (W, H) (never upscale); otherwise the side s was taken from
    /// equals its target exactly and the other is `max(1, Int((other * s).rounded()))`.
    /// Example: 5312×2988 into 256×256 is 256×144 (fit) or 455×256 (fill).
    ///
    /// Throws ``ImagingError/Code/invalidArgument`` when a target side is outside
    /// 1...``maxTargetDimension`` or an image side is not positive.
    public static func outputSize(
        uprightWidth: Int, uprightHeight: Int, targetWidth: Int, targetHeight: Int,
        contentMode: ContentMode
    ) throws(ImagingError) -> (width: Int, height: Int) {
        try checkTarget(width: targetWidth, height: targetHeight)
        guard uprightWidth > 0, uprightHeight > 0 else {
            throw ImagingError(
                code: .invalidArgument,
                message: "image size \(uprightWidth)x\(uprightHeight) must be positive")
        }
        let scaleX = Double(targetWidth) / Double(uprightWidth)
        let scaleY = Double(targetHeight) / Double(uprightHeight)
        let widthConstrained: Bool
        switch contentMode {
        case .aspectFit: widthConstrained = scaleX <= scaleY
        case .aspectFill: widthConstrained = scaleX >= scaleY
        }
        let scale = widthConstrained ? scaleX : scaleY
        guard scale < 1 else { return (uprightWidth, uprightHeight) }
        if widthConstrained {
            let height = max(1, Int((Double(uprightHeight) * scale).rounded()))
            return (targetWidth, min(height, uprightHeight))
        } else {
            let width = max(1, Int((Double(uprightWidth) * scale).rounded()))
            return (min(width, uprightWidth), targetHeight)
        }
    }

    /// The smallest DCT scale N (decode at N/8, N = 1...8) whose output is at least
    /// `width` × `height` for a stored image of `storedWidth` × `storedHeight`.
    static func dctScale(storedWidth: Int, storedHeight: Int, covering width: Int, _ height: Int) -> Int {
        for scale in 1...8
        where LibJPEG.scaledDimension(storedWidth, scale: scale) >= width
            && LibJPEG.scaledDimension(storedHeight, scale: scale) >= height
        {
            return scale
        }
        return 8
    }

    static func checkTarget(width: Int, height: Int) throws(ImagingError) {
        guard (1...maxTargetDimension).contains(width), (1...maxTargetDimension).contains(height) else {
            throw ImagingError(
                code: .invalidArgument,
                message: "target size \(width)x\(height) is out of range (each side 1...\(maxTargetDimension))")
        }
    }
}
