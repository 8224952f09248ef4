/// The nine Photos-style filters (docs/FILTERS.md has each one's maths and a picture).
public enum FilterName: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// High-contrast black and white.
    case noir = 1
    /// Plain black and white.
    case mono = 2
    /// Soft, low-contrast black and white.
    case tonal = 3
    /// Brown-toned.
    case sepia = 4
    /// Saturated with a gentle S-curve.
    case chrome = 5
    /// Desaturated with lifted blacks.
    case fade = 6
    /// Faded and warm.
    case instant = 7
    /// Cool.
    case process = 8
    /// Warm and vintage.
    case transfer = 9

    /// The lowercase name, as the CLI spells it (`noir`).
    public var description: String {
        switch self {
        case .noir: "noir"
        case .mono: "mono"
        case .tonal: "tonal"
        case .sepia: "sepia"
        case .chrome: "chrome"
        case .fade: "fade"
        case .instant: "instant"
        case .process: "process"
        case .transfer: "transfer"
        }
    }

    /// The filter named `name` (any case), or `nil`.
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.description == name.lowercased() }) else { return nil }
        self = match
    }
}

/// A recipe of PhotoLib's own edit format, `org.photolib.filter` version `1`: operations
/// applied in order. Both the server and `PhotoLibClient` render it with the same code, so the
/// same recipe gives the same pixels on either side.
///
/// Colour operations apply to every pixel. Geometry operations (crop, rotate, mirror) apply to
/// the upright image as the operations before them left it.
public struct FilterRecipe: Sendable, Hashable {
    /// The format identifier of adjustment data holding a recipe.
    public static let formatIdentifier = "org.photolib.filter"
    /// The format version this code reads and writes.
    public static let formatVersion = "1"
    /// The most operations a recipe may hold.
    public static let maxOperations = 64

    /// One step of a recipe.
    public enum Operation: Sendable, Hashable {
        /// A filter at an intensity of 0…1 (kept to thousandths).
        case filter(FilterName, intensity: Double)
        /// Exposure, −4…4 EV (kept to hundredths).
        case exposure(Double)
        /// Contrast around mid-gray, −1…1 (kept to thousandths); 0 leaves the image alone.
        case contrast(Double)
        /// Saturation around luma, −1…1 (kept to thousandths); −1 is gray.
        case saturation(Double)
        /// Keep this part of the image.
        case crop(NormalizedRect)
        /// Rotate clockwise by 1…3 quarter turns.
        case rotate(quarterTurns: Int)
        /// Mirror left to right.
        case mirror

        /// Whether the step changes the image's geometry (crop, rotate, mirror).
        public var isGeometry: Bool {
            switch self {
            case .crop, .rotate, .mirror: true
            case .filter, .exposure, .contrast, .saturation: false
            }
        }
    }

    /// The steps, in order.
    public var operations: [Operation]

    /// A recipe of `operations` (see ``validated()``).
    public init(_ operations: [Operation] = []) {
        self.operations = operations
    }

    /// Whether any step crops (the render's size may then differ from the original's).
    public var crops: Bool {
        operations.contains { if case .crop = $0 { true } else { false } }
    }

    /// Returns `self` when every value is in range and there are at most ``maxOperations``
    /// steps; otherwise throws `invalidArgument` naming the step.
    public func validated() throws(PhotoLibError) -> FilterRecipe {
        guard operations.count <= Self.maxOperations else {
            throw PhotoLibError(.invalidArgument, "a filter recipe has \(operations.count) operations; at most \(Self.maxOperations)")
        }
        for (index, operation) in operations.enumerated() {
            func check(_ ok: Bool, _ what: String) throws(PhotoLibError) {
                if !ok { throw PhotoLibError(.invalidArgument, "filter recipe operation \(index + 1): \(what)") }
            }
            switch operation {
            case .filter(_, let intensity):
                try check(intensity.isFinite && (0...1).contains(intensity), "intensity \(intensity) is outside 0…1")
            case .exposure(let ev):
                try check(ev.isFinite && (-4...4).contains(ev), "exposure \(ev) EV is outside −4…4")
            case .contrast(let amount):
                try check(amount.isFinite && (-1...1).contains(amount), "contrast \(amount) is outside −1…1")
            case .saturation(let amount):
                try check(amount.isFinite && (-1...1).contains(amount), "saturation \(amount) is outside −1…1")
            case .crop(let rect):
                do throws(PhotoLibError) { _ = try rect.validated() } catch { try check(false, error.message) }
            case .rotate(let turns):
                try check((1...3).contains(turns), "rotation of \(turns) quarter turns is outside 1…3")
            case .mirror:
                break
            }
        }
        return self
    }
}
