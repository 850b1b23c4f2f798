#!/bin/bash
# One call: A (fd7da9a: deep-tree pools) against B (A + leaves gathered in
# the wide traversal) and cd4f8b2; B's GPU tests, every config's bytes,
# memcheck; ncu of models.yaml at small and large pools.
set -u
S=$PWD/.deps/ship
(cd $S && tar xJf bins.tar.xz && tar xJf ab.tar.xz)
export LD_LIBRARY_PATH=$S/lib:/usr/lib/x86_64-linux-gnu:$S/fallback
mkdir -p /work/build-new && ln -sfn $PWD /work/main && ln -sf $S/b/farmrt /work/build-new/farmrt
A=$S/a/farmrt; B=$S/b/farmrt; T=$S/b/farmrt_cuda_tests
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc; $B --version | head -1; } | tee $OUT/machine.txt
t=$SECONDS
FARMRT=$B BASE=$A BEFORE=$S/cd4f8b2/farmrt BEFORE_CONFIGS=$S/cd4f8b2/configs OUT=/tmp/bench PHASE=bench REPEATS=3 \
  CASES="env:256:now env:256:base env:256:before env:256:d1 env:256:p4 env:256:p16 env:256:s4+n16777216 models:1024:now models:1024:base models:1024:before cornell:1024:now cornell:1024:base cornell:1024:before" \
  timeout 260 scripts/bench/cuda_split_bands.sh > /tmp/bench.log 2>&1
cp /tmp/bench/medians.txt /tmp/bench/scenes.txt $OUT/ 2>/dev/null; cat $OUT/medians.txt; echo "bench at $((SECONDS-t)) s"
E=/tmp/bench/scene/env_model.yaml
$B $E --spp 16 --backend cuda --quiet -o /tmp/e.pfm --stats $OUT/env_stats.json; grep -o '"backend"[^,]*,[^"]*"[^"]*' $OUT/env_stats.json | head -2
( timeout -k 5 200 $T > $OUT/cuda_tests.log 2>&1; echo "cuda tests rc=$? at $((SECONDS-t)) s" > $OUT/cuda_tests.rc ) &
tests=$!
{
  for config in configs/*.yaml $E; do
    [ $((SECONDS - t)) -gt 470 ] && { echo "out of time"; break; }
    name=$(basename "$config" .yaml)
    a=("$config" --width 120 --height 68 --spp 8 --quiet)
    $B "${a[@]}" --backend cpu -o /tmp/c_cpu.pfm || { echo "$name cpu FAILED"; continue; }
    for run in auto deep a; do
      bin=$B
      case $run in auto) e=(X=1) ;; deep) e=(FARMRT_CUDA_INTEGRATOR=split FARMRT_CUDA_PATHS=8192 FARMRT_CUDA_SPLIT_STREAMS=4) ;; a) e=(X=1); bin=$A ;; esac
      env "${e[@]}" $bin "${a[@]}" --backend cuda -o /tmp/c_gpu.pfm 2> /dev/null || { echo "$name $run none"; continue; }
      cmp -s /tmp/c_cpu.pfm /tmp/c_gpu.pfm && echo "$name $run same" || echo "$name $run DIFFER"
    done
  done
} > $OUT/correctness_all.txt 2>&1
echo "correctness at $((SECONDS - t)) s: $(grep -c ' same' $OUT/correctness_all.txt) same, $(grep -c DIFFER $OUT/correctness_all.txt) differ, $(grep -c none $OUT/correctness_all.txt) none"
grep -E "DIFFER|FAILED|none|out of" $OUT/correctness_all.txt | head
for c in configs/models.yaml $E; do
  FARMRT_CUDA_INTEGRATOR=split FARMRT_CUDA_PATHS=4096 timeout -k 3 60 compute-sanitizer --tool memcheck \
    --error-exitcode 99 $B $c --width 48 --height 32 --spp 4 --backend cuda --quiet -o /tmp/s.pfm > /tmp/san.txt 2>&1
  echo "memcheck $(basename $c) rc=$? $(tail -1 /tmp/san.txt)"
done | tee $OUT/sanitizer.txt
wait $tests; cat $OUT/cuda_tests.rc
grep -E "^\[  (PASSED|FAILED|SKIPPED)|FAILED|tests ran" $OUT/cuda_tests.log | tail -8
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct"
for paths in 2097152 8388608; do
  [ $((SECONDS - t)) -gt 530 ] && break
  FARMRT_CUDA_PATHS=$paths FARMRT_CUDA_SPLIT_STREAMS=1 timeout 45 ncu --clock-control none --metrics $M \
    --launch-skip 1500 --launch-count 100 --csv --log-file $OUT/prof_models_${paths}.csv \
    $B configs/models.yaml --spp 1024 --backend cuda --quiet -o /tmp/p.pfm > $OUT/prof_models_${paths}.log 2>&1
  echo "ncu models $paths rc=$? at $((SECONDS-t)) s"
done
