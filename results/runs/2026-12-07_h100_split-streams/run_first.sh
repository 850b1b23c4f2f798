#!/bin/bash
# One call: the split kernels' pools on several streams against one pool and
# cd4f8b2; where the million triangles' time goes (ncu); the GPU tests;
# compute-sanitizer; every config's bytes.
set -u
S=$PWD/.deps/ship
(cd $S && tar xJf bins.tar.xz && tar xJf bins2.tar.xz)
export LD_LIBRARY_PATH=$S/lib:/usr/lib/x86_64-linux-gnu:$S/fallback
mkdir -p /work/build-new && ln -sfn $PWD /work/main && ln -sf $S/now/farmrt /work/build-new/farmrt
N=$S/now/farmrt; T=$S/now/farmrt_cuda_tests
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
$N --version | head -1
t=$SECONDS
FARMRT=$N BEFORE=$S/cd4f8b2/farmrt BEFORE_CONFIGS=$S/cd4f8b2/configs OUT=/tmp/bench PHASE=bench REPEATS=3 \
  CASES="${CASES:-env:256:now env:256:s2 env:256:s3 env:256:s2+n4194304 env:256:before cornell:1024:now cornell:1024:s2 cornell:1024:before models:1024:now models:1024:s2 models:1024:before interior:256:now interior:256:s2}" \
  scripts/bench/cuda_split_bands.sh > /tmp/bench.log 2>&1
cp /tmp/bench/medians.txt /tmp/bench/scenes.txt $OUT/; cat /tmp/bench/medians.txt; tail -2 /tmp/bench.log
echo "bench done at $((SECONDS - t)) s"
timeout -k 5 150 $T --gtest_filter='CudaGpu.Split*' > $OUT/cuda_tests.log 2>&1; echo "cuda tests rc=$? at $((SECONDS - t)) s"
grep -E "^\[  (PASSED|FAILED)|FAILED|tests ran|OK \]" $OUT/cuda_tests.log | tail -12
E=/tmp/bench/scene/env_model.yaml
{
  for config in configs/*.yaml $E; do
    [ $((SECONDS - t)) -gt 330 ] && { echo "out of time"; break; }
    name=$(basename "$config" .yaml)
    a=("$config" --width 120 --height 68 --spp 8 --quiet)
    $N "${a[@]}" --backend cpu -o /tmp/c_cpu.pfm || { echo "$name cpu FAILED"; continue; }
    for run in auto s2 s3; do
      case $run in auto) e=(X=1) ;; s2) e=(FARMRT_CUDA_INTEGRATOR=split FARMRT_CUDA_PATHS=16384 FARMRT_CUDA_SPLIT_STREAMS=2) ;; s3) e=(FARMRT_CUDA_INTEGRATOR=split FARMRT_CUDA_PATHS=4096 FARMRT_CUDA_SPLIT_STREAMS=3) ;; esac
      env "${e[@]}" $N "${a[@]}" --backend cuda -o /tmp/c_gpu.pfm 2> /dev/null || { echo "$name $run none"; continue; }
      cmp -s /tmp/c_cpu.pfm /tmp/c_gpu.pfm && echo "$name $run same" || echo "$name $run DIFFER"
    done
  done
} > $OUT/correctness_all.txt 2>&1
echo "correctness at $((SECONDS - t)) s: $(grep -c ' same' $OUT/correctness_all.txt) same, $(grep -c DIFFER $OUT/correctness_all.txt) differ, $(grep -c none $OUT/correctness_all.txt) none"
grep -E "DIFFER|FAILED|none" $OUT/correctness_all.txt | head
{
for tool in memcheck initcheck; do
  for c in configs/models.yaml $E; do
    FARMRT_CUDA_SPLIT_STREAMS=2 FARMRT_CUDA_INTEGRATOR=split FARMRT_CUDA_PATHS=4096 timeout -k 3 100 compute-sanitizer --tool $tool \
      --error-exitcode 99 $N $c --width 48 --height 32 --spp 4 --backend cuda --quiet -o /tmp/s.pfm > /tmp/san.txt 2>&1
    echo "$tool $(basename $c) rc=$? $(tail -1 /tmp/san.txt)"
    [ $((SECONDS - t)) -gt 400 ] && break 2
  done
done
} > $OUT/sanitizer.txt 2>&1
cat $OUT/sanitizer.txt; echo "sanitizer at $((SECONDS - t)) s"
if [ $((SECONDS - t)) -lt 440 ]; then
  timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum --csv --log-file $OUT/env_times.csv \
    $N $E --spp 32 --backend cuda --quiet -o /tmp/b.pfm > $OUT/env_times.log 2>&1
  echo "ncu times rc=$? at $((SECONDS - t)) s"
fi
