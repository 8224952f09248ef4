/// Renders JPEGs at a requested size, upright, as new JPEGs.
///
/// One entry point renders: ``render(_:request:limits:control:)`` (with
/// ``renderDegraded(_:request:limits:control:)`` for the quick first image and
/// ``plan(_:request:limits:)`` for the geometry alone).
///
/// The output size follows PhotoKit. Let (W, H) be the upright size (after EXIF
/// orientation; swapped for orientations 5...8) and (tw, th) the target:
/// - `aspectFit`: s = min(tw/W, th/H), the largest size inside the target;
/// - `aspectFill`: s = max(tw/W, th/H), the smallest size covering the target, aspect kept,
///   not cropped (one side may exceed the target);
/// - never upscale: s = min(s, 1), so a target larger than the photo gives (W, H);
/// - otherwise the constrained side (the one s was taken from) equals its target exactly,
///   and the other side is `max(1, Int((other * s).rounded()))`.
///
/// See ``outputSize(uprightWidth:uprightHeight:targetWidth:targetHeight:contentMode:)``.
///
/// Encoding: baseline, 4:2:0 for colour, optimised Huffman tables, no EXIF. Grayscale stays
/// grayscale; CMYK/YCCK become RGB.
///
/// Related libjpeg documentation: libjpeg.txt, "Decompression parameter selection"
/// (scale_num/scale_denom), "Compression parameter selection" (jpeg_set_quality).
public enum JPEGRenderer {}
