/// How a rendered image relates to its target size (PhotoKit's `PHImageContentMode`).
public enum ImageContentMode: Sendable, Hashable {
    /// The largest size that fits inside the target; aspect ratio kept.
    case aspectFit
    /// The smallest size that covers the target; aspect ratio kept, nothing cropped
    /// (so one side may exceed the target, as in PhotoKit).
    case aspectFill
}
