#!/usr/bin/env bash
# Lead's final single-GPU batch, session 3.
cd "$(dirname "$0")/../.."
FARMRT_GPU_STEPS=sanitizer LOG_DIR=$OUT/gpu_logs scripts/gpu_build_and_test.sh build-gpu 2>&1 | tail -14
echo "== build+tests done $SECONDS s"
scripts/cuda_benchmark.sh build-gpu $OUT/cuda headline > $OUT/cuda_benchmark.log 2>&1; tail -40 $OUT/cuda/summary.md
echo "== cuda done $SECONDS s"
scripts/benchmark_simd.sh build-gpu $OUT/simd > $OUT/simd.log 2>&1; cat $OUT/simd/simd_frames.md | head -60
echo "== simd done $SECONDS s"
scripts/mpi_final_batch.sh build-gpu $OUT/mpi_final > $OUT/mpi.log 2>&1; tail -45 $OUT/mpi.log
echo "== mpi done $SECONDS s"
