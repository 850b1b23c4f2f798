#!/usr/bin/env bash
# Session 7's device batch (one call on the H100 host, CPU only): a build
# without CUDA and OpenImageIO against the carried Debian headers (.deps/root),
# the SIMD tests on this CPU (AVX-512 included), then the whole-frame SIMD
# benchmark on 1 and 16 threads with up to 11 repeats (medians).
#   OUT=... results/session7_2026-11-25/batch.sh
cd "$(dirname "$0")/../.."
root=$PWD
cmake -S . -B build-cpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WITH_CUDA=OFF \
    -DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu > $OUT/build.log 2>&1 &&
    ninja -C build-cpu -j 16 farmrt farmrt_simd_tests >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "== built in $SECONDS s"
build-cpu/tests/farmrt_simd_tests > $OUT/simd_tests.log 2>&1; echo "simd tests rc $?"
grep -E "PASSED|FAILED|SKIPPED" $OUT/simd_tests.log | head
echo "== tests done $SECONDS s"
REPEATS=${REPEATS:-11} BUDGET=${BUDGET:-420} scripts/benchmark_simd.sh build-cpu $OUT/simd > $OUT/simd.log 2>&1
tail -60 $OUT/simd.log
echo "== benchmark done $SECONDS s"
