#!/usr/bin/env bash
# Scenes beyond spheres: BVH build time over ~1M triangles for 1..all threads
# (farmrt_bvh_benchmark), then parse / BVH build / render figures of farmrt on
# the mesh, stress and Cornell scenes at a fixed size. Prints Markdown.
#   scripts/benchmark_scenes.sh [BUILD_DIR] [> results/scenes.md]
# Environment: WIDTH HEIGHT SPP (render size), TRIANGLES (BVH benchmark size),
# REPEATS, EXTRA (extra farmrt options, e.g. "--backend cuda").
set -euo pipefail
build=${1:-build}
width=${WIDTH:-400}
height=${HEIGHT:-225}
spp=${SPP:-8}
triangles=${TRIANGLES:-1000000}
repeats=${REPEATS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "# Scenes benchmark"
echo
echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) hardware threads, $(uname -sr)"
echo "- command: scripts/benchmark_scenes.sh $build (TRIANGLES=$triangles, ${width}x${height}, $spp spp, REPEATS=$repeats${EXTRA:+, EXTRA=$EXTRA})"
echo "- farmrt: $("$build/farmrt" --version)"
echo
echo "## BVH build (binned SAH, OpenMP tasks), $triangles triangles"
echo
echo '```'
"$build/tests/farmrt_bvh_benchmark" configs/models/knot.obj "$triangles" "$repeats"
echo '```'
echo
echo "## Rendering (farmrt --stats; seconds per phase)"
echo
echo "| scene | primitives rendered (top level) | parse s | BVH build s | render s | samples/s | threads |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for scene in configs/mesh.yaml configs/stress.yaml configs/cornell.yaml; do
    "$build/farmrt" "$scene" --width "$width" --height "$height" --spp "$spp" -o "$tmp/out.pfm" \
        --stats "$tmp/stats.json" --quiet ${EXTRA:-}
    # Numbers from the stats JSON without a JSON tool (device machines may lack python).
    field() { grep -o "\"$1\": *[0-9.eE+-]*" "$tmp/stats.json" | head -1 | sed 's/.*: *//'; }
    printf '| %s | %s (%s) | %.3f | %.3f | %.3f | %.3g | %s |\n' "$scene" "$(field rendered_primitives)" \
        "$(field primitives)" "$(field parse)" "$(field bvh_build)" "$(field render)" \
        "$(field samples_per_second)" "$(field threads)"
done
