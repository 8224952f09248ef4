package import CPhotoLibJPEG

/// Lets another thread stop a running render and see how far it got.
///
/// The C decode loop polls the flag between scanline batches (libjpeg's progress
/// monitor runs once per input row while scans are absorbed and once per output row), and
/// the encoder every 16 rows; video sessions check it on every read of the file and through
/// FFmpeg's interrupt callback. A cancelled render throws ``ImagingError/Code/cancelled``.
/// One control may serve several renders of the same request (degraded, then final).
public final class RenderControl: @unchecked Sendable {
    /// The shared C state; its fields are only touched through atomic builtins in the shim.
    package let pointer: UnsafeMutablePointer<CPhotoLibJPEG_Control>

    /// Creates a control that is not cancelled, with progress 0.
    public init() {
        guard let pointer = CPhotoLibJPEG_control_new() else {
            fatalError("out of memory allocating a 8-byte render control")
        }
        self.pointer = pointer
    }

    deinit {
        CPhotoLibJPEG_control_free(pointer)
    }

    /// Asks every render using this control to stop at its next check.
    public func cancel() {
        CPhotoLibJPEG_control_cancel(pointer)
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool {
        CPhotoLibJPEG_control_is_cancelled(pointer) != 0
    }

    /// How far the current decode is, 0...1.
    public var progress: Double {
        Double(CPhotoLibJPEG_control_progress(pointer)) / 1000
    }

    /// Throws ``ImagingError/Code/cancelled`` once cancelled (checks between pipeline stages).
    package func check() throws(ImagingError) {
        if isCancelled {
            throw ImagingError(code: .cancelled, message: "the image work was cancelled")
        }
    }
}
