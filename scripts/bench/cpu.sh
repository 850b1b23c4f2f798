#!/usr/bin/env bash
# Samples per second of the CPU tracer on configs/spheres.yaml at a fixed size:
# 1 thread and all threads, with the BVH and with a linear list of primitives.
# Each figure is the median of REPEATS runs; ratios are taken within this run.
#   scripts/bench/cpu.sh [BUILD_DIR] [> results/cpu_benchmark.md]
# Environment: WIDTH HEIGHT SPP REPEATS SCENE EXTRA (extra farmrt options).
set -euo pipefail
build=${1:-build}
farmrt=$build/farmrt
scene=${SCENE:-configs/spheres.yaml}
width=${WIDTH:-300}
height=${HEIGHT:-169}
spp=${SPP:-8}
repeats=${REPEATS:-3}
threads_all=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run_median() {  # threads, extra options... -> median samples/s
    local threads=$1; shift
    local values=()
    for _ in $(seq "$repeats"); do
        "$farmrt" "$scene" --width "$width" --height "$height" --spp "$spp" --threads "$threads" \
            -o "$tmp/out.pfm" --stats "$tmp/stats.json" --quiet ${EXTRA:-} "$@"
        values+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["samples_per_second"])' "$tmp/stats.json")")
    done
    printf '%s\n' "${values[@]}" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'
}

echo "# CPU tracer benchmark"
echo
echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $threads_all hardware threads, $(uname -sr)"
echo "- command: scripts/bench/cpu.sh $build (scene $scene, ${width}x${height}, $spp spp, median of $repeats)"
echo "- farmrt: $($farmrt --version)"
echo
echo "| acceleration | threads | samples/s | vs linear list (same threads) |"
echo "|---|---:|---:|---:|"
for threads in 1 "$threads_all"; do
    bvh=$(run_median "$threads")
    linear=$(run_median "$threads" --linear-list)
    ratio=$(python3 -c "print(f'{$bvh/$linear:.1f}x')")
    printf '| BVH | %s | %.4g | %s |\n' "$threads" "$bvh" "$ratio"
    printf '| linear list | %s | %.4g | 1.0x |\n' "$threads" "$linear"
done
