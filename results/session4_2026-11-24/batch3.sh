#!/usr/bin/env bash
# Session 4's third device batch: every test at main's head on the GPU host
# (CPU tests with AVX-512, GPU tests), after the checkpoint test's fix.
#   OUT=... results/session4_2026-11-24/batch3.sh
cd "$(dirname "$0")/../.."
FARMRT_GPU_STEPS=cpu LOG_DIR=$OUT/gpu_logs scripts/gpu_build_and_test.sh build-gpu 2>&1 | tail -12
grep -E "tests passed|tests failed|Failed|\(Failed\)" $OUT/gpu_logs/ctest_cpu.log | head -20
echo "== done $SECONDS s"
