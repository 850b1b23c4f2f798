#!/bin/bash
# One call: generate reading a slot's status first and writing only what
# changes (gen) against the two-pool build before it (now/, as base); every
# config's bytes; the split kernels' GPU tests.
set -u
S=$PWD/.deps/ship
(cd $S && tar xJf bins.tar.xz && tar xJf bins2.tar.xz && tar xJf bins3.tar.xz)
export LD_LIBRARY_PATH=$S/lib:/usr/lib/x86_64-linux-gnu:$S/fallback
mkdir -p /work/build-new && ln -sfn $PWD /work/main && ln -sf $S/gen/farmrt /work/build-new/farmrt
N=$S/gen/farmrt; T=$S/gen/farmrt_cuda_tests
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc; $N --version | head -1; } | tee $OUT/machine.txt
t=$SECONDS
FARMRT=$N BASE=$S/now/farmrt OUT=/tmp/bench PHASE=bench REPEATS=3 \
  CASES="env:256:now env:256:base models:1024:now models:1024:base cornell:1024:now cornell:1024:base interior:256:now interior:256:base lights:256:now lights:256:base env:256:s4+n8388608 models:1024:s4+n8388608" \
  scripts/bench/cuda_split_bands.sh > /tmp/bench.log 2>&1
cp /tmp/bench/medians.txt /tmp/bench/scenes.txt $OUT/; sort -u $OUT/medians.txt
echo "bench done at $((SECONDS - t)) s"
E=/tmp/bench/scene/env_model.yaml
{
  for config in configs/*.yaml $E; do
    name=$(basename "$config" .yaml)
    a=("$config" --width 120 --height 68 --spp 8 --quiet)
    $N "${a[@]}" --backend cpu -o /tmp/c_cpu.pfm || { echo "$name cpu FAILED"; continue; }
    for run in auto s1 s3; do
      case $run in auto) e=(X=1) ;; s1) e=(FARMRT_CUDA_INTEGRATOR=split FARMRT_CUDA_SPLIT_STREAMS=1) ;; s3) e=(FARMRT_CUDA_INTEGRATOR=split FARMRT_CUDA_PATHS=4096 FARMRT_CUDA_SPLIT_STREAMS=3) ;; esac
      env "${e[@]}" $N "${a[@]}" --backend cuda -o /tmp/c_gpu.pfm 2> /dev/null || { echo "$name $run none"; continue; }
      cmp -s /tmp/c_cpu.pfm /tmp/c_gpu.pfm && echo "$name $run same" || echo "$name $run DIFFER"
    done
  done
} > $OUT/correctness_all.txt 2>&1
echo "correctness at $((SECONDS - t)) s: $(grep -c ' same' $OUT/correctness_all.txt) same, $(grep -c DIFFER $OUT/correctness_all.txt) differ, $(grep -c none $OUT/correctness_all.txt) none"
timeout -k 5 100 $T --gtest_filter='CudaGpu.Split*:CudaGpu.Stop*:CudaGpu.*Adaptive*' > $OUT/cuda_tests.log 2>&1; echo "cuda tests rc=$? at $((SECONDS - t)) s"
grep -E "^\[  (PASSED|FAILED|SKIPPED)|FAILED" $OUT/cuda_tests.log | tail -8
FARMRT_CUDA_INTEGRATOR=split FARMRT_CUDA_PATHS=4096 timeout -k 3 60 compute-sanitizer --tool memcheck --error-exitcode 99 $N configs/models.yaml --width 48 --height 32 --spp 4 --backend cuda --quiet -o /tmp/s.pfm > /tmp/san.txt 2>&1; echo "memcheck rc=$? $(tail -1 /tmp/san.txt)" | tee $OUT/sanitizer.txt
