import PhotoLibImaging
/// Runs a call into one of the non-JPEG decoder shims (CPhotoLibHEIF, CPhotoLibPNG,
/// CPhotoLibWebP), which share CPhotoLibJPEG's status codes: as `LibJPEG/call(_:)`, except
/// that the shared "not this format" status becomes `ImagingError/Code/unsupportedFormat`
/// (the bytes looked like the format but its library does not recognise them).
enum DecoderCall {
    static func run(_ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) throws(ImagingError) {
        do {
            try LibJPEG.call(body)
        } catch where error.code == .notJPEG {
            throw ImagingError(code: .unsupportedFormat, message: error.message)
        }
    }
}
