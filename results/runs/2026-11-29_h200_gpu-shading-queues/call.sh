#!/usr/bin/env bash
# The split kernels' shading queues per material type against one shading
# kernel for every type (FARMRT_CUDA_SHADING=single), and the register cap
# of the kernels that shade the book's types (cuda/wavefront.cuh's
# FARMRT_WAVEFRONT_BASIC_SHADE_REGISTERS), in builds of this tree side by
# side (BUILDS: name=cap, default "c96=96 b80=80 b64=64"), then cornell.yaml and models.yaml at 1024 spp,
# lights.yaml at 256, the 1M-triangle scene of scripts/generate/env_model.sh
# at 256 and interior.yaml adaptive (0.01), exact math, interleaved, three
# times: render phase, whole command, medians; every image against the first
# variant's (cmp). VARIANTS: build:single|typed pairs.
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p $out
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
deps=(-DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu)
s=$SECONDS
builds=${BUILDS:-c96=96 b80=80 b64=64}
variants=${VARIANTS:-c96:single c96:typed b80:typed b64:typed}
scenes=${SCENES:-cornell:1024 models:1024 lights:256 env:256 interior:1024}
( python3 scripts/generate/dense_ply.py /tmp/torus_1m.ply 1000000 > /tmp/ply.log 2>&1 ) &  # for env_model.sh below
for b in $builds; do
  name=${b%%=*}; cap=${b#*=}
  ( cmake -S $root -B /tmp/b_$name -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_BUILD_TESTS=OFF -DFARMRT_WITH_OPENIMAGEIO=OFF \
      -DFARMRT_WITH_ASSIMP=OFF -DFARMRT_CUDA_RESOURCE_USAGE=ON "-DCMAKE_CUDA_FLAGS=-DFARMRT_WAVEFRONT_BASIC_SHADE_REGISTERS=$cap" \
      "${deps[@]}" > /tmp/cfg_$name.log 2>&1 && ninja -C /tmp/b_$name -j 6 farmrt > /tmp/build_$name.log 2>&1
    echo "$name build rc=$? at $((SECONDS-s)) s" ) &
done
wait
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; git -C $root log -1 --format=%h 2>/dev/null; } > $out/machine.txt
for b in $builds; do
  name=${b%%=*}; echo "== $name"
  grep -A2 'Function properties for .*wavefront_shade' /tmp/build_$name.log | grep -E 'Function|registers|spill' | paste - - - |
    sed -E 's/ptxas info *: *//g; s/Function properties for //' | sort -u
done > $out/registers.txt 2>&1
scripts/generate/env_model.sh /tmp > /tmp/scene.log 2>&1
field() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@" 2>/dev/null || echo nan; }
for rep in 1 2 3; do for c in $scenes; do for v in $variants; do
  IFS=: read -r scene spp <<< "$c"; IFS=: read -r build shading <<< "$v"; tag=${build}_$shading
  config=configs/$scene.yaml; extra=()
  [ $scene = env ] && config=/tmp/env_model.yaml
  [ $scene = interior ] && extra=(--noise-threshold 0.01 --min-spp 16 --width 480 --height 270)
  mode=per_material; [ $shading = single ] && mode=single
  t0=$(date +%s.%N)
  FARMRT_CUDA_SHADING=$mode /tmp/b_$build/farmrt $config --spp $spp "${extra[@]}" --backend cuda --quiet \
    -o /tmp/${tag}_$scene.pfm --stats /tmp/${tag}_$scene.json > /tmp/${tag}_$scene.log 2>&1
  rc=$?; t1=$(date +%s.%N)
  echo "$tag $scene $spp $rc $(field /tmp/${tag}_$scene.json "d['render_seconds']") $(awk "BEGIN {print $t1 - $t0}") $(field /tmp/${tag}_$scene.json "d['seconds']['backend_setup']")"
done; done; done > $out/scenes.txt
first=$(set -- $variants; echo ${1/:/_})
for c in $scenes; do sc=${c%%:*}; for v in $variants; do tag=${v/:/_}; [ $tag = $first ] && continue
  cmp -s /tmp/${first}_$sc.pfm /tmp/${tag}_$sc.pfm && echo "$sc $tag same bytes as $first" || echo "$sc $tag DIFFER from $first"; done; done >> $out/scenes.txt
for c in $scenes; do sc=${c%%:*}; echo "$sc: $(field /tmp/${first}_$sc.json "d['backend']")"; done >> $out/scenes.txt
python3 - $out/scenes.txt <<'PY' | tee $out/medians.txt
import collections, statistics, sys
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) == 7 and p[3] == "0": r[(p[1], p[0])].append(tuple(float(x) for x in p[4:7]))
for (scene, v), xs in sorted(r.items()):
    print(scene, v, *("%s %.4f" % (k, statistics.median(x[i] for x in xs)) for i, k in enumerate(("render", "wall", "setup"))), "n", len(xs))
PY
cat $out/registers.txt; grep -v "^[a-z0-9_]* [a-z]* [0-9]* 0 " $out/scenes.txt | head -40
echo "done at $((SECONDS-s)) s"
