#!/usr/bin/env bash
# Benchmarks the CUDA backend on configs/spheres.yaml at 1200x675, max_depth 50
#: the kernel's samples/s and path segments/s (farmrt_cuda_benchmark,
# the whole frame as one band), and the command line end to end (farmrt
# --backend cuda: the farm's passes and bands, scene load, upload, image
# write), both math variants; an Nsight Compute profile (registers,
# occupancy, SIMT efficiency, FP32 issue); sweeps in the longer modes.
#
#   scripts/bench/cuda.sh BUILD_DIR OUT_DIR [headline|quick|full]
#
# headline (about 60 s on an H100): the 1024-spp kernel figures (per-sample
# work items, the default, and per-pixel items for comparison), the command
# line twice per math variant, and the Nsight Compute counters; quick (about
# 90 s) adds block/band/chunk sweeps and other scenes; full (about 3 minutes)
# the schedule/occupancy sweeps and the per-instruction profile. Prints a
# summary table last (OUT_DIR/summary.md). Variant sweeps (wide BVH, leaf
# size, quorum, register caps): bench/cuda_tuning.sh, bench/cuda_items.sh.
# Needs a build with CUDA (scripts/gpu_build_and_test.sh makes one).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: bench/cuda.sh BUILD_DIR OUT_DIR [quick|full]}
out=${2:?usage: bench/cuda.sh BUILD_DIR OUT_DIR [quick|full]}
mode=${3:-full}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
bench=$build/cuda/farmrt_cuda_benchmark
scene=$root/configs/spheres.yaml
size=(--width 1200 --height 675 --max-depth 50)
cd "$root" || exit 1
{
  echo "# CUDA benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
  echo "# git ${FARMRT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
} > "$out/benchmark.md"
run() { echo "\$ ${*/#$root\//}" >> "$out/benchmark.md"; "$@" >> "$out/benchmark.md" 2>&1; echo >> "$out/benchmark.md"; }

# The kernel settings the later sweeps vary one at a time (the defaults of CudaOptions).
best=(--math fast --schedule dynamic --block 128 --chunk 1)
# Both math variants.
[ "$mode" != headline ] && run "$bench" "$scene" "${size[@]}" --spp 256 --math exact,fast --repeat 3
# Block sizes, schedules, chunk sizes (pixels per fetch), occupancy (full mode).
if [ "$mode" = full ]; then
  run "$bench" "$scene" "${size[@]}" --spp 256 "${best[@]}" --block 32,64,128,256,512 --repeat 3
  run "$bench" "$scene" "${size[@]}" --spp 256 "${best[@]}" --schedule static --block 64,128,256 --repeat 3
  run "$bench" "$scene" "${size[@]}" --spp 256 "${best[@]}" --chunk 1,4,16 --repeat 3
  run "$bench" "$scene" "${size[@]}" --spp 256 "${best[@]}" --blocks-per-sm 2,4 --repeat 3
elif [ "$mode" = quick ]; then
  run "$bench" "$scene" "${size[@]}" --spp 256 "${best[@]}" --block 64,128,256 --repeat 3
fi
# Bands through the asynchronous two-stream pipeline (as an MPI rank feeds them).
[ "$mode" != headline ] && run "$bench" "$scene" "${size[@]}" --spp 256 "${best[@]}" --bands 0,27,75,225 --repeat 3
# The headline: high spp, kernel-dominated; per-pixel items for comparison.
run "$bench" "$scene" "${size[@]}" --spp 1024 "${best[@]}" --math exact,fast --items samples,pixels --repeat 3
# Samples per fetch (per-sample items) and the warp's shared fetch.
[ "$mode" != headline ] && run "$bench" "$scene" "${size[@]}" --spp 1024 "${best[@]}" --math exact,fast --chunk-samples 1,4 --warp-fetch off,on --repeat 3
# A deeper BVH: 10,404 spheres; instances (the kernel with the instance path).
if [ "$mode" != headline ]; then
  run "$bench" "$root/configs/many_spheres.yaml" "${size[@]}" --spp 64 "${best[@]}" --math exact,fast --repeat 3
  run "$bench" "$root/configs/stress.yaml" "${size[@]}" --spp 16 "${best[@]}" --math exact,fast --repeat 3
fi

# The command line end to end (scene load, BVH, upload, render, copy back,
# write), twice per math variant: render phase (the farm's passes and bands,
# the image write at the end), the GPU rank's busy time (bands in flight),
# the job (scene read to image written) and the whole command (MPI start-up
# and exit included).
field() { sed -E "s/.*\"$2\": ([0-9.e+-]+).*/\1/" "$1"; }
cli_rows=()
for math in exact fast; do
  for repeat in 1 2; do
    stats=$out/stats_${math}_$repeat.json
    start=$(date +%s.%N)
    run "$build/farmrt" "$scene" "${size[@]}" --spp 1024 --backend cuda --gpu-math $math -o "$out/spheres_$math.ppm" \
      --stats "$stats"
    whole=$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN {printf "%.3f", a - b}')
    [ -f "$stats" ] || continue
    render=$(field "$stats" render_seconds) busy=$(field "$stats" busy_seconds) job=$(field "$stats" wall_seconds)
    cli_rows+=("$(awk -v m=$math -v r=$render -v b=$busy -v j=$job -v w=$whole -v n=$((1200 * 675 * 1024)) \
      'BEGIN {printf "| command line, %s | %.3f | %.3f (GPU busy %.3f s: %.3f) | job %.3f s, whole command %.3f s |", m, n / r * 1e-9, r, b, n / b * 1e-9, j, w}')")
  done
done

# Nsight Compute: one profiled launch per math variant (after the warm-up).
if command -v ncu >/dev/null; then
  metrics=smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_thread_inst_executed_op_fp32_pred_on.sum
  metrics+=,smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum
  metrics+=,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum
  metrics+=,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active
  metrics+=,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
  ncu --clock-control none -k regex:path_kernel --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
    --metrics "$metrics" "$bench" "$scene" "${size[@]}" --spp 64 "${best[@]}" --repeat 1 > "$out/ncu_best.txt" 2>&1 ||
    echo "ncu failed (see ncu_best.txt)" >> "$out/benchmark.md"
  ncu --clock-control none -k regex:path_kernel --launch-skip 1 --launch-count 1 --metrics "$metrics" \
    "$bench" "$scene" "${size[@]}" --spp 64 "${best[@]}" --math exact --repeat 1 > "$out/ncu_exact.txt" 2>&1 || true
  # Executed instructions (and active threads) per SASS instruction, with source lines.
  [ "$mode" = full ] && ncu --clock-control none -k regex:path_kernel --launch-skip 1 --launch-count 1 --section SourceCounters \
    --page source --csv --print-source cuda,sass "$bench" "$scene" "${size[@]}" --spp 16 "${best[@]}" --repeat 1 \
    > "$out/ncu_source.csv" 2>&1 && gzip -f "$out/ncu_source.csv" || true
fi
# The counters that results/cuda.md reports (FP32 issue fraction = FP32 thread
# instructions / (duration x 132 SMs x 128 lanes x clock)).
for f in "$out/ncu_best.txt" "$out/ncu_exact.txt"; do
  [ -f "$f" ] || continue
  {
    echo "# $(basename "$f"): key counters"
    grep -E 'thread_inst_executed_per_inst|op_fp32_pred_on.sum|smsp__inst_executed.sum|issue_active|warps_active|registers_per|gpu__time_duration|cycles_elapsed.avg.per_second|Achieved Occupancy|Theoretical Occupancy' "$f" |
      awk '{print "#   " $0}'
  } >> "$out/benchmark.md"
done
# Machine code of the kernels, for offline reading (instruction mix, local memory).
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$build/cuda/libfarmrt_cuda.a" > "$out/path_kernel.sass" 2>&1 && gzip -f "$out/path_kernel.sass"
fi
# Summary: kernel rows of the headline (whole frame, 1024 spp), the command line.
{
  echo "| what | G samples/s | seconds | notes |"
  echo "|---|---|---|---|"
  awk -F'|' -v spp=1024 '/^\| (exact|fast) / && $11 ~ /frame/ && prev ~ /--spp 1024/ {
      gsub(/ +$/, "", $3); printf "| kernel, %s, %s, %s |%s|%s | %s regs, %s occupancy, %s G segments/s |\n", $2, $3, $10, $18, $16, $12, $15, $19 }
    /^\$/ { prev = $0 }' "$out/benchmark.md"
  printf '%s\n' "${cli_rows[@]}"
  for f in "$out/ncu_best.txt" "$out/ncu_exact.txt"; do
    [ -f "$f" ] || continue
    awk -v name="$(basename "$f" .txt)" '
      /gpu__time_duration.sum/ {t=$NF; u=$(NF-1); if (u ~ /^us/) t/=1000; if (u ~ /^(s|second)$/) t*=1000; if (u ~ /^ns/) t/=1e6}
      /sm__cycles_elapsed.avg.per_second/ {c=$NF; if ($(NF-1) ~ /^[Mm]hz/) c/=1000}
      /op_fp32_pred_on.sum/ {gsub(",", "", $NF); f=$NF} /thread_inst_executed_per_inst_executed.ratio/ {a=$NF}
      /issue_active.avg.pct/ {i=$NF} /warps_active.avg.pct/ {w=$NF}
      END { if (t > 0 && c > 0) printf "| %s (ncu, 64 spp) | | %s ms | FP32 issue %.1f%% (132 SMs x 128 lanes), %s active lanes/instr, issue %s%%, warps active %s%% |\n", name, t, 100 * f / (t * 1e-3 * 132 * 128 * c * 1e9), a, i, w }' "$f"
  done
} > "$out/summary.md"
cat "$out/benchmark.md"
echo
cat "$out/summary.md"
