#!/usr/bin/env bash
# The split kernels under register caps (cuda/wavefront.cuh's
# FARMRT_WAVEFRONT_SHADE_REGISTERS, FARMRT_WAVEFRONT_QUERY_REGISTERS): builds
# of this tree side by side, one per variant of VARIANTS (default: the first
# call's four), then cornell.yaml and models.yaml at 1024 spp and
# interior.yaml adaptive (0.01) interleaved, three times. The second call:
#   VARIANTS="base s96 s96q80 s96q72" call.sh
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p $out
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
deps=(-DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu)
s=$SECONDS
declare -A flags=([base]="" [s96]="-DFARMRT_WAVEFRONT_SHADE_REGISTERS=96"
  [s96q80]="-DFARMRT_WAVEFRONT_SHADE_REGISTERS=96 -DFARMRT_WAVEFRONT_QUERY_REGISTERS=80"
  [s96q72]="-DFARMRT_WAVEFRONT_SHADE_REGISTERS=96 -DFARMRT_WAVEFRONT_QUERY_REGISTERS=72"
  [s80q80]="-DFARMRT_WAVEFRONT_SHADE_REGISTERS=80 -DFARMRT_WAVEFRONT_QUERY_REGISTERS=80"
  [s64q64]="-DFARMRT_WAVEFRONT_SHADE_REGISTERS=64 -DFARMRT_WAVEFRONT_QUERY_REGISTERS=64")
variants=${VARIANTS:-base s96 s80q80 s64q64}
for v in $variants; do
  ( cmake -S $root -B /tmp/b_$v -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_BUILD_TESTS=OFF -DFARMRT_WITH_OPENIMAGEIO=OFF \
      -DFARMRT_WITH_ASSIMP=OFF -DFARMRT_CUDA_RESOURCE_USAGE=ON "-DCMAKE_CUDA_FLAGS=${flags[$v]}" "${deps[@]}" > /tmp/cfg_$v.log 2>&1 &&
      ninja -C /tmp/b_$v -j 4 farmrt > /tmp/build_$v.log 2>&1
    echo "$v build rc=$? at $((SECONDS-s)) s" ) &
done
wait
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } > $out/machine.txt
for v in $variants; do
  echo "== $v"; grep -A2 'Function properties for .*wavefront_\(shade\|intersect\|shadow\)' /tmp/build_$v.log | grep -E 'registers|spill' | sort | uniq -c | head -8
done > $out/registers.txt 2>&1
for rep in 1 2 3; do for c in cornell:1024 models:1024 interior:1024; do for v in $variants; do
  IFS=: read -r scene spp <<< "$c"
  extra=(); [ $scene = interior ] && extra=(--noise-threshold 0.01 --min-spp 16 --width 480 --height 270)
  t0=$(date +%s.%N)
  /tmp/b_$v/farmrt configs/$scene.yaml --spp $spp "${extra[@]}" --backend cuda --quiet -o /tmp/${v}_$scene.pfm --stats /tmp/${v}_$scene.json > /tmp/${v}_$scene.log 2>&1
  rc=$?; t1=$(date +%s.%N)
  echo "$v $scene $spp $rc $(python3 -c "import json; print(json.load(open('/tmp/${v}_$scene.json'))['render_seconds'])" 2>/dev/null || echo nan) $(awk "BEGIN {print $t1 - $t0}")"
done; done; done > $out/scenes.txt
for sc in cornell models interior; do for v in ${variants#base }; do
  cmp -s /tmp/base_$sc.pfm /tmp/${v}_$sc.pfm && echo "$sc $v same bytes" || echo "$sc $v DIFFER"; done; done >> $out/scenes.txt
python3 - $out/scenes.txt <<'PY' | tee $out/medians.txt
import collections, statistics, sys
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) == 6: r[(p[1], p[0])].append((float(p[4]), float(p[5])))
for (scene, v), xs in sorted(r.items()):
    print(scene, v, "render %.4f" % statistics.median(x[0] for x in xs), "wall %.3f" % statistics.median(x[1] for x in xs))
PY
cat $out/registers.txt; tail -9 $out/scenes.txt
echo "done at $((SECONDS-s)) s"
