#!/usr/bin/env bash
# The AVX-512 level's node width: 16-wide nodes and packets (zmm) against
# 8-wide ones compiled with AVX-512VL (ymm), and AVX2 and scalar beside them,
# over scenes from 486 to 10,404 spheres and a triangle mesh. Whole frames on
# THREADS threads (default 1), samples per second, median of REPEATS (default
# 3); within a repeat the variants run one after another so that a noisy
# machine slows them alike. The crossover decides wide_node_width()
# (simd/cpu_renderer.cpp).
# Needs FARMRT_SIMD_WIDTH and the 8-wide AVX-512 tables of commit 5fb36d5
# (reverted after this measurement): kept here as the record of how it ran.
#
#   scripts/benchmark_simd_width.sh BUILD_DIR [OUT_DIR]
#
# Environment: WIDTH HEIGHT (default 300x169) SPP (default 32) REPEATS THREADS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: benchmark_simd_width.sh BUILD_DIR [OUT_DIR]}
out_dir=${2:-}
farmrt=$build/farmrt
repeats=${REPEATS:-3}
threads=${THREADS:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A middle size between spheres.yaml (grid 11: 486 spheres) and many_spheres.yaml (grid 51).
python3 "$root/scripts/generate_spheres.py" --grid 25 --output grid25.png > "$tmp/spheres_grid25.yaml"
scenes=${SCENES:-"$root/configs/spheres.yaml $tmp/spheres_grid25.yaml $root/configs/many_spheres.yaml $root/configs/mesh.yaml"}
variants="off:auto avx2:auto avx512:16 avx512:8"
raw=$tmp/raw.txt
: > "$raw"
for repeat in $(seq "$repeats"); do
    for scene in $scenes; do
        for variant in $variants; do
            level=${variant%%:*} node_width=${variant#*:}
            FARMRT_SIMD_WIDTH=$node_width "$farmrt" "$scene" --width "${WIDTH:-300}" --height "${HEIGHT:-169}" \
                --spp "${SPP:-32}" --threads "$threads" --backend cpu --simd "$level" -o "$tmp/out.pfm" \
                --stats "$tmp/stats.json" --quiet
            rate=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['samples_per_second'])" "$tmp/stats.json")
            echo "$(basename "$scene") $variant $repeat $rate" >> "$raw"
        done
    done
done
report() {
    echo "# AVX-512 node width: whole frames"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) hardware threads"
    echo "- command: scripts/benchmark_simd_width.sh (${WIDTH:-300}x${HEIGHT:-169}, ${SPP:-32} spp, $threads thread(s), median of $repeats)"
    echo
    python3 - "$raw" <<'EOF'
import collections, statistics, sys
rates = collections.defaultdict(list)
order = []
for line in open(sys.argv[1]):
    scene, variant, _, rate = line.split()
    if (scene, variant) not in rates: order.append((scene, variant))
    rates[(scene, variant)].append(float(rate))
print("| scene | level:node width | samples/s (median) | vs scalar | vs avx2 | runs |")
print("|---|---|---:|---:|---:|---|")
for scene, variant in order:
    median = statistics.median(rates[(scene, variant)])
    scalar = statistics.median(rates[(scene, "off:auto")])
    avx2 = statistics.median(rates[(scene, "avx2:auto")])
    runs = " ".join(f"{r:.3g}" for r in rates[(scene, variant)])
    print(f"| {scene} | {variant} | {median:.4g} | {median / scalar:.2f}x | {median / avx2:.2f}x | {runs} |")
EOF
}
if [ -n "$out_dir" ]; then
    mkdir -p "$out_dir"
    report | tee "$out_dir/simd_width.md"
    cp "$raw" "$out_dir/simd_width_raw.txt"
else
    report
fi
