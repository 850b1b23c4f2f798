#!/usr/bin/env bash
# image.alpha end to end: the colour and its alpha (NAME.alpha.pfm beside a
# PFM) are the same bytes on one thread without SIMD, on many, across ranks
# and after interruptions and resumes; a format without alpha is one line
# and exit 2, writing nothing.
#   image_alpha.sh FARMRT SOURCE_DIR [MPIEXEC]
set -euo pipefail
farmrt=$1 source_dir=$2 mpiexec=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scene="$source_dir/configs/tiny.yaml"
# The CPU tracer: on a GPU machine the interrupted render would end before
# its signal.
size=(--width 64 --height 40 --spp 12 --quiet --backend cpu --alpha)

same() {  # reference other label: the image and its alpha, byte for byte
    for suffix in .pfm .alpha.pfm; do
        if ! cmp -s "$work/$1$suffix" "$work/$2$suffix"; then
            echo "FAIL: $3: $2$suffix differs from $1$suffix"
            exit 1
        fi
    done
}

"$farmrt" "$scene" "${size[@]}" -o "$work/reference.pfm"
# The alpha is a real matte: transparent and opaque pixels both occur.
python3 - "$work/reference.alpha.pfm" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
header = data.split(b'\n', 3)
assert header[0] == b'Pf', header[0]
values = struct.unpack('<%df' % (len(header[3]) // 4), header[3])
if not (min(values) == 0.0 and max(values) == 1.0):
    sys.exit(f"FAIL: alpha spans {min(values)}..{max(values)}, expected 0 and 1 both")
PY
"$farmrt" "$scene" "${size[@]}" --threads 1 --simd off -o "$work/scalar.pfm"
same reference scalar "one thread without SIMD"
"$farmrt" "$scene" "${size[@]}" --threads 2 --tile 5 --band 3 --pass-samples 5 -o "$work/split.pfm"
same reference split "other tiles, bands and passes"
if [ -n "$mpiexec" ] && "$mpiexec" -n 1 true >/dev/null 2>&1; then
    "$mpiexec" -n 3 "$farmrt" "$scene" "${size[@]}" --band 3 --threads 1 -o "$work/ranks.pfm"
    same reference ranks "3 ranks"
fi

# Interrupted (the test hook raises SIGTERM) and resumed until done.
status=0
"$farmrt" "$scene" "${size[@]}" --band 8 --pass-samples 3 --test-signal-after-items 2 -o "$work/resumed.pfm" ||
    status=$?
[ $status -eq 75 ] || { echo "FAIL: the interrupted render exits $status, expected 75"; exit 1; }
for attempt in $(seq 1 40); do
    status=0
    "$farmrt" "$scene" "${size[@]}" --band 8 --pass-samples 3 --resume --test-signal-after-items 3 \
        -o "$work/resumed.pfm" || status=$?
    [ $status -eq 0 ] && break
    [ $status -eq 75 ] || { echo "FAIL: resume $attempt exits $status"; exit 1; }
done
same reference resumed "interrupted and resumed"

# A format without an alpha channel: one line naming image.alpha, exit 2.
status=0
"$farmrt" "$scene" "${size[@]}" -o "$work/bad.jpg" 2>"$work/err" || status=$?
if [ $status -ne 2 ] || [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -qF -- "--alpha: image.alpha: .jpg images have no alpha" \
    "$work/err" || [ -e "$work/bad.jpg" ]; then
    echo "FAIL: alpha to a JPEG: exit $status, expected 2 and one line:"
    cat "$work/err"
    exit 1
fi
echo "image.alpha: every check passed"
