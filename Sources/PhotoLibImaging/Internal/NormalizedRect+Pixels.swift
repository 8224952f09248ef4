import PhotoLibCore

/// How a crop in unit coordinates of the upright image maps onto stored pixels.
extension NormalizedRect {
    /// The same rectangle in the stored (unrotated) image for EXIF orientation 1...8.
    func stored(orientation: Int) -> NormalizedRect {
        // Maps an upright unit point to the stored unit point (see plj_orient.c's table).
        func map(_ u: Double, _ v: Double) -> (Double, Double) {
            switch orientation {
            case 2: (1 - u, v)
            case 3: (1 - u, 1 - v)
            case 4: (u, 1 - v)
            case 5: (v, u)
            case 6: (v, 1 - u)
            case 7: (1 - v, 1 - u)
            case 8: (1 - v, u)
            default: (u, v)
            }
        }
        let a = map(x, y)
        let b = map(x + width, y + height)
        return NormalizedRect(
            x: min(a.0, b.0), y: min(a.1, b.1), width: abs(a.0 - b.0), height: abs(a.1 - b.1))
    }

    /// The pixel rectangle this covers in an image of `width` × `height`: edges rounded
    /// outwards, clamped inside, at least one pixel. An edge within 1e-9 pixel of a whole pixel
    /// is that pixel: a rectangle taken through a recipe's turns (`x - 0.5 + 0.5`) comes back a
    /// few units in the last place off (0.1 as 0.09999999999999998), and must keep the pixels
    /// the same rectangle keeps in an image request.
    package func pixels(width imageWidth: Int, height imageHeight: Int) -> PixelRect {
        func span(_ start: Double, _ length: Double, _ size: Int) -> (Int, Int) {
            var first = Int((start * Double(size) + 1e-9).rounded(.down))
            var last = Int(((start + length) * Double(size) - 1e-9).rounded(.up))
            first = min(max(first, 0), size - 1)
            last = min(max(last, first + 1), size)
            return (first, last - first)
        }
        let (px, pw) = span(x, width, imageWidth)
        let (py, ph) = span(y, height, imageHeight)
        return PixelRect(x: px, y: py, width: pw, height: ph)
    }
}
