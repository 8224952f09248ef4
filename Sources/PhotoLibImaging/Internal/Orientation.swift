/// One of the eight ways to turn and flip an image (the dihedral group of the square), as the
/// integer matrix that maps centred source coordinates to centred destination coordinates
/// (x right, y down): x' = a·x + b·y, y' = c·x + d·y.
///
/// EXIF orientation `o` is the transform from the stored image to the upright one, so
/// composing "then rotate" or "then mirror" onto it gives the single orientation the shim
/// applies in one pass.
package struct Orientation: Hashable, Sendable {
    package var a: Int
    package var b: Int
    package var c: Int
    package var d: Int

    /// The matrices of EXIF orientations 1...8 (see plj_orient.c's table).
    private static let exif: [Orientation] = [
        Orientation(a: 1, b: 0, c: 0, d: 1),
        Orientation(a: -1, b: 0, c: 0, d: 1),
        Orientation(a: -1, b: 0, c: 0, d: -1),
        Orientation(a: 1, b: 0, c: 0, d: -1),
        Orientation(a: 0, b: 1, c: 1, d: 0),
        Orientation(a: 0, b: -1, c: 1, d: 0),
        Orientation(a: 0, b: -1, c: -1, d: 0),
        Orientation(a: 0, b: 1, c: -1, d: 0),
    ]

    /// No change.
    package static let identity = exif[0]
    /// A quarter turn clockwise.
    package static let quarterTurnClockwise = exif[5]
    /// Left and right swapped.
    package static let mirror = exif[1]

    /// EXIF orientation `code` (1...8; anything else is the identity).
    package init(exif code: Int) {
        self = (1...8).contains(code) ? Self.exif[code - 1] : Self.exif[0]
    }

    private init(a: Int, b: Int, c: Int, d: Int) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
    }

    /// The EXIF code of this transform.
    package var exifCode: Int { (Self.exif.firstIndex(of: self) ?? 0) + 1 }

    /// `self` after `first`: first applies `first`, then `self`.
    package func after(_ first: Orientation) -> Orientation {
        Orientation(
            a: a * first.a + b * first.c, b: a * first.b + b * first.d,
            c: c * first.a + d * first.c, d: c * first.b + d * first.d)
    }

    /// Whether the transform swaps width and height: a quarter turn, with or without a mirror
    /// (EXIF 5...8).
    package var swapsAxes: Bool { a == 0 }

    /// The sides of a `width` × `height` image once transformed (swapped by ``swapsAxes``);
    /// equally, the stored sides of an upright image of that size.
    package func sides(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsAxes ? (height, width) : (width, height)
    }

    /// The transform that undoes this one (the transpose: the matrices are orthogonal).
    package var inverse: Orientation { Orientation(a: a, b: c, c: b, d: d) }

    /// Where the unit-square point (x, y) goes.
    package func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        let u = x - 0.5
        let v = y - 0.5
        return (Double(a) * u + Double(b) * v + 0.5, Double(c) * u + Double(d) * v + 0.5)
    }
}
