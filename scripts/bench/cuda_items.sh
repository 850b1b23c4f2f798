#!/usr/bin/env bash
# Per-sample against per-pixel work items, and the farm path of a GPU rank
#: on configs/spheres.yaml at 1200x675, max_depth 50, 1024 spp,
#  - the kernel (farmrt_cuda_benchmark, one band = the whole frame, and bands
#    through the two-stream pipeline): items, samples per atomic fetch,
#    radiance buffer size, register caps, block sizes, the exact kernel's
#    optional 4-wide BVH;
#  - the command line (farmrt --backend cuda: the farm's passes and bands),
#    render phase and whole command, with the same settings through
#    FARMRT_CUDA_ITEMS / FARMRT_CUDA_CHUNK_SAMPLES / FARMRT_CUDA_EXACT_WIDE;
#  - exact math with the 4-wide BVH gives the CPU's bytes (cmp).
# Needs a build with -DFARMRT_CUDA_EXPERIMENTS=ON for the register-cap rows.
#
#   scripts/bench/cuda_items.sh BUILD_DIR OUT_DIR     (about 2 minutes on an H100)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: bench/cuda_items.sh BUILD_DIR OUT_DIR}
out=${2:?usage: bench/cuda_items.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
bench=$build/cuda/farmrt_cuda_benchmark
scene=$root/configs/spheres.yaml
spp=${FARMRT_STUDY_SPP:-1024}
size=(--width ${FARMRT_STUDY_WIDTH:-1200} --height ${FARMRT_STUDY_HEIGHT:-675} --max-depth 50)
md=$out/items_study.md
{
  echo "# Work items and the farm path, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null), $(nproc) cores"
  echo "# git ${FARMRT_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
} > "$md"
run() { echo "\$ ${*/#$root\//}" >> "$md"; "$@" >> "$md" 2>>"$out/stderr.txt"; echo >> "$md"; }
common=(--repeat 3 --spp "$spp")

# Kernel: items, per math.
run "$bench" "$scene" "${size[@]}" "${common[@]}" --math exact,fast --items pixels,samples
# Samples per fetch and radiance buffer (per-sample items).
run "$bench" "$scene" "${size[@]}" "${common[@]}" --math exact,fast --chunk-samples 1,2,8,16
run "$bench" "$scene" "${size[@]}" "${common[@]}" --math exact,fast --sample-buffer-mib 64,1024
# Register caps: exact spheres uncapped (0) vs the default cap; fast wide at 9 and 10 blocks of 128.
run "$bench" "$scene" "${size[@]}" "${common[@]}" --math exact --min-blocks 0
run "$bench" "$scene" "${size[@]}" "${common[@]}" --math fast --min-blocks 9,10
run "$bench" "$scene" "${size[@]}" "${common[@]}" --math exact,fast --block 256
# The exact kernel's 4-wide BVH (capped and uncapped).
run "$bench" "$scene" "${size[@]}" "${common[@]}" --math exact --exact-wide on --min-blocks -1,0
# Bands through the two-stream pipeline (as a farm rank feeds them).
run "$bench" "$scene" "${size[@]}" "${common[@]}" --math exact,fast --items pixels,samples --bands 225

# The command line end to end.
cli_table=$out/cli.md
echo "| math | settings | render s | whole s | G samples/s (render) | bands | passes |" > "$cli_table"
echo "|---|---|---|---|---|---|---|" >> "$cli_table"
field() { sed -E "s/.*\"$2\": ([0-9.e+-]+).*/\1/" "$1"; }
cli() {  # cli LABEL MATH ENV... -- EXTRA ARGS
  local label=$1 math=$2; shift 2
  local envs=() extra=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  [ "${1:-}" = -- ] && shift
  extra=("$@")
  local stats=$out/stats_${math}_${label}.json start=$(date +%s.%N)
  env "${envs[@]}" "$build/farmrt" "$scene" "${size[@]}" --spp "$spp" --backend cuda --gpu-math "$math" \
    -o "$out/cli_${math}_${label}.ppm" --stats "$stats" --quiet "${extra[@]}" 2>>"$out/stderr.txt"
  local whole=$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN {printf "%.3f", a - b}')
  local render=$(field "$stats" render_seconds) bands=$(field "$stats" bands) passes=$(field "$stats" passes)
  local rate=$(awk -v w="${size[1]}" -v h="${size[3]}" -v s="$spp" -v r="$render" 'BEGIN {printf "%.3f", w * h * s / r * 1e-9}')
  echo "| $math | $label ${envs[*]} ${extra[*]} | $render | $whole | $rate | $bands | $passes |" >> "$cli_table"
}
for math in exact fast; do
  cli pixels $math FARMRT_CUDA_ITEMS=pixels
  cli samples $math FARMRT_CUDA_ITEMS=samples
  cli samples_chunk1 $math FARMRT_CUDA_CHUNK_SAMPLES=1
  cli one_pass $math FARMRT_CUDA_ITEMS=samples -- --pass-samples "$spp"
done
cli exact_wide exact FARMRT_CUDA_EXACT_WIDE=1
cat "$cli_table" >> "$md"

# Exact math with the 4-wide BVH gives the CPU's bytes.
{
  echo
  echo "exact 4-wide BVH against the CPU (cmp):"
  for args in "configs/spheres.yaml --width 1200 --height 675 --spp 16" "configs/many_spheres.yaml --width 640 --height 360 --spp 8"; do
    # shellcheck disable=SC2086
    "$build/farmrt" $args --backend cpu -o "$out/cmp_cpu.pfm" --quiet &&
      FARMRT_CUDA_EXACT_WIDE=1 "$build/farmrt" $args --backend cuda -o "$out/cmp_gpu.pfm" --quiet &&
      if cmp -s "$out/cmp_cpu.pfm" "$out/cmp_gpu.pfm"; then echo "  $args: identical"; else echo "  $args: DIFFERENT"; fi
  done
} >> "$md" 2>>"$out/stderr.txt"
rm -f "$out"/*.ppm "$out"/*.pfm

# Nsight Compute on the default kernels (per-sample items), one short launch each.
if command -v ncu >/dev/null; then
  metrics=smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_thread_inst_executed_op_fp32_pred_on.sum
  metrics+=,smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum
  metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
  metrics+=,launch__registers_per_thread,sm__maximum_warps_per_active_cycle_pct
  for math in fast exact; do
    timeout 45 ncu --clock-control none -k regex:path_kernel --launch-skip 1 --launch-count 1 --metrics "$metrics" \
      "$bench" "$scene" "${size[@]}" --spp 64 --math $math --repeat 1 > "$out/ncu_$math.txt" 2>&1 || true
  done
fi
# Summary: table rows, the command-line table, ncu's key numbers.
grep -E '^\| (exact|fast) ' "$md" | grep -v ' settings ' | awk -F'|' '{printf "%-5s %-40s b%-4s %-26s %-6s r%-3s occ%-4s %s G/s\n", $2, $3, $9, $10, $11, $12, $15, $18}'
cat "$cli_table"
grep -A3 "against the CPU" "$md"
for math in fast exact; do
  [ -f "$out/ncu_$math.txt" ] && { echo "ncu $math:"; grep -E 'thread_inst_executed_per_inst|op_fp32_pred_on.sum|inst_executed.sum|issue_active|warps_active|registers_per|gpu__time_duration|cycles_elapsed.avg.per_second' "$out/ncu_$math.txt" | awk '{print "  " $1, $(NF-1), $NF}'; }
done
