#!/usr/bin/env bash
# Makes Tests/Fixtures/media/progressive/: small progressive JPEGs of every shape the 1/8
# scan-skipping decode must handle (Sources/CPhotoLibJPEG/plj_scans.c), from the bridge photo.
# Run by Scripts/make-media-fixtures, or alone. Needs python3-pil and libjpeg-turbo-progs
# (cjpeg, jpegtran), both in Scripts/install-deps. Output is deterministic for a given
# libjpeg-turbo and PIL.
#
#   prog444 / prog420 / prog422 / prog440 / gray: baseline cjpeg -sample, then jpegtran
#       -progressive (libjpeg's default script: DC at Al=1, refined to Al=0 in a later scan)
#   prog420_restart: jpegtran -progressive -restart 2 (restart markers every 2 MCU rows)
#   prog420_custom_scans: a jpegtran -scans script with non-interleaved DC scans refined twice
#       (Al 2 → 1 → 0, the last refinement after every AC scan), luma AC split into bands and
#       refined, and a chroma band (zig-zag 3, row 2 column 0) that a 1/8 decode never reads
#   prog444_incomplete_ac: the luma AC is never refined to Al=0, so libjpeg's full decode
#       smooths its blocks and the scan skipping steps aside
#   prog444_no_luma_ac: the luma AC is never sent, so libjpeg's full decode smooths even the
#       DC of luma blocks (jdcoefct.c, change_dc): decoding the DC scan alone without
#       smoothing would differ in thousands of bytes, and the scan skipping steps aside
#   prog420_truncated: the first 60 % of prog420 (both decodes must refuse it)
# Each image is 401x267 (not a multiple of the MCU), so edge blocks are covered too.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$root/Tests/Fixtures/media/progressive"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
/usr/bin/python3 - "$root" "$work" <<'PY'
import sys
from PIL import Image
root, work = sys.argv[1:3]
photo = Image.open(f"{root}/Tests/Fixtures/photos/p05_bridge_4352x2448_prog422_q90.jpg")
photo.draft("RGB", (1088, 612))
photo = photo.convert("RGB").resize((401, 267), Image.LANCZOS)
photo.save(f"{work}/bridge.ppm")
photo.convert("L").save(f"{work}/bridge.pgm")
PY
baseline() { cjpeg -quality 85 -optimize "$@"; }
baseline -sample 1x1 "$work/bridge.ppm" > "$work/444.jpg"
baseline -sample 2x2 "$work/bridge.ppm" > "$work/420.jpg"
baseline -sample 2x1 "$work/bridge.ppm" > "$work/422.jpg"
baseline -sample 1x2 "$work/bridge.ppm" > "$work/440.jpg"
baseline -grayscale "$work/bridge.pgm" > "$work/gray.jpg"
for kind in 444 420 422 440 gray; do
  jpegtran -copy none -progressive "$work/$kind.jpg" > "$out/prog${kind}.jpg"
done
jpegtran -copy none -progressive -restart 2 "$work/420.jpg" > "$out/prog420_restart.jpg"
cat > "$work/custom.scans" <<'SCANS'
0: 0-0, 0, 2;
1: 0-0, 0, 2;
2: 0-0, 0, 2;
0: 1-2, 0, 1;
0: 3-9, 0, 0;
1: 1-63, 0, 1;
2: 1-2, 0, 0;
2: 3-3, 0, 0;
2: 4-63, 0, 0;
0: 10-63, 0, 0;
0,1,2: 0-0, 2, 1;
0: 1-2, 1, 0;
1: 1-63, 1, 0;
0,1,2: 0-0, 1, 0;
SCANS
jpegtran -copy none -scans "$work/custom.scans" "$work/420.jpg" > "$out/prog420_custom_scans.jpg"
cat > "$work/incomplete.scans" <<'SCANS'
0,1,2: 0-0, 0, 0;
0: 1-63, 0, 1;
1: 1-63, 0, 0;
2: 1-63, 0, 0;
SCANS
jpegtran -copy none -scans "$work/incomplete.scans" "$work/444.jpg" > "$out/prog444_incomplete_ac.jpg"
printf '0,1,2: 0-0, 0, 0;\n1: 1-63, 0, 0;\n2: 1-63, 0, 0;\n' > "$work/no_luma_ac.scans"
jpegtran -copy none -scans "$work/no_luma_ac.scans" "$work/444.jpg" > "$out/prog444_no_luma_ac.jpg"
size=$(stat -c %s "$out/prog420.jpg")
head -c $((size * 6 / 10)) "$out/prog420.jpg" > "$out/prog420_truncated.jpg"
ls -l "$out"
