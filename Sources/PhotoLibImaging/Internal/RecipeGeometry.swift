import PhotoLibCore

/// The geometry steps of a recipe folded into one crop and one transform: render the crop
/// of the upright image, then turn/flip it by `transform`.
struct RecipeGeometry: Hashable, Sendable {
    /// The part of the upright (EXIF-oriented) original that is kept.
    var crop = NormalizedRect.unit
    /// Rotations and mirrors, applied after the crop.
    var transform = Orientation.identity

    /// Folds `operations`' crops, rotations and mirrors, in order; colour steps are skipped.
    init(_ operations: [FilterRecipe.Operation]) {
        for operation in operations {
            switch operation {
            case .rotate(let turns):
                for _ in 0..<((turns % 4 + 4) % 4) { transform = Orientation.quarterTurnClockwise.after(transform) }
            case .mirror:
                transform = Orientation.mirror.after(transform)
            case .crop(let rect):
                // `rect` is in the image as the steps so far left it: take it back through the
                // transform into the current crop, then into the original.
                let inverse = transform.inverse
                let p = inverse.apply(x: rect.x, y: rect.y)
                let q = inverse.apply(x: rect.x + rect.width, y: rect.y + rect.height)
                let inner = NormalizedRect(x: min(p.x, q.x), y: min(p.y, q.y), width: abs(p.x - q.x), height: abs(p.y - q.y))
                crop = NormalizedRect(
                    x: crop.x + inner.x * crop.width, y: crop.y + inner.y * crop.height,
                    width: inner.width * crop.width, height: inner.height * crop.height)
            case .filter, .exposure, .contrast, .saturation:
                continue
            }
        }
    }
}
