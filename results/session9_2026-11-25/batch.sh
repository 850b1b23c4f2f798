#!/usr/bin/env bash
# Session 9's device batch (one call, H100 host): the CUDA build and the GPU
# tests (CPU-vs-GPU byte identity with session 8's hit rule, first run on a
# GPU here), the SIMD tests with AVX-512, then interleaved frames of one
# binary (ab_env.sh): scalar, AVX2, AVX-512; 300x169, 16 threads at 512 spp,
# then 1 thread at 16 spp. At most 7 files under $OUT (the device's limit is 8).
#   OUT=... results/session9_2026-11-25/batch.sh
cd "$(dirname "$0")/../.."
mkdir -p $OUT/tmp $OUT/gpu_logs
FARMRT_GPU_STEPS=gpu LOG_DIR=$OUT/gpu_logs scripts/gpu_build_and_test.sh build-gpu 2>&1 | tail -12
tar -C $OUT -czf $OUT/gpu_logs.tar.gz gpu_logs && rm -rf $OUT/gpu_logs
echo "== build + GPU tests done $SECONDS s"
build-gpu/tests/farmrt_simd_tests > $OUT/simd_tests.log 2>&1; echo "simd tests rc $?"
grep -E "PASSED|FAILED|SKIPPED" $OUT/simd_tests.log | head
(lscpu; nvidia-smi -L; date -u) > $OUT/machine.txt
variants=("off off" "avx2 avx2" "avx512 avx512")
ab=results/session8_2026-11-25/ab_env.sh
summary=results/session7_2026-11-25/ab_summary.py
THREADS=16 SPP=512 TMPDIR=$OUT/tmp $ab build-gpu/farmrt ${REPEATS16:-4} "${variants[@]}" > $OUT/ab16.txt 2> $OUT/ab16.err
echo "== 16 threads done $SECONDS s"; python3 $summary $OUT/ab16.txt off; cat $OUT/ab16.err
THREADS=1 SPP=16 TMPDIR=$OUT/tmp $ab build-gpu/farmrt ${REPEATS1:-12} "${variants[@]}" > $OUT/ab1.txt 2> $OUT/ab1.err
echo "== 1 thread done $SECONDS s"; python3 $summary $OUT/ab1.txt off; cat $OUT/ab1.err
rm -rf $OUT/tmp
