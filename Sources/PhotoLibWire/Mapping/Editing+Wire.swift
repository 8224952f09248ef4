import PhotoLibCore

// Editing values (PhotoLibCore) ⇄ editing.proto: adjustment data, formats and PhotoLib's own
// filter recipe, which travels inside adjustment data as an encoded `FilterRecipe` message.

extension Wire.AdjustmentData {
    /// The message for `adjustment`.
    public init(_ adjustment: AdjustmentData) {
        self.init(formatIdentifier: adjustment.formatIdentifier, formatVersion: adjustment.formatVersion, data: adjustment.data)
    }

    /// The domain value, checked (identifier and version present, data ≤ 64 KiB).
    public func domain() throws(PhotoLibError) -> AdjustmentData {
        try AdjustmentData(formatIdentifier: formatIdentifier, formatVersion: formatVersion, data: data).validated()
    }
}

extension Wire.AdjustmentFormat {
    /// The message for `format`.
    public init(_ format: AdjustmentFormat) {
        self.init(formatIdentifier: format.formatIdentifier, formatVersion: format.formatVersion)
    }

    /// The domain value.
    public var domain: AdjustmentFormat {
        AdjustmentFormat(formatIdentifier: formatIdentifier, formatVersion: formatVersion)
    }
}

extension Wire.FilterRecipe {
    /// The message for `recipe`.
    public init(_ recipe: FilterRecipe) {
        self.init(operations: recipe.operations.map { operation in
            switch operation {
            case .filter(let name, let intensity):
                Wire.FilterOperation(operation: .filter(Wire.FilterApplication(filter: .init(name), intensity: Float(intensity))))
            case .exposure(let ev): Wire.FilterOperation(operation: .exposureEv(Float(ev)))
            case .contrast(let amount): Wire.FilterOperation(operation: .contrast(Float(amount)))
            case .saturation(let amount): Wire.FilterOperation(operation: .saturation(Float(amount)))
            case .crop(let rect): Wire.FilterOperation(operation: .crop(Wire.NormalizedRect(rect)))
            case .rotate(let turns): Wire.FilterOperation(operation: .rotateQuarterTurns(UInt32(clamping: turns)))
            case .mirror: Wire.FilterOperation(operation: .mirror(true))
            }
        })
    }

    /// The domain recipe, checked; an empty step, an unknown filter or a value out of range
    /// is `invalidArgument` naming the step.
    public func domain() throws(PhotoLibError) -> FilterRecipe {
        var operations: [FilterRecipe.Operation] = []
        for (index, step) in self.operations.enumerated() {
            let field = "FilterRecipe.operations[\(index)]"
            switch step.operation {
            case nil:
                throw PhotoLibError(.invalidArgument, "\(field) sets no operation")
            case .filter(let application):
                guard application.filter != .unspecified else {
                    throw PhotoLibError(.invalidArgument, "\(field).filter names no filter")
                }
                let name = try application.filter.domain(FilterName.self, field: "\(field).filter")
                operations.append(.filter(name, intensity: Double(application.intensity)))
            case .exposureEv(let ev): operations.append(.exposure(Double(ev)))
            case .contrast(let amount): operations.append(.contrast(Double(amount)))
            case .saturation(let amount): operations.append(.saturation(Double(amount)))
            case .crop(let rect): operations.append(.crop(NormalizedRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height)))
            case .rotateQuarterTurns(let turns): operations.append(.rotate(quarterTurns: Int(turns)))
            case .mirror(let on):
                guard on else { throw PhotoLibError(.invalidArgument, "\(field).mirror is false; leave the step out instead") }
                operations.append(.mirror)
            }
        }
        return try FilterRecipe(operations).validated()
    }
}

extension FilterRecipe {
    /// The recipe as adjustment data of format `formatIdentifier` version `formatVersion`.
    public var adjustmentData: AdjustmentData {
        AdjustmentData(
            formatIdentifier: Self.formatIdentifier, formatVersion: Self.formatVersion, data: Wire.FilterRecipe(self).encoded())
    }

    /// The recipe inside `adjustment`; `invalidArgument` when it is another format or version,
    /// or does not decode to a valid recipe.
    public init(adjustmentData adjustment: AdjustmentData) throws(PhotoLibError) {
        guard adjustment.formatIdentifier == Self.formatIdentifier, adjustment.formatVersion == Self.formatVersion else {
            throw PhotoLibError(
                .invalidArgument,
                "adjustment data of format \(adjustment.formatIdentifier) version \(adjustment.formatVersion) is not a filter recipe (\(Self.formatIdentifier) version \(Self.formatVersion))")
        }
        self = try Wire.FilterRecipe(decoding: adjustment.data).domain()
    }
}

extension Wire.ContentEditingInput {
    /// The message for `input`.
    public init(_ input: ContentEditingInput) {
        self.init(
            asset: Wire.Asset(input.asset), adjustmentData: input.adjustmentData.map(Wire.AdjustmentData.init),
            uniformTypeIdentifier: input.uniformTypeIdentifier, byteCount: UInt64(input.byteCount),
            editingSessionID: input.editingSessionID, fullSizeImageOrientation: UInt32(clamping: input.fullSizeImageOrientation),
            baseIsOriginal: input.base == .original, displaySizeImageByteCount: UInt64(input.displaySizeImageByteCount))
    }

    /// The domain value; an input without its asset, or with bad adjustment data, is `invalidArgument`.
    public func domain() throws(PhotoLibError) -> ContentEditingInput {
        guard let asset else { throw PhotoLibError(.invalidArgument, "ContentEditingInput carries no asset") }
        var input = ContentEditingInput(
            asset: Asset(asset), base: baseIsOriginal ? .original : .current, adjustmentData: try adjustmentData?.domain(),
            uniformTypeIdentifier: uniformTypeIdentifier, byteCount: Int(clamping: byteCount), editingSessionID: editingSessionID,
            fullSizeImageOrientation: Int(fullSizeImageOrientation))
        input.displaySizeImageByteCount = Int(clamping: displaySizeImageByteCount)
        return input
    }
}
