#!/usr/bin/env bash
# Where one thread's time goes on the H100 host's Xeon, scalar against AVX2 and
# AVX-512 (spheres.yaml): perf stat counters (cycles, instructions, branch
# misses: free of the host's frequency noise) and perf record by source file,
# on a -g build.   OUT=... results/session6_2026-11-25/xeon_profile.sh
cd "$(dirname "$0")/../.."
root=$PWD
command -v perf > /dev/null || { echo "no perf on this host"; exit 0; }
cmake -S . -B build-prof -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS=-g -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WITH_CUDA=OFF \
  -DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu > $OUT/configure.log 2>&1 || exit 1
ninja -C build-prof -j 16 farmrt > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
args="--width 300 --height 169 --spp 16 --threads 1 --backend cpu --quiet -o /tmp/o.pfm"
for scene in configs/spheres.yaml configs/many_spheres.yaml; do
  for level in off avx2 avx512 off avx2 avx512; do
    echo "== $(basename $scene) $level"
    perf stat -x, -e cycles:u,instructions:u,branch-misses:u build-prof/farmrt $scene $args --simd $level 2>&1 | cut -d, -f1,3
  done
done | tee $OUT/perf_stat.txt
for level in off avx2; do
  perf record -q -o $OUT/perf_$level.data -F 2000 build-prof/farmrt configs/spheres.yaml $args --simd $level > /dev/null 2>&1
  perf report -i $OUT/perf_$level.data --no-children --sort srcfile --stdio 2>/dev/null | grep -v "^#" | grep -v "^$" | head -25 > $OUT/perf_srcfile_$level.txt
  perf report -i $OUT/perf_$level.data --no-children --sort srcline --stdio 2>/dev/null | grep -v "^#" | grep -v "^$" | head -60 > $OUT/perf_srcline_$level.txt
  rm -f $OUT/perf_$level.data
done
head -30 $OUT/perf_srcfile_*.txt
