#!/usr/bin/env bash
# Scenes beyond spheres, measured: BVH build time over ~1M triangles for 1 to
# all threads (tests/farmrt_bvh_benchmark), then samples per second of farmrt
# on the mesh, stress, Cornell and textured scenes for every CPU tracer (scalar
# and each SIMD level this CPU has) and, where the build has CUDA and the node
# a GPU, the GPU with exact and fast math. Made for a GPU machine (16
# cores, one H200, no OpenImageIO: writes .pfm) and kept within a time budget.
#
#   scripts/bench/scenes.sh BUILD_DIR OUT_DIR
#
# BUILD_DIR: a build with farmrt and tests/farmrt_bvh_benchmark (e.g. made by
# scripts/gpu_build_and_test.sh BUILD_DIR). OUT_DIR receives scenes_benchmark.md
# (machine, command, date, tables) and logs/ (each run's --stats JSON and stderr).
# The tables are also printed. Environment (defaults in brackets):
#   WIDTH [800] HEIGHT [450]   image size of every render
#   SPP [16]                   samples per pixel on the CPU
#   GPU_SPP [256]              samples per pixel on the GPU (enough work to time it)
#   SCENES [mesh stress cornell textured]
#   TRIANGLES [1000000] REPEATS [3]   the BVH build benchmark
#   BUDGET [110]               seconds for the whole script: a run is cut off
#                              (and counts as failed) when the budget ends, rows
#                              not started by then are marked skipped
#   RUN_LIMIT [40]             seconds for one farmrt run
#   THREADS                    --threads for the CPU runs (default: all cores)
# A quick try on a small machine:
#   WIDTH=64 HEIGHT=36 SPP=2 GPU_SPP=4 TRIANGLES=20000 REPEATS=1 scripts/bench/scenes.sh build /tmp/bench
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -ne 2 ]; then
    echo "usage: scripts/bench/scenes.sh BUILD_DIR OUT_DIR" >&2
    exit 2
fi
build=$(cd "$1" && pwd) || exit 2
out=$2
mkdir -p "$out/logs" || exit 2
out=$(cd "$out" && pwd)
width=${WIDTH:-800}
height=${HEIGHT:-450}
spp=${SPP:-16}
gpu_spp=${GPU_SPP:-256}
scenes=${SCENES:-mesh stress cornell textured}
triangles=${TRIANGLES:-1000000}
repeats=${REPEATS:-3}
budget=${BUDGET:-110}
threads_option=()
[ -n "${THREADS:-}" ] && threads_option=(--threads "$THREADS")
farmrt=$build/farmrt
for tool in "$farmrt" "$build/tests/farmrt_bvh_benchmark"; do
    [ -x "$tool" ] || { echo "benchmark_scenes: $tool is missing (build it first)" >&2; exit 2; }
done
cd "$root" || exit 2
start=$SECONDS
report=$out/scenes_benchmark.md

# A number from a --stats JSON file, without a JSON tool (the GPU machine may lack python).
field() { grep -o "\"$2\": *[0-9.eE+-]*" "$1" | head -1 | sed 's/.*: *//'; }
text_field() { grep -o "\"$2\": *\"[^\"]*\"" "$1" | head -1 | sed 's/.*: *"//; s/"$//'; }

# CPU levels this machine runs: scalar, then every SIMD level farmrt accepts here.
levels=(off)
for level in sse4.2 avx2 avx512; do
    if "$farmrt" configs/tiny.yaml --width 4 --height 2 --spp 1 --simd "$level" --backend cpu --quiet \
        -o "$out/logs/probe.pfm" >/dev/null 2>&1; then
        levels+=("$level")
    fi
done
gpu_modes=()
if "$farmrt" configs/tiny.yaml --width 4 --height 2 --spp 1 --backend cuda --quiet -o "$out/logs/probe.pfm" \
    >"$out/logs/gpu_probe.log" 2>&1; then
    gpu_modes=(exact fast)
fi
rm -f "$out/logs/probe.pfm"

{
    echo "# Scenes benchmark: BVH build and samples per second per tracer"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) hardware threads, $(uname -sr)"
    if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
        echo "- GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
    fi
    echo "- farmrt: $("$farmrt" --version | head -1), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "- command: \`WIDTH=$width HEIGHT=$height SPP=$spp GPU_SPP=$gpu_spp TRIANGLES=$triangles REPEATS=$repeats scripts/bench/scenes.sh BUILD OUT\`"
    echo "- CPU tracers: ${levels[*]} (off = scalar); GPU: ${gpu_modes[*]:-none (no CUDA build or no GPU: see logs/gpu_probe.log)}"
    echo
    echo "## BVH build (binned SAH, OpenMP tasks), $triangles triangles"
    echo
    echo '```'
} >"$report"
timeout "$((budget / 3))" "$build/tests/farmrt_bvh_benchmark" configs/models/knot.obj "$triangles" "$repeats" \
    >>"$report" 2>"$out/logs/bvh_benchmark.stderr" ||
    echo "farmrt_bvh_benchmark failed (exit $?): see logs/bvh_benchmark.stderr" >>"$report"
{
    echo '```'
    echo
    echo "## Rendering: samples per second (render phase of farmrt --stats), ${width}x${height}"
    echo
    echo "CPU rows at $spp spp on ${THREADS:-all} threads, GPU rows at $gpu_spp spp. \"parse\" includes reading the"
    echo "OBJ; \"BVH\" is the build on the CPU; the GPU's start-up and scene upload come before the"
    echo "render phase and are in none of the columns. samples/s = width x height x spp / render s."
    echo
    echo "| scene | tracer | backend | spp | parse s | BVH s | render s | samples/s |"
    echo "|---|---|---|---:|---:|---:|---:|---:|"
} >>"$report"

failures=0
run_row() {  # run_row SCENE LABEL SPP FARMRT-OPTIONS...
    local scene=$1 label=$2 samples=$3
    shift 3
    local name=${scene}_${label}
    local left=$((budget - (SECONDS - start)))
    [ "$left" -gt "${RUN_LIMIT:-40}" ] && left=${RUN_LIMIT:-40}
    if [ "$left" -lt 3 ]; then
        echo "| $scene | $label | skipped: time budget of ${budget}s spent | | | | | |" >>"$report"
        return
    fi
    # Each run is bounded too, so that one stuck run cannot eat the whole budget.
    if timeout "$left" "$farmrt" "configs/$scene.yaml" --width "$width" --height "$height" --spp "$samples" --quiet \
        -o "$out/logs/image.pfm" --stats "$out/logs/$name.json" "$@" 2>"$out/logs/$name.stderr"; then
        local json=$out/logs/$name.json
        printf '| %s | %s | %s | %s | %.3f | %.3f | %.3f | %.3g |\n' "$scene" "$label" \
            "$(text_field "$json" backend)" "$samples" "$(field "$json" parse)" "$(field "$json" bvh_build)" \
            "$(field "$json" render)" "$(field "$json" samples_per_second)" >>"$report"
    else
        echo "| $scene | $label | FAILED (exit $?): logs/$name.stderr | | | | | |" >>"$report"
        failures=$((failures + 1))
    fi
}

for scene in $scenes; do
    for level in "${levels[@]}"; do
        label=$([ "$level" = off ] && echo scalar || echo "$level")
        run_row "$scene" "$label" "$spp" --backend cpu --simd "$level" "${threads_option[@]}"
    done
    for math in "${gpu_modes[@]}"; do
        run_row "$scene" "cuda-$math" "$gpu_spp" --backend cuda --gpu-math "$math"
    done
done
rm -f "$out/logs/image.pfm"

# The CPU-GPU comparison of the last ctest run in this build (tests/cuda/test_scene_gpu.cpp
# prints its figures; scripts/gpu_build_and_test.sh runs it last, with the cuda label).
test_log=$build/Testing/Temporary/LastTest.log
if grep -q "fast GPU vs CPU\|seed 3: RMSE ratio" "$test_log" 2>/dev/null; then
    {
        echo
        echo "## CPU vs GPU on every config (from the last ctest run: tests/cuda/test_scene_gpu.cpp)"
        echo
        echo "exact GPU vs CPU: values whose bits differ (must be 0)."
        echo "fast GPU vs CPU: the GPU's fast-math image against two CPU renders with other seeds (RMSE"
        echo "ratio to the CPU-CPU RMSE, accepted 0.8-1.25; largest |z| of a channel's mean, accepted 5);"
        echo "seed 3: the same yardstick on a third CPU render, and on that render 10% darker (must fail)."
        echo
        echo '```'
        grep -E "GPU vs CPU|seed 3: RMSE ratio|\[ *(OK|FAILED|SKIPPED) *\] CpuGpu[A-Za-z]*\.[A-Za-z]+ \(" "$test_log" |
            sed 's/^[0-9]*: //' | sort -u
        echo '```'
    } >>"$report"
fi
echo >>"$report"
echo "Total benchmark time: $((SECONDS - start)) s." >>"$report"

cat "$report"
[ "$failures" -eq 0 ]
