#!/usr/bin/env bash
# image.region (--crop) end to end: a window of the frame is the same floats
# as that window of the whole frame (image and AOVs, adaptive sampling too),
# on one thread without SIMD, on many, and dealt across ranks; an EXR says
# where it sits (data window inside the display window); bad windows are one
# line and exit 2, writing nothing.
#   image_region.sh FARMRT SOURCE_DIR [MPIEXEC]
set -euo pipefail
farmrt=$1 source_dir=$2 mpiexec=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scene="$source_dir/configs/tiny.yaml"
size=(--width 64 --height 40 --spp 6 --quiet)
window=10,37,5,29

# Whether PFM `crop` (and its AOV `crop.NAME.pfm` files) holds the floats of
# window x0,x1,y0,y1 of PFM `full`, bit for bit.
same_window() {  # full crop window label
    python3 - "$1" "$2" "$3" "$4" <<'PY'
import sys

def read_pfm(path):
    with open(path, 'rb') as f:
        data = f.read()
    fields, at = [], 0
    while len(fields) < 4:  # PF, width, height, scale: whitespace separated
        while data[at:at + 1].isspace():
            at += 1
        end = at
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[at:end])
        at = end
    at += 1
    width, height = int(fields[1]), int(fields[2])
    channels = 3 if fields[0] == b'PF' else 1
    row = width * channels * 4
    rows = [data[at + r * row:at + (r + 1) * row] for r in range(height)][::-1]  # PFM rows run bottom to top
    return width, height, channels, rows

full_path, crop_path, window, label = sys.argv[1:]
x0, x1, y0, y1 = map(int, window.split(','))
width, height, channels, full = read_pfm(full_path)
crop_width, crop_height, crop_channels, crop = read_pfm(crop_path)
if (crop_width, crop_height, crop_channels) != (x1 - x0, y1 - y0, channels):
    sys.exit(f"FAIL: {label}: {crop_path} is {crop_width}x{crop_height}, expected {x1 - x0}x{y1 - y0}")
step = channels * 4
for y in range(y0, y1):
    if full[y][x0 * step:x1 * step] != crop[y - y0]:
        sys.exit(f"FAIL: {label}: row {y} of the window differs from the whole frame's")
PY
}

"$farmrt" "$scene" "${size[@]}" --aov depth,samples -o "$work/full.pfm"
"$farmrt" "$scene" "${size[@]}" --aov depth,samples -o "$work/crop.pfm" --crop $window
for name in "" .depth .samples; do
    same_window "$work/full$name.pfm" "$work/crop$name.pfm" $window "window of the image$name"
done
# The window at the frame's corners, one pixel wide, and the whole frame as a window.
for corner in 0,1,0,40 63,64,39,40 0,64,0,40; do
    "$farmrt" "$scene" "${size[@]}" -o "$work/corner.pfm" --crop $corner
    same_window "$work/full.pfm" "$work/corner.pfm" $corner "window $corner"
done
# One thread without SIMD: the scalar tracer's rays and random numbers.
"$farmrt" "$scene" "${size[@]}" --threads 1 --simd off -o "$work/scalar.pfm" --crop $window
same_window "$work/full.pfm" "$work/scalar.pfm" $window "scalar window"
# Adaptive sampling: each pixel stops where it stops in the whole frame.
adaptive=(--width 64 --height 40 --quiet --noise-threshold 0.2 --min-spp 2 --spp 24)
"$farmrt" "$scene" "${adaptive[@]}" --aov samples -o "$work/adaptive_full.pfm"
"$farmrt" "$scene" "${adaptive[@]}" --aov samples -o "$work/adaptive_crop.pfm" --crop $window
same_window "$work/adaptive_full.pfm" "$work/adaptive_crop.pfm" $window "adaptive window"
same_window "$work/adaptive_full.samples.pfm" "$work/adaptive_crop.samples.pfm" $window "adaptive sample counts"

# Ranks deal the window's rows only, and give its bytes.
if [ -n "$mpiexec" ] && "$mpiexec" -n 1 true >/dev/null 2>&1; then
    "$mpiexec" -n 3 "$farmrt" "$scene" "${size[@]}" --band 3 --threads 1 -o "$work/ranks.pfm" --crop $window
    same_window "$work/full.pfm" "$work/ranks.pfm" $window "window on 3 ranks"
fi

# An EXR's data window sits at the region inside the frame's display window.
if "$farmrt" --version | grep -q OpenImageIO && command -v oiiotool >/dev/null; then
    "$farmrt" "$scene" "${size[@]}" -o "$work/crop.exr" --crop $window
    info=$(oiiotool --info -v "$work/crop.exr")
    for expected in "27 x   24" "pixel data origin: x=10, y=5" "full/display size: 64 x 40"; do
        if ! grep -qF "$expected" <<<"$info"; then
            echo "FAIL: crop.exr: '$expected' not in: $info"
            exit 1
        fi
    done
fi

# Bad windows: one line naming image.region, exit 2, nothing written.
bad() {  # window expected-text
    local status=0
    "$farmrt" "$scene" "${size[@]}" -o "$work/bad.pfm" --crop "$1" 2>"$work/err" || status=$?
    if [ $status -ne 2 ] || [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -qF -- "$2" "$work/err" ||
        [ -e "$work/bad.pfm" ]; then
        echo "FAIL: --crop $1: exit $status, expected 2 and one line with '$2':"
        cat "$work/err"
        exit 1
    fi
}
bad 0,65,0,10 "--crop 0,65,0,10: image.region[1]: x1 = 65 is beyond the frame's width of 64"
bad 0,10,0,41 "image.region[3]: y1 = 41 is beyond the frame's height of 40"
bad 5,5,0,10 "image.region: x0 < x1 and y0 < y1 needed, got [5, 5, 0, 10]"
bad 0,10,20,10 "x0 < x1 and y0 < y1 needed"
bad 1,2,3 "image.region: expected [x0, x1, y0, y1]"
bad 1,2,3,x "image.region[3]: expected an integer, got 'x'"
bad -1,2,3,4 "image.region[0]: must be between 0 and"
echo "image.region: every check passed"
