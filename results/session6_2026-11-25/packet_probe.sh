#!/usr/bin/env bash
# Camera-ray packets (simd/packet_traversal.h) against the tree before them,
# on one thread: both trees built here (the old one unpacked from
# `git archive 26c6470` into .deps/old), every variant run back to back in
# each repeat, medians of the ratios within repeats (this host's run-to-run
# noise is +-25%).   OUT=... [REPEATS=11] results/session6_2026-11-25/packet_probe.sh
cd "$(dirname "$0")/../.."
root=$PWD
build() {  # source dir, build dir
  cmake -S $1 -B $2 -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WITH_CUDA=OFF \
    -DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu > $OUT/configure_$(basename $2).log 2>&1 || { tail -30 $OUT/configure_$(basename $2).log; exit 1; }
  ninja -C $2 -j 16 ${3:-farmrt} > $OUT/build_$(basename $2).log 2>&1 || { tail -30 $OUT/build_$(basename $2).log; exit 1; }
}
build . build-cpu "farmrt farmrt_simd_tests"
build .deps/old build-old
echo "== built in $SECONDS s"
build-cpu/tests/farmrt_simd_tests > $OUT/simd_tests.log 2>&1; echo "simd tests rc $?"
grep -E "PASSED|FAILED|SKIPPED" $OUT/simd_tests.log | head
lscpu | grep -E "Model name|^CPU\(s\)" > $OUT/machine.txt
for scene in ${SCENES:-configs/spheres.yaml configs/many_spheres.yaml}; do
  for r in $(seq ${REPEATS:-11}); do
    for v in old:off old:avx2 old:avx512 new:off new:avx2 new:avx512; do
      b=build-cpu; [ ${v%%:*} = old ] && b=build-old
      $b/farmrt $scene --width ${WIDTH:-300} --height ${HEIGHT:-169} --spp ${SPP:-16} --threads 1 --backend cpu --simd ${v#*:} -o /tmp/o_${v/:/_}.pfm --stats /tmp/s.json --quiet
      echo "$(basename $scene) $v $r $(python3 -c "import json;print(json.load(open('/tmp/s.json'))['samples_per_second'])")"
    done
    cmp -s /tmp/o_old_off.pfm /tmp/o_new_avx2.pfm && cmp -s /tmp/o_old_off.pfm /tmp/o_new_avx512.pfm || echo "IMAGES DIFFER: $scene" >&2
  done
done > $OUT/packet_raw.txt
python3 - $OUT/packet_raw.txt <<'PY' | tee $OUT/packet.md
import sys, collections, statistics
runs = collections.defaultdict(dict); order = []
for line in open(sys.argv[1]):
    scene, variant, repeat, rate = line.split()
    runs[(scene, repeat)][variant] = float(rate)
    if (scene, variant) not in order: order.append((scene, variant))
for scene, variant in order:
    keys = [k for k in runs if k[0] == scene]
    level = variant.split(":")[1]
    vs_scalar = [runs[k][variant] / runs[k]["old:off"] for k in keys]
    vs_old = [runs[k][variant] / runs[k]["old:" + level] for k in keys]
    q = statistics.quantiles(vs_scalar, n=4)
    rate = statistics.median(runs[k][variant] for k in keys)
    print(f"{scene:18s} {variant:10s} {rate:.4g}/s  vs scalar {statistics.median(vs_scalar):.2f}x (quartiles {q[0]:.2f}-{q[2]:.2f})  vs old same level {statistics.median(vs_old):.2f}x  (n={len(keys)})")
PY
