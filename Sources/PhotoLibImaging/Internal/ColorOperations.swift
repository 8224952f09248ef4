internal import CPhotoLibJPEG
import PhotoLibCore

/// The colour steps of a recipe as the shim's per-pixel operations (plj_filter.c), with
/// every value rounded the way the recipe's format documents (thousandths, hundredths of EV),
/// so equal recipes give equal operations.
struct ColorOperations {
    /// The operations, in recipe order.
    private(set) var operations: [CPhotoLibJPEG_ColorOp] = []

    /// Builds the operations of `recipe`'s colour steps; geometry steps are skipped.
    init(_ recipe: FilterRecipe) throws(ImagingError) {
        for operation in recipe.operations {
            var op = CPhotoLibJPEG_ColorOp()
            switch operation {
            case .filter(let name, let intensity):
                let permille = Self.rounded(intensity, 1000)
                try LibJPEG.call { CPhotoLibJPEG_color_op_filter(Int32(name.rawValue), permille, &op, $0, $1) }
            case .exposure(let ev):
                let hundredths = Self.rounded(ev, 100)
                try LibJPEG.call { CPhotoLibJPEG_color_op_exposure(hundredths, &op, $0, $1) }
            case .contrast(let amount):
                let permille = Self.rounded(amount, 1000)
                try LibJPEG.call { CPhotoLibJPEG_color_op_contrast(permille, &op, $0, $1) }
            case .saturation(let amount):
                let permille = Self.rounded(amount, 1000)
                try LibJPEG.call { CPhotoLibJPEG_color_op_saturation(permille, &op, $0, $1) }
            case .crop, .rotate, .mirror:
                continue
            }
            operations.append(op)
        }
    }

    /// `value × scale` rounded half away from zero (non-finite values become out of range).
    private static func rounded(_ value: Double, _ scale: Double) -> Int32 {
        guard value.isFinite else { return Int32.max }
        return Int32(clamping: Int((value * scale).rounded()))
    }
}
