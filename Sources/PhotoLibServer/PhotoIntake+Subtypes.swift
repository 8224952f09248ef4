import Foundation
import PhotoLibCore
import PhotoLibImaging
import PhotoLibMedia

extension PhotoIntake {
    /// Screen sizes of phones, tablets and computers (portrait; either way round matches): a
    /// picture of exactly one of them without camera metadata is a screenshot.
    static let screenSizes: Set<PixelSize> = [
        PixelSize(width: 640, height: 1136), PixelSize(width: 750, height: 1334), PixelSize(width: 828, height: 1792),
        PixelSize(width: 1080, height: 1920), PixelSize(width: 1080, height: 2340), PixelSize(width: 1125, height: 2436),
        PixelSize(width: 1170, height: 2532), PixelSize(width: 1179, height: 2556), PixelSize(width: 1206, height: 2622),
        PixelSize(width: 1242, height: 2208), PixelSize(width: 1242, height: 2688), PixelSize(width: 1284, height: 2778),
        PixelSize(width: 1290, height: 2796), PixelSize(width: 1320, height: 2868), PixelSize(width: 1440, height: 3120),
        PixelSize(width: 1536, height: 2048), PixelSize(width: 1620, height: 2160), PixelSize(width: 1640, height: 2360),
        PixelSize(width: 1668, height: 2388), PixelSize(width: 2048, height: 2732), PixelSize(width: 768, height: 1366),
        PixelSize(width: 800, height: 1280), PixelSize(width: 900, height: 1440),
        PixelSize(width: 1440, height: 2560), PixelSize(width: 1600, height: 2560), PixelSize(width: 1800, height: 2880),
        PixelSize(width: 2160, height: 3840), PixelSize(width: 1964, height: 3024),
    ]

    /// The subtypes a still's metadata shows (PhotoKit's `mediaSubtypes`):
    /// - `photoScreenshot`: the EXIF (or XMP) UserComment says "Screenshot", as iOS writes it,
    ///   or the picture has no camera metadata and exactly a screen's size;
    /// - `photoPanorama`: camera metadata and an aspect of at least 2:1, or Apple's flag
    ///   (EXIF CustomRendered 6);
    /// - `photoHDR`: EXIF CustomRendered 2 or 3 (an iPhone's HDR photo) or 7 (portrait HDR).
    static func subtypes(of info: StillImageInfo) -> MediaSubtypes {
        var subtypes: MediaSubtypes = []
        let comment = info.userComment?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let portrait = PixelSize(width: min(info.pixelWidth, info.pixelHeight), height: max(info.pixelWidth, info.pixelHeight))
        if comment == "screenshot" || (!info.hasCameraMetadata && screenSizes.contains(portrait)) {
            subtypes.insert(.photoScreenshot)
        }
        if (info.hasCameraMetadata && portrait.height >= 2 * portrait.width) || info.customRendered == 6 {
            subtypes.insert(.photoPanorama)
        }
        if let rendered = info.customRendered, [2, 3, 7].contains(rendered) {
            subtypes.insert(.photoHDR)
        }
        return subtypes
    }
}
