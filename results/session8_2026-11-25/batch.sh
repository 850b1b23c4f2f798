#!/usr/bin/env bash
# Session 8's first device batch (the H100 host's CPU, no GPU use): a build
# without CUDA and OpenImageIO against the carried Debian headers (.deps/root),
# the SIMD tests on this CPU (AVX-512 included), then interleaved A/B runs of
# the wide BVH's collapse (ab_env.sh): SAH-optimal (default) vs largest-area
# (FARMRT_SIMD_COLLAPSE=largest_area) vs the SAH one with packet cost 0.5 and
# leaves up to 16 (XW_PACKET, XW_LEAF: cost_hook.diff, not committed), on 1
# thread (16 spp) and 16 threads (512 spp), 300x169.
#   OUT=... results/session8_2026-11-25/batch.sh
cd "$(dirname "$0")/../.."
root=$PWD
here=results/session8_2026-11-25
cmake -S . -B build-cpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WITH_CUDA=OFF \
    -DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu > $OUT/build.log 2>&1 &&
    ninja -C build-cpu -j 16 farmrt farmrt_simd_tests >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "== built in $SECONDS s"
build-cpu/tests/farmrt_simd_tests > $OUT/simd_tests.log 2>&1; echo "simd tests rc $?"
grep -E "PASSED|FAILED|SKIPPED" $OUT/simd_tests.log | head
lscpu > $OUT/machine.txt; date -u >> $OUT/machine.txt
echo "== tests done $SECONDS s"
variants=("off off" "sah2 avx2" "la2 avx2 FARMRT_SIMD_COLLAPSE=largest_area" "p2 avx2 XW_PACKET=0.5 XW_LEAF=16"
          "sah5 avx512" "la5 avx512 FARMRT_SIMD_COLLAPSE=largest_area" "p5 avx512 XW_PACKET=0.5 XW_LEAF=32")
THREADS=16 SPP=512 TMPDIR=$OUT $here/ab_env.sh build-cpu/farmrt ${REPEATS16:-8} "${variants[@]}" > $OUT/ab16.txt 2> $OUT/ab16.err
echo "== 16 threads done $SECONDS s"; python3 results/session7_2026-11-25/ab_summary.py $OUT/ab16.txt off; cat $OUT/ab16.err
THREADS=1 SPP=16 TMPDIR=$OUT $here/ab_env.sh build-cpu/farmrt ${REPEATS1:-25} "${variants[@]}" > $OUT/ab1.txt 2> $OUT/ab1.err
echo "== 1 thread done $SECONDS s"; python3 results/session7_2026-11-25/ab_summary.py $OUT/ab1.txt off; cat $OUT/ab1.err
rm -f $OUT/*.pfm $OUT/abe_s.json
