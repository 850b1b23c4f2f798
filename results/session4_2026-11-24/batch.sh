#!/usr/bin/env bash
# Session 4's device batch (one call): CUDA build and the GPU tests, the SIMD
# and determinism tests on this CPU (AVX-512 included: the dev VM has none),
# then the SIMD frame benchmark with medians of 3.
#   OUT=... results/session4_2026-11-24/batch.sh
cd "$(dirname "$0")/../.."
FARMRT_GPU_STEPS=gpu LOG_DIR=$OUT/gpu_logs scripts/gpu_build_and_test.sh build-gpu 2>&1 | tail -12
echo "== build + GPU tests done $SECONDS s"
ctest --test-dir build-gpu -j 16 -R 'Simd|simd|SceneSimd|CpuWork|Determinism|CpuGpu' > $OUT/ctest_simd.log 2>&1
grep -E "tests passed|tests failed|Failed|Skipped" $OUT/ctest_simd.log | head -20
echo "== SIMD tests done $SECONDS s"
REPEATS=3 BUDGET=330 scripts/benchmark_simd.sh build-gpu $OUT/simd > $OUT/simd.log 2>&1
head -70 $OUT/simd/simd_frames.md
echo "== SIMD benchmark done $SECONDS s"
