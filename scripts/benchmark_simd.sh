#!/usr/bin/env bash
# Whole-frame samples per second of the CPU tracer, scalar vs each SIMD level
# this CPU supports, on 1 thread and on all threads, for configs/spheres.yaml
# and configs/many_spheres.yaml (10,404 spheres) at a fixed size. Every figure
# is the median of REPEATS runs; the runs of all levels are interleaved, so
# that a noisy machine slows them alike, and ratios are taken within this run.
#   scripts/benchmark_simd.sh [BUILD_DIR] [> results/simd_frames.md]
# Environment: WIDTH HEIGHT SPP (1-thread runs) SPP_ALL (all-thread runs;
# default SPP * threads / 2 so that both take similar time) REPEATS SCENES
# THREADS (default "1 all") LEVELS (default: every supported level) RAW (file
# for every single run).
set -euo pipefail
build=${1:-build}
farmrt=$build/farmrt
width=${WIDTH:-300}
height=${HEIGHT:-169}
spp=${SPP:-8}
repeats=${REPEATS:-5}
scenes=${SCENES:-"configs/spheres.yaml configs/many_spheres.yaml"}
threads_all=$(nproc)
spp_all=${SPP_ALL:-$(( spp * threads_all / 2 > spp ? spp * threads_all / 2 : spp ))}
thread_counts=${THREADS:-"1 all"}
raw=${RAW:-/dev/null}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -z "${LEVELS:-}" ]; then
    LEVELS=off
    for level in sse4.2 avx2 avx512; do
        if "$farmrt" configs/tiny.yaml --width 4 --height 4 --spp 1 --backend cpu --simd "$level" -o "$tmp/probe.pfm" --quiet 2>/dev/null; then
            LEVELS="$LEVELS $level"
        fi
    done
fi

# scene threads spp level -> samples/s of the render phase
run_once() {
    "$farmrt" "$1" --width "$width" --height "$height" --spp "$3" --threads "$2" --backend cpu --simd "$4" \
        -o "$tmp/out.pfm" --stats "$tmp/stats.json" --quiet
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["samples_per_second"])' "$tmp/stats.json"
}

echo "# SIMD CPU tracer: whole frames"
echo
echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $threads_all hardware threads, $(uname -sr)"
echo "- command: scripts/benchmark_simd.sh $build (${width}x${height}, $spp spp on 1 thread, $spp_all spp on $threads_all threads, median of $repeats interleaved runs)"
echo "- farmrt: $($farmrt --version); levels: $LEVELS"
echo
echo "| scene | threads | level | samples/s | vs scalar | parallel efficiency |"
echo "|---|---:|---|---:|---:|---:|"
for scene in $scenes; do
    declare -A median=()
    for threads in $thread_counts; do
        [ "$threads" = all ] && threads=$threads_all
        run_spp=$spp
        [ "$threads" != 1 ] && run_spp=$spp_all
        declare -A values=()
        for repeat in $(seq "$repeats"); do
            for level in $LEVELS; do
                value=$(run_once "$scene" "$threads" "$run_spp" "$level")
                values[$level]="${values[$level]:-} $value"
                echo "$scene threads=$threads spp=$run_spp level=$level run=$repeat samples_per_second=$value" >> "$raw"
            done
        done
        for level in $LEVELS; do
            median[$threads,$level]=$(printf '%s\n' ${values[$level]} | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
        done
        for level in $LEVELS; do
            m=${median[$threads,$level]}
            ratio=$(python3 -c "print(f'{$m/${median[$threads,off]}:.2f}x')")
            efficiency="-"
            if [ "$threads" != 1 ] && [ -n "${median[1,$level]:-}" ]; then
                efficiency=$(python3 -c "print(f'{100*$m/($threads*${median[1,$level]}):.0f}%')")
            fi
            name=$level
            [ "$level" = off ] && name=scalar
            printf '| %s | %s | %s | %.4g | %s | %s |\n' "$(basename "$scene")" "$threads" "$name" "$m" "$ratio" "$efficiency"
        done
        unset values
    done
    unset median
done
