#!/usr/bin/env bash
# Session 8's second device batch (the H100 host's CPU), at the final tree
# (SAH-optimal collapse and hit_within_bounds): build without CUDA and
# OpenImageIO against the carried headers (.deps/root), the SIMD tests, then
# interleaved runs of one binary (ab_env.sh): scalar, AVX2, AVX2 with the
# largest-area collapse, AVX-512; 300x169, 16 threads at 512 spp, then 1
# thread at 16 spp.
#   OUT=... results/session8_2026-11-25/batch2.sh
cd "$(dirname "$0")/../.."
root=$PWD
here=results/session8_2026-11-25
cmake -S . -B build-cpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WITH_CUDA=OFF \
    -DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu > $OUT/build.log 2>&1 &&
    ninja -C build-cpu -j 16 farmrt farmrt_simd_tests >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "== built in $SECONDS s"
build-cpu/tests/farmrt_simd_tests > $OUT/simd_tests.log 2>&1; echo "simd tests rc $?"
grep -E "PASSED|FAILED|SKIPPED" $OUT/simd_tests.log | head
(lscpu; date -u) > $OUT/machine.txt
mkdir -p $OUT/tmp
variants=("off off" "avx2 avx2" "la2 avx2 FARMRT_SIMD_COLLAPSE=largest_area" "avx512 avx512")
THREADS=16 SPP=512 TMPDIR=$OUT/tmp $here/ab_env.sh build-cpu/farmrt ${REPEATS16:-4} "${variants[@]}" > $OUT/ab16.txt 2> $OUT/ab16.err
echo "== 16 threads done $SECONDS s"; python3 results/session7_2026-11-25/ab_summary.py $OUT/ab16.txt off; cat $OUT/ab16.err
THREADS=1 SPP=16 TMPDIR=$OUT/tmp $here/ab_env.sh build-cpu/farmrt ${REPEATS1:-12} "${variants[@]}" > $OUT/ab1.txt 2> $OUT/ab1.err
echo "== 1 thread done $SECONDS s"; python3 results/session7_2026-11-25/ab_summary.py $OUT/ab1.txt off; cat $OUT/ab1.err
rm -rf $OUT/tmp
