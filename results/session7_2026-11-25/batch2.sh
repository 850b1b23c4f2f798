#!/usr/bin/env bash
# Session 7's second device batch: one thread only, many short repeats (16 spp),
# so that the median of the within-repeat ratios (scripts/benchmark_simd.sh's
# "vs scalar within repeats") settles on this noisy host.
#   OUT=... results/session7_2026-11-25/batch2.sh
cd "$(dirname "$0")/../.."
root=$PWD
[ -x build-cpu/farmrt ] || {
    cmake -S . -B build-cpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WITH_CUDA=OFF \
        -DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu > $OUT/build.log 2>&1 &&
        ninja -C build-cpu -j 16 farmrt >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
}
THREADS=1 SPP=16 CEILING=0 CHECK_SCENES="" REPEATS=${REPEATS:-60} BUDGET=${BUDGET:-420} \
    scripts/benchmark_simd.sh build-cpu $OUT/simd > $OUT/simd.log 2>&1
tail -20 $OUT/simd.log
echo "== done $SECONDS s"
