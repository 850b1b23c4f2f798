#!/usr/bin/env bash
# Session 4's second device batch: the dealer's GPU band floor in samples.
# CUDA build and GPU tests (the hybrid byte-identity tests among them), the
# farm and band tests, then one GPU rank and a hybrid job (1 GPU + 15 CPU
# threads) at both sizes, as session 3's run2_multi_gpu_1gpu_and_hybrid.md.
#   OUT=... results/session4_2026-11-24/batch2.sh
cd "$(dirname "$0")/../.."
FARMRT_GPU_STEPS=gpu LOG_DIR=$OUT/gpu_logs scripts/gpu_build_and_test.sh build-gpu 2>&1 | tail -10
ctest --test-dir build-gpu -j 16 -R 'Band|Farm|FrameQueue|farm|mpi' -E 'slurm' > $OUT/ctest_farm.log 2>&1
grep -E "tests passed|tests failed|Failed" $OUT/ctest_farm.log | head -20
echo "== tests done $SECONDS s"
SIZES="1200x675:4096 3840x2160:1024" REPEATS=2 CONFIGS="gpu1 hybrid" MATH=exact \
    scripts/benchmark_multi_gpu.sh build-gpu $OUT/multi > $OUT/multi.log 2>&1
sed -n 1,40p $OUT/multi/multi_gpu.md
echo "== multi done $SECONDS s"
