#!/usr/bin/env bash
# The farm's determinism, end to end: the image is the same bytes for any rank
# count, schedule, band size and threads per rank, and the same as a plain
# one-rank run without mpirun.
#   mpi_identical.sh FARMRT SOURCE_DIR MPIEXEC CASE...
# CASE is RANKS:SCHEDULE:BAND:THREADS (BAND "auto" = automatic), "mpmd":
# ranks started with different --threads in one job (as hybrid jobs are), or
# adaptive:RANKS:SCHEDULE: adaptive sampling (pixels stop at different counts),
# its image and its samples and variance AOVs.
set -euo pipefail
farmrt=$1 source_dir=$2 mpiexec=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scene="$source_dir/configs/tiny.yaml"
width=64 height=40
size=(--width $width --height $height --spp 6 --quiet)

"$farmrt" "$scene" "${size[@]}" -o "$work/reference.pfm"
"$farmrt" "$scene" "${size[@]}" -o "$work/reference.ppm"
# PPM headers carry the render time: compare the pixel bytes only.
pixels() { tail -c $((width * height * 3)) "$1"; }

first=1
check() {  # name, then the command, with OUT where the output path goes
    local name=$1 extension
    shift
    # Float sums compared exactly (PFM), and once per run the 8-bit pixels (PPM).
    for extension in pfm ppm; do
        [ $extension = pfm ] || [ $first = 1 ] || continue
        rm -f "$work"/out.*
        "${@//OUT/$work/out.$extension}"
        if [ $extension = pfm ] && ! cmp -s "$work/reference.pfm" "$work/out.pfm"; then
            echo "FAIL: $name: PFM differs from the one-rank render"
            exit 1
        fi
        if [ $extension = ppm ] && ! cmp -s <(pixels "$work/reference.ppm") <(pixels "$work/out.ppm"); then
            echo "FAIL: $name: PPM pixels differ from the one-rank render"
            exit 1
        fi
    done
    first=0
    echo "ok: $name"
}

adaptive=(--width $width --height $height --spp 40 --noise-threshold 0.05 --min-spp 2 --aov samples,variance --quiet)
adaptive_reference() {
    [ -f "$work/adaptive/reference.pfm" ] && return
    mkdir -p "$work/adaptive"
    "$farmrt" "$scene" "${adaptive[@]}" -o "$work/adaptive/reference.pfm" --stats "$work/adaptive/stats.json"
    # Not a test that cannot fail: some pixels stopped early, others did not;
    # --stats counts the samples the pixels took.
    local taken camera
    taken=$(grep -o '"samples_taken": [0-9]*' "$work/adaptive/stats.json" | grep -o '[0-9]*$')
    # One camera ray for each sample taken.
    camera=$(grep -o '"rays": {"camera": [0-9]*' "$work/adaptive/stats.json" | head -1 | grep -o '[0-9]*$')
    [ "$camera" = "$taken" ] || { echo "FAIL: --stats: $camera camera rays, $taken samples taken"; exit 1; }
    tail -c $((width * height * 4)) "$work/adaptive/reference.samples.pfm" | od -An -tf4 -v |
        awk -v taken="$taken" '{ for (i = 1; i <= NF; ++i) { sum += $i; if ($i < 40) early++; else full++ } }
             END { if (!early || !full) { print "FAIL: adaptive sampling: " early+0 " pixels stopped early, " full+0 " took every sample"; exit 1 }
                   if (sum != taken) { print "FAIL: --stats samples_taken " taken ", the samples AOV sums to " sum; exit 1 } }'
}
check_adaptive() {  # ranks, schedule
    adaptive_reference
    rm -f "$work"/adaptive/out.*
    "$mpiexec" -n "$1" "$farmrt" "$scene" "${adaptive[@]}" --schedule "$2" --threads 1 -o "$work/adaptive/out.pfm"
    for file in pfm samples.pfm variance.pfm; do
        if ! cmp -s "$work/adaptive/reference.$file" "$work/adaptive/out.$file"; then
            echo "FAIL: adaptive sampling, $1 ranks, $2: $file differs from the one-process render"
            exit 1
        fi
    done
    echo "ok: adaptive sampling, $1 ranks, $2"
}

for case in "$@"; do
    if [[ "$case" = adaptive:* ]]; then
        IFS=: read -r _ ranks schedule <<<"$case"
        check_adaptive "$ranks" "$schedule"
        continue
    fi
    if [ "$case" = mpmd ]; then
        check "mpmd 1x3 threads + 2x1 thread" "$mpiexec" -n 1 "$farmrt" "$scene" "${size[@]}" --threads 3 -o OUT \
            : -n 2 "$farmrt" "$scene" "${size[@]}" --threads 1 -o OUT
        continue
    fi
    IFS=: read -r ranks schedule band threads <<<"$case"
    options=(--schedule "$schedule" --threads "$threads")
    [ "$band" = auto ] || options+=(--band "$band")
    check "$case" "$mpiexec" -n "$ranks" "$farmrt" "$scene" "${size[@]}" "${options[@]}" -o OUT
done
