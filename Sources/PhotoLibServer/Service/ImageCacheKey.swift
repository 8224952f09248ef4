import Crypto
import PhotoLibCore

/// Identifies one rendered image variant: which asset and content, at what size and how.
///
/// Two requests with equal keys get byte-identical images. The content version (see
/// `PhotoLibrary.imageSource(forAsset:)`) changes whenever the asset's pixels may have
/// changed, so stale entries are never found again (and are evicted by their budgets).
struct ImageCacheKey: Hashable, Sendable {
    /// Final image, or the degraded one of opportunistic / fast delivery.
    enum Variant: String, Sendable {
        case final
        case degraded
        /// The editing base of a HEIC, PNG or WebP original (see ``editingBase(asset:originalSHA256:)``).
        case editingBase
    }

    var assetIdentifier: String
    var contentVersion: String
    var targetSize: PixelSize
    var contentMode: ContentMode
    var resizeMode: ResizeMode
    var version: ImageVersion
    var crop: NormalizedRect?
    var variant: Variant

    /// Hashes every field but ``contentVersion``: a long string (about 90 bytes) that is
    /// hashed on every memory-cache lookup, while the cache holds one content version per
    /// asset at a time (older ones are dropped when a newer one is seen), so leaving it out
    /// costs no collisions. Equality still compares every field.
    func hash(into hasher: inout Hasher) {
        hasher.combine(assetIdentifier)
        hasher.combine(targetSize)
        hasher.combine(contentMode)
        hasher.combine(resizeMode)
        hasher.combine(version)
        hasher.combine(crop)
        hasher.combine(variant)
    }

    /// The key of the editing base of `asset`'s original (`StillImageRenderer.editingBase`:
    /// full size, upright, a JPEG). The base depends on the original's bytes alone, so its
    /// content version is their SHA-256: edits and reverts, which change the asset's content
    /// version, leave it cached. It is filed under an identifier of its own (the memory
    /// cache keeps one content version per identifier: under the asset's, the base and the
    /// asset's renders would drop each other).
    static func editingBase(asset: String, originalSHA256: String) -> ImageCacheKey {
        ImageCacheKey(
            assetIdentifier: asset + "|editing-base", contentVersion: "original-sha256:" + originalSHA256, targetSize: .maximum,
            contentMode: .aspectFit, resizeMode: .none, version: .original, crop: nil, variant: .editingBase)
    }

    /// The same render with another variant.
    func with(_ variant: Variant) -> ImageCacheKey {
        var copy = self
        copy.variant = variant
        return copy
    }

    /// Asset and content, without the render parameters (groups an asset's entries).
    var contentKey: String { assetIdentifier + "|" + contentVersion }

    /// A canonical text form (every field, fixed order).
    var canonical: String {
        let cropText = crop.map { "\($0.x),\($0.y),\($0.width),\($0.height)" } ?? "-"
        return "v1|\(assetIdentifier)|\(contentVersion)|\(targetSize.width)x\(targetSize.height)|m\(contentMode.rawValue)|r\(resizeMode.rawValue)|v\(version.rawValue)|c\(cropText)|\(variant.rawValue)"
    }

    /// The lowercase hex SHA-256 of ``canonical``: the disk cache's file name.
    var digest: String {
        SHA256.hash(data: Array(canonical.utf8)).map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
        }.joined()
    }
}

/// A rendered image as the caches hold it.
struct CachedImage: Sendable {
    var jpeg: [UInt8]
    var width: Int
    var height: Int
    /// Whether it is a degraded (lower quality) image.
    var degraded: Bool
}
