#!/usr/bin/env bash
# Session 5's first device batch: a CPU-only build (xsimd from .deps), the SIMD
# tests on this AVX-512 CPU (the 8-wide AVX-512 kernels included), then the
# node-width comparison.   OUT=... results/session5_2026-11-24/batch1.sh
cd "$(dirname "$0")/../.."
root=$PWD
cmake -S . -B build-cpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WITH_CUDA=OFF \
  -DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
ninja -C build-cpu -j 16 farmrt farmrt_simd_tests > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "== build done $SECONDS s"
build-cpu/tests/farmrt_simd_tests > $OUT/simd_tests.log 2>&1; echo "simd tests rc $?"
grep -E "PASSED|FAILED|SKIPPED" $OUT/simd_tests.log | head
bash tests/check_kernel_objects.sh $(find build-cpu -name 'kernels_*.o') 
echo "== tests done $SECONDS s"
REPEATS=3 scripts/benchmark_simd_width.sh build-cpu $OUT/width
echo "== width benchmark done $SECONDS s"
