#!/usr/bin/env bash
# Generate over the finished queue (generate-finished.patch, applied to the
# tree first: git apply) against the scan of every slot (BASE: the tree
# before it, default 065e4e8), with cd4f8b2 beside them for the
# goals' ratios. One GPU, one call per PHASE, on
# ../2026-12-06_h100_queue-fetch/run.sh (trees carried in .deps/trees):
#   PHASE=first  build the trees; this tree's GPU tests; every config's
#                rays by kind on the GPU's split kernels against the CPU's;
#                the bench (BENCH_CASES, REPEATS times; medians.txt);
#   PHASE=check  every config's GPU image against its CPU's bytes;
#                compute-sanitizer racecheck, synccheck, memcheck, and
#                initcheck on models.yaml and adaptive interior.yaml with a
#                small pool (queues reused many times a launch).
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p "$out"
here=$root/results/runs/2026-12-06_h100_generate-finished
runner=$root/results/runs/2026-12-06_h100_queue-fetch/run.sh
base=${BASE:-065e4e8}
builds=$root/build-device
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu PATH=/usr/local/cuda/bin:$PATH
s=$SECONDS
case ${PHASE:?PHASE=first or check} in
first)
  [ -x "$builds/now/farmrt" ] || TREES="$base cd4f8b2" PHASE=build "$runner" | tail -5
  { nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
    "$builds/now/farmrt" --version | head -1; } | tee "$out/machine.txt"
  timeout -k 5 300 "$builds/now/tests/farmrt_cuda_tests" > "$out/cuda_tests.log" 2>&1
  echo "cuda tests rc=$? at $((SECONDS - s)) s"
  grep -E "^\[  (PASSED|FAILED)|FAILED|tests ran" "$out/cuda_tests.log" | tail -8
  rays() { python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["rays"]; print(r["camera"], r["extension"], r["shadow"])' "$1"; }
  for config in configs/*.yaml; do
    name=$(basename "$config" .yaml)
    a=("$config" --width 120 --height 68 --spp 8 --quiet -o /tmp/r.pfm)
    "$builds/now/farmrt" "${a[@]}" --backend cpu --stats /tmp/r_cpu.json 2> /dev/null || continue
    FARMRT_CUDA_INTEGRATOR=split FARMRT_CUDA_PATHS=4096 "$builds/now/farmrt" "${a[@]}" --backend cuda \
      --stats /tmp/r_gpu.json 2> /dev/null || { echo "$name: no GPU run"; continue; }
    [ "$(rays /tmp/r_cpu.json)" = "$(rays /tmp/r_gpu.json)" ] && echo "$name rays same" ||
      echo "$name rays DIFFER: $(rays /tmp/r_gpu.json), the CPU's $(rays /tmp/r_cpu.json)"
  done > "$out/rays.txt"
  echo "rays: $(grep -c ' same' "$out/rays.txt") same, $(grep -c DIFFER "$out/rays.txt") differ"; grep -E 'DIFFER|no GPU' "$out/rays.txt"
  CASES=${BENCH_CASES:?} PHASE=bench "$runner" | tail -40
  ;;
check)
  [ -x "$builds/now/farmrt" ] || TREES="$base cd4f8b2" PHASE=build "$runner" | tail -5
  PHASE=check "$runner" | tail -20
  for scene in "configs/models.yaml --width 48 --height 48 --spp 4" \
               "configs/interior.yaml --width 64 --height 36 --spp 64 --noise-threshold 0.02 --min-spp 16"; do
    FARMRT_CUDA_INTEGRATOR=split FARMRT_CUDA_PATHS=1024 timeout -k 3 150 compute-sanitizer --tool initcheck \
      --error-exitcode 99 "$builds/now/farmrt" $scene --backend cuda --quiet -o /tmp/s.pfm > /tmp/init.txt 2>&1
    echo "initcheck $scene: rc=$? $(tail -1 /tmp/init.txt)"
  done
  ;;
esac
echo "phase $PHASE done at $((SECONDS - s)) s"
