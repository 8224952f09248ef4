import Foundation
import PhotoLibImaging
import PhotoLibWire

/// The image to edit and what to apply first: PhotoKit's `PHContentEditingInput` with its
/// full-size image's bytes.
public struct ContentEditingInputData: Sendable, Hashable {
    /// The largest full-size image accepted: 256 MiB.
    public static let maxImageBytes = 256 << 20

    /// The input: asset, base (original or render), adjustment data, session.
    public var input: ContentEditingInput
    /// The full-size image, JPEG (EXIF orientation `input.fullSizeImageOrientation`). For a
    /// HEIC, PNG or WebP original this is the server's JPEG rendition of it (its editing base:
    /// full size, upright, orientation 1), on which the server renders recipes too.
    public var fullSizeImage: [UInt8]
    /// The image scaled to the display size asked for, upright (PhotoKit's
    /// `displaySizeImage`); `nil` when none was asked for.
    public var displaySizeImage: [UInt8]?
}

/// An edit ready to commit: PhotoKit's `PHContentEditingOutput`.
///
/// Set ``adjustmentData`` (the recipe) and ``renderedJPEGData`` (the full-size result,
/// upright), then commit with `PhotoLibrary.commitContentEdit(_:)`. For PhotoLib's own format
/// (`FilterRecipe`) the render may be left out: the server renders the recipe itself.
public struct ContentEditingOutput: Sendable, Hashable {
    /// The asset being edited.
    public let assetIdentifier: String
    /// The session of the input the edit started from.
    public let editingSessionID: String
    /// The recipe.
    public var adjustmentData: AdjustmentData?
    /// The rendered full-size JPEG.
    public var renderedJPEGData: [UInt8]?

    /// An output for `input` (`PHContentEditingOutput(contentEditingInput:)`).
    public init(input: ContentEditingInput) {
        self.assetIdentifier = input.asset.localIdentifier
        self.editingSessionID = input.editingSessionID
    }
}

extension FilterRecipe {
    /// This recipe rendered on `jpeg` (a content-editing input's full-size image: the original,
    /// or for a HEIC, PNG or WebP original the JPEG the server made of it) at full size: the same
    /// code, and so the same bytes, as the server's render.
    ///
    /// Throws `invalidArgument` for a recipe value out of range, and `failedPrecondition` for
    /// an image that does not decode — naming the format when it is a HEIC, PNG or WebP, which
    /// the client does not decode (a server hands such originals over as JPEG).
    public func renderedJPEG(from jpeg: [UInt8]) throws(PhotoLibError) -> [UInt8] {
        if let format = ImageFormat.detect(jpeg), format != .jpeg {
            throw PhotoLibError(
                .failedPrecondition,
                "cannot render the filter recipe on a \(format.name) image: PhotoLibClient renders on JPEG alone (a server gives a \(format.name) original's editing input as a JPEG; commit the recipe without a render to have the server render it)")
        }
        do {
            return try RecipeRenderer.render(jpeg, recipe: self).jpeg
        } catch {
            throw PhotoLibError(error.code == .invalidArgument ? .invalidArgument : .failedPrecondition, "cannot render the filter recipe: \(error.message)")
        }
    }
}

extension PhotoLibrary {
    /// `requestContentEditingInput(with:)`: the input for editing the asset and its full-size
    /// image. List in `formats` the adjustment formats this app can apply (PhotoKit's
    /// `canHandleAdjustmentData`): when the asset's edit is in one of them the image is the
    /// original and `input.adjustmentData` the recipe to apply first; otherwise it is the
    /// current render. With `displaySize` (64…4096 pixels on the longer side) the server also
    /// sends the image scaled to fit it. `progress` gets the fraction of the full-size image
    /// received; cancelling the task cancels the transfer, and the call throws
    /// `PhotoLibError` with code `cancelled` (as a cancelled image request does).
    public func requestContentEditingInput(
        for assetIdentifier: String, canHandle formats: [AdjustmentFormat] = [], displaySize: Int? = nil,
        progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> ContentEditingInputData {
        let parts = try await connection.serverStreaming(
            PhotoLibraryMethods.requestContentEditingInput,
            Wire.ContentEditingInputRequest(
                assetIdentifier: assetIdentifier, canHandle: formats.map(Wire.AdjustmentFormat.init),
                displaySizeImageMaxSide: UInt32(clamping: displaySize ?? 0)))
        var input: ContentEditingInput?
        var image: [UInt8] = []
        var display: [UInt8] = []
        for try await part in parts {
            // A cancelled task's iteration ends early (or hands over parts already received):
            // stop at once, with the error every cancelled call throws.
            try Self.checkCancellation()
            switch part.part {
            case .input(let message)?:
                guard input == nil else { throw PhotoLibError(.internalError, "the server sent a second ContentEditingInput") }
                let decoded = try message.domain()
                guard decoded.byteCount <= ContentEditingInputData.maxImageBytes,
                    decoded.displaySizeImageByteCount <= ContentEditingInputData.maxImageBytes
                else {
                    throw PhotoLibError(.resourceExhausted, "the images announced (\(decoded.byteCount) and \(decoded.displaySizeImageByteCount) bytes) are over \(ContentEditingInputData.maxImageBytes) bytes")
                }
                image.reserveCapacity(decoded.byteCount)
                input = decoded
                progress?(decoded.byteCount == 0 ? 1 : 0)
            case .displaySizeImageData(let bytes)?:
                guard let expected = input?.displaySizeImageByteCount, display.count + bytes.count <= expected, image.isEmpty else {
                    throw PhotoLibError(.internalError, "the server sent display-size image bytes it did not announce")
                }
                display += bytes
            case .data(let bytes)?:
                guard let expected = input?.byteCount else { throw PhotoLibError(.internalError, "image bytes arrived before the ContentEditingInput") }
                guard image.count + bytes.count <= expected else {
                    throw PhotoLibError(.internalError, "the server sent more than the \(expected) bytes it announced")
                }
                image += bytes
                progress?(Double(image.count) / Double(max(expected, 1)))
            case nil:
                continue
            }
        }
        try Self.checkCancellation()
        guard let input else { throw PhotoLibError(.internalError, "RequestContentEditingInput ended without an input") }
        guard image.count == input.byteCount, display.count == input.displaySizeImageByteCount else {
            throw PhotoLibError(.unavailable, "the input ended early: \(image.count) of \(input.byteCount) full-size bytes, \(display.count) of \(input.displaySizeImageByteCount) display-size bytes")
        }
        return ContentEditingInputData(input: input, fullSizeImage: image, displaySizeImage: input.displaySizeImageByteCount > 0 ? display : nil)
    }

    /// Throws `cancelled` when the current task is cancelled: the end of a stream whose
    /// iteration the cancellation ended is not the server's end.
    private static func checkCancellation() throws(PhotoLibError) {
        if Task.isCancelled { throw PhotoLibError(.cancelled, "RequestContentEditingInput was cancelled") }
    }

    /// Commits `output` in a batch of its own: uploads the render (when there is one), then
    /// `PerformChanges` with the edit. Fails with `aborted` when the asset was edited since the
    /// input was requested.
    @discardableResult
    public func commitContentEdit(_ output: ContentEditingOutput) async throws -> ChangeBatchResult {
        let upload = try await output.renderedJPEGData.asyncMap { try await self.upload($0, filename: "FullSizeRender.jpg") }
        return try await performChanges { batch in try batch.commitContentEdit(output, renderedUpload: upload) }
    }

    /// `revertAssetContentToOriginal()` for each asset, in one batch.
    @discardableResult
    public func revertAssetContentToOriginal(_ assetIdentifiers: [String]) async throws -> ChangeBatchResult {
        try await performChanges(assetIdentifiers.map { ChangeRequest.revertAssetContent($0) })
    }
}

extension ChangeBatch {
    /// `PHAssetChangeRequest.contentEditingOutput`: commits `output` in this batch, its render
    /// uploaded beforehand as `renderedUpload` (`nil` only for PhotoLib's own format).
    public func commitContentEdit(_ output: ContentEditingOutput, renderedUpload: Upload?) throws(PhotoLibError) {
        guard let adjustment = output.adjustmentData else {
            throw PhotoLibError(.invalidArgument, "a ContentEditingOutput needs adjustment data before it is committed")
        }
        append(.commitContentEdit(ContentEdit(
            asset: output.assetIdentifier, editingSessionID: output.editingSessionID, adjustmentData: adjustment,
            renderedUploadID: renderedUpload?.uploadID)))
    }

    /// `PHAssetChangeRequest.revertAssetContentToOriginal()`.
    public func revertAssetContentToOriginal(_ asset: String) {
        append(.revertAssetContent(asset))
    }
}

extension Optional {
    /// The async `map`.
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
