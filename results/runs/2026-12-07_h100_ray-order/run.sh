#!/bin/bash
# One call: spatial ray order and triangle corners against 9f7f456 (base)
# and cd4f8b2 (before); the GPU tests; compute-sanitizer; every config's bytes.
set -u
S=$PWD/.deps/ship
mkdir -p /work/build-new && ln -sfn $PWD /work/main && ln -sf $S/new/farmrt /work/build-new/farmrt
N=$S/new/farmrt; B=$S/base/farmrt; T=$S/new/farmrt_cuda_tests
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
$N --version | head -1; $B --version | head -1
t=$SECONDS
FARMRT=$N OUT=/tmp/check PHASE=check CHECK_CONFIGS="models env" CHECKS="now c0 o1 o2" \
  scripts/bench/cuda_split_bands.sh > /tmp/check.log 2>&1
cp /tmp/check/correctness.txt $OUT/correctness.txt; cat /tmp/check/correctness.txt
echo "check took $((SECONDS - t)) s"
FARMRT=$N BASE=$B BEFORE=$S/cd4f8b2/farmrt BEFORE_CONFIGS=$S/cd4f8b2/configs OUT=/tmp/bench PHASE=bench REPEATS=3 \
  CASES="env:256:now env:256:o1 env:256:o2 env:256:c0 env:256:before models:1024:now models:1024:o1 models:1024:o2 models:1024:before cornell:1024:now cornell:1024:o1 cornell:1024:o2 cornell:1024:before lights:256:now lights:256:o1 lights:256:c0" \
  scripts/bench/cuda_split_bands.sh > /tmp/bench.log 2>&1
cp /tmp/bench/medians.txt /tmp/bench/scenes.txt $OUT/; cat /tmp/bench/medians.txt; tail -2 /tmp/bench.log
echo "bench done at $((SECONDS - t)) s"
timeout -k 5 90 $T --gtest_filter='CudaGpu.Split*' > $OUT/cuda_tests.log 2>&1; echo "cuda tests rc=$? at $((SECONDS - t)) s"
grep -E "^\[  (PASSED|FAILED)|FAILED|tests ran" $OUT/cuda_tests.log | tail -8
{
for tool in memcheck initcheck; do
  for c in configs/models.yaml /tmp/bench/scene/env_model.yaml; do
    for order in spatial spatial_shading; do
      FARMRT_CUDA_RAY_ORDER=$order FARMRT_CUDA_INTEGRATOR=split FARMRT_CUDA_PATHS=4096 timeout -k 3 100 compute-sanitizer --tool $tool \
        --error-exitcode 99 $N $c --width 48 --height 32 --spp 4 --backend cuda --quiet -o /tmp/s.pfm > /tmp/san.txt 2>&1
      echo "$tool $(basename $c) $order rc=$? $(tail -1 /tmp/san.txt)"
      [ $((SECONDS - t)) -gt 250 ] && break 3
    done
  done
done
} > $OUT/sanitizer.txt 2>&1
cat $OUT/sanitizer.txt; echo "sanitizer at $((SECONDS - t)) s"
{
  for config in configs/*.yaml /tmp/bench/scene/env_model.yaml; do
    [ $((SECONDS - t)) -gt 300 ] && { echo "out of time"; break; }
    name=$(basename "$config" .yaml)
    a=("$config" --width 120 --height 68 --spp 8 --quiet)
    $N "${a[@]}" --backend cpu -o /tmp/c_cpu.pfm || { echo "$name cpu FAILED"; continue; }
    for run in auto spatial spatial_shading corners0; do
      case $run in auto) e=(X=1) ;; spatial) e=(FARMRT_CUDA_INTEGRATOR=split FARMRT_CUDA_RAY_ORDER=spatial) ;; spatial_shading) e=(FARMRT_CUDA_INTEGRATOR=split FARMRT_CUDA_RAY_ORDER=spatial_shading) ;; corners0) e=(FARMRT_CUDA_TRIANGLE_CORNERS=0) ;; esac
      env "${e[@]}" $N "${a[@]}" --backend cuda -o /tmp/c_gpu.pfm 2> /dev/null || { echo "$name $run none"; continue; }
      cmp -s /tmp/c_cpu.pfm /tmp/c_gpu.pfm && echo "$name $run same" || echo "$name $run DIFFER"
    done
  done
} > $OUT/correctness_all.txt 2>&1
echo "correctness at $((SECONDS - t)) s: $(grep -c ' same' $OUT/correctness_all.txt) same, $(grep -c DIFFER $OUT/correctness_all.txt) differ, $(grep -c none $OUT/correctness_all.txt) none"
grep -E "DIFFER|FAILED" $OUT/correctness_all.txt | head
