#!/usr/bin/env bash
# Leaf size of the AVX-512 (16-wide) BVH on small and large sphere scenes
# (FARMRT_X_LEAF: an uncommitted experiment switch), against AVX2.
# VARIANTS: level:leaf pairs (leaf 0: the packet width); SCENES; REPEATS.
# The switch was this change in CpuRenderer's constructor (simd/cpu_renderer.cpp),
# in the tree only while it ran:
#     simd::WideBvhOptions experiment;
#     if (const char* leaf = std::getenv("FARMRT_X_LEAF")) experiment.max_leaf_primitives = std::atoi(leaf);
#     accelerator_ = std::make_unique<simd::WideAccelerator>(scene_, simd_, experiment);
cd "$(dirname "$0")/../.."
b=build-cpu
[ -f $b/build.ninja ] || cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_WITH_OPENIMAGEIO=OFF \
  -DFARMRT_WITH_CUDA=OFF -DCMAKE_PREFIX_PATH=$PWD/.deps/root/usr \
  -DCMAKE_LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu > /dev/null || exit 1
ninja -C $b -j 16 farmrt > /dev/null || exit 1
echo "built in $SECONDS s"
for scene in ${SCENES:-configs/spheres.yaml configs/many_spheres.yaml}; do
  for r in $(seq ${REPEATS:-3}); do
    for v in ${VARIANTS:-off:0 avx2:0 avx512:0 avx512:8 avx512:4}; do
      FARMRT_X_LEAF=${v#*:} $b/farmrt $scene --width ${WIDTH:-300} --height ${HEIGHT:-169} --spp ${SPP:-32} --threads 1 --backend cpu --simd ${v%%:*} -o /tmp/o.pfm --stats /tmp/s.json --quiet
      echo "$(basename $scene) $v $r $(python3 -c "import json;print(json.load(open('/tmp/s.json'))['samples_per_second'])")"
    done
  done
done > $OUT/leaf_raw.txt
# Ratios within each repeat (the variants ran back to back), then their median:
# this host's run-to-run noise (+-20%) swamps medians of absolute rates.
python3 - $OUT/leaf_raw.txt <<'PY' | tee $OUT/leaf.md
import sys, collections, statistics
runs = collections.defaultdict(dict); order = []
for line in open(sys.argv[1]):
    scene, variant, repeat, rate = line.split()
    runs[(scene, repeat)][variant] = float(rate)
    if (scene, variant) not in order: order.append((scene, variant))
for scene, variant in order:
    keys = [k for k in runs if k[0] == scene]
    vs_avx2 = [runs[k][variant] / runs[k]["avx2:0"] for k in keys]
    vs_scalar = [runs[k][variant] / runs[k]["off:0"] for k in keys]
    rate = statistics.median(runs[k][variant] for k in keys)
    print(f"{scene:18s} {variant:9s} {rate:.4g}/s  vs scalar {statistics.median(vs_scalar):.2f}x  vs avx2 {statistics.median(vs_avx2):.2f}x  (n={len(keys)}, vs avx2 quartiles {statistics.quantiles(vs_avx2, n=4)[0]:.2f}-{statistics.quantiles(vs_avx2, n=4)[2]:.2f})")
PY
