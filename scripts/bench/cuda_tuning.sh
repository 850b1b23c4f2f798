#!/usr/bin/env bash
# Compares the CUDA path kernel's variants on configs/spheres.yaml at
# 1200x675, max_depth 50: kernel specialisation, fused slab test,
# leaf quorum, register cap, BVH leaf size, block size; then Nsight Compute
# counters (registers, occupancy, SIMT efficiency, FP32 issue fraction) of the
# default kernels. Needs a build configured with -DFARMRT_CUDA_EXPERIMENTS=ON
# (otherwise the experimental rows say "skipped").
#
#   scripts/bench/cuda_tuning.sh BUILD_DIR OUT_DIR [SPP]     (SPP default 256; about 90 s on an H200)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: bench/cuda_tuning.sh BUILD_DIR OUT_DIR [SPP]}
out=${2:?usage: bench/cuda_tuning.sh BUILD_DIR OUT_DIR [SPP]}
spp=${3:-256}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
bench=$build/cuda/farmrt_cuda_benchmark
scene=$root/configs/spheres.yaml
size=(--width ${FARMRT_TUNING_WIDTH:-1200} --height ${FARMRT_TUNING_HEIGHT:-675} --max-depth 50)
md=$out/tuning.md
{
  echo "# CUDA kernel variants, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null)"
  echo "# git ${FARMRT_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
} > "$md"
run() { echo "\$ ${*/#$root\//}" >> "$md"; "$@" >> "$md" 2>>"$out/tuning_stderr.txt"; echo >> "$md"; }
common=(--schedule dynamic --chunk 1 --repeat 3 --spp "$spp")
# The fast kernel's traversal: the 4-wide BVH against the binary one, over the
# GPU's own BVH leaf size (0: the CPU's BVH, leaves of up to 4).
run "$bench" "$scene" "${size[@]}" "${common[@]}" --math fast --wide on,off --gpu-leaf-size 1,2,0
# Specialisations: spheres-only kernel vs the general one, fused slab test.
run "$bench" "$scene" "${size[@]}" "${common[@]}" --math exact --geometry specialized,general
run "$bench" "$scene" "${size[@]}" "${common[@]}" --math fast --fused on,off
# Register cap (__launch_bounds__(128, 8): 64 registers) and block size.
run "$bench" "$scene" "${size[@]}" "${common[@]}" --math fast --min-blocks 7,8
run "$bench" "$scene" "${size[@]}" "${common[@]}" --math exact,fast --block 64,256
# Pixel order (last rows first measured slower on this scene).
run "$bench" "$scene" "${size[@]}" "${common[@]}" --math exact,fast --order last-rows-first
# Leaf quorum of the binary traversal (exact kernel's; fast without the wide BVH).
run "$bench" "$scene" "${size[@]}" "${common[@]}" --math fast --wide off --quorum 1,16
# Other scenes: a deeper BVH (10,404 spheres), and instances (the general kernel, binary BVH).
run "$bench" "$root/configs/many_spheres.yaml" "${size[@]}" --repeat 3 --spp 64 --math exact,fast --wide on,off
run "$bench" "$root/configs/stress.yaml" "${size[@]}" --repeat 3 --spp 16 --math exact,fast

if command -v ncu >/dev/null; then
  metrics=smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_thread_inst_executed_op_fp32_pred_on.sum
  metrics+=,smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum
  metrics+=,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum
  metrics+=,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active
  metrics+=,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
  metrics+=,sm__maximum_warps_per_active_cycle_pct,smsp__thread_inst_executed.sum
  for math in fast exact; do
    timeout 120 ncu --clock-control none -k regex:path_kernel --launch-skip 1 --launch-count 1 --metrics "$metrics" \
      "$bench" "$scene" "${size[@]}" --spp 64 --math $math --repeat 1 > "$out/ncu_$math.txt" 2>&1 || true
  done
  if [ "${FARMRT_TUNING_SOURCE:-0}" = 1 ]; then
    timeout 150 ncu --clock-control none -k regex:path_kernel --launch-skip 1 --launch-count 1 --section SourceCounters \
      --page source --csv --print-source cuda,sass "$bench" "$scene" "${size[@]}" --spp 16 --math fast --repeat 1 \
      > "$out/ncu_source.csv" 2>&1 && gzip -f "$out/ncu_source.csv" || true
  fi
fi
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$build/cuda/libfarmrt_cuda.a" > "$out/path_kernel.sass" 2>&1 && gzip -f "$out/path_kernel.sass"
fi
# Short summary: the table rows, then ncu's key numbers.
grep -E '^\| (exact|fast|skipped)' "$md" | awk -F'|' '{printf "%-6s %-22s q%-3s f%-4s L%-7s %-17s b%-4s r%-3s occ%-5s %s G/s\n", $2, $3, $4, $5, $6, $7, $9, $12, $15, $18}'
for math in fast exact; do
  [ -f "$out/ncu_$math.txt" ] && { echo "ncu $math:"; grep -E 'thread_inst_executed_per_inst|op_fp32_pred_on.sum|inst_executed.sum|issue_active|warps_active|registers_per|gpu__time_duration|cycles_elapsed.avg.per_second' "$out/ncu_$math.txt" | awk '{print "  " $1, $(NF-1), $NF}'; }
done
