#!/usr/bin/env bash
# Build this tree (chains removed) and three more commits of the bisect; the GPU tests;
# the bisect's runs; Nsight Compute per-kernel figures (megakernel on spheres, split kernels on models).
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p $out
export PATH=/usr/local/cuda/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
s=$SECONDS
( mkdir -p /tmp/tb; OUT=/tmp/tb TARGETS="farmrt farmrt_cuda_tests" bash .deps/chain.sh build > $out/build_summary.txt 2>&1; echo "tree built at $((SECONDS-s)) s"; touch /tmp/tree_built ) &
rm -f /tmp/tree_built; WAIT_FOR=/tmp/tree_built COMMITS="157990e f071eaa df54ff8" JOBS=5 OUT=/tmp/bo bash .deps/bisect.sh > $out/bisect_log.txt 2>&1
cp /tmp/bo/bisect.md $out/; cat /tmp/bo/runs_gpu*.txt /tmp/bo/build_failures.txt > $out/bisect_runs.txt
wait
echo "bisect done at $((SECONDS-s)) s"; cat $out/bisect.md
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
timeout -k 3 ${TEST_TIMEOUT:-200} build-gpu/tests/farmrt_cuda_tests > $out/gpu_tests.txt 2>&1; echo "gpu tests rc=$? at $((SECONDS-s)) s"
grep -E "^\[  (FAILED|PASSED) |tests ran" $out/gpu_tests.txt | head
sec=(--section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats --section ComputeWorkloadAnalysis)
CUDA_VISIBLE_DEVICES=0 timeout -k 3 120 ncu --clock-control none "${sec[@]}" -k regex:'path_kernel|sum_sample' --launch-count 3 \
  build-gpu/farmrt configs/spheres.yaml --width 1200 --height 675 --spp 64 --backend cuda --quiet -o /tmp/n1.pfm > $out/ncu_spheres.txt 2>&1 &
CUDA_VISIBLE_DEVICES=1 timeout -k 3 150 ncu --clock-control none "${sec[@]}" -k regex:'wavefront' --launch-count 24 \
  build-gpu/farmrt configs/models.yaml --spp 16 --backend cuda --quiet -o /tmp/n2.pfm > $out/ncu_models.txt 2>&1 &
wait; echo "ncu done at $((SECONDS-s)) s"
grep -E "^  [a-z_]+.*\(|Registers Per Thread|Achieved Occupancy|Theoretical Occupancy|Issued Warp Per Scheduler|No Eligible|Duration" $out/ncu_spheres.txt | head -30
