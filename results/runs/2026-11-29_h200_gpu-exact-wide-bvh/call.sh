#!/usr/bin/env bash
# Exact math on the 4-wide BVH against the binary one, in one build of this
# tree (the variants are environment switches): the book's scene (megakernel),
# cornell.yaml and models.yaml (split kernels), the 1M-triangle torus of
# scripts/generate/env_model.sh and interior.yaml adaptive (0.01), interleaved,
# three times; render phase and the backend's set-up (--stats) and whole
# command, medians (the first call's output has no set-up column); every exact
# variant's image against the binary BVH's (cmp).
#   binary:  FARMRT_CUDA_EXACT_WIDE=0 (the CPU's BVH, the CPU's order)
#   wide1:   the default (the GPU's own BVH, leaves of 1, collapsed 4-wide)
#   wide_cpu: FARMRT_CUDA_LEAF_SIZE=0 (the CPU's BVH collapsed 4-wide)
#   wide2:   FARMRT_CUDA_LEAF_SIZE=2
#   fast:    --gpu-math fast (spheres, Cornell, textured only: scenes with triangles keep exact math)
#   rebuild1, fast_rebuild: FARMRT_CUDA_GPU_BVH=rebuild (the GPU's BVH built
#            again, not the scene's with its leaves split)
# The first call: VARIANTS="binary wide1 wide_cpu wide2 fast" (before the leaf
# split existed: wide1 was a rebuild). The second:
#   VARIANTS="binary wide1 rebuild1 fast fast_rebuild" SCENES="... mesh:256 textured:256" call.sh
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p $out
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
deps=(-DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu)
s=$SECONDS
( python3 scripts/generate/dense_ply.py /tmp/torus_1m.ply 1000000 > /tmp/ply.log 2>&1 ) &  # for env_model.sh below
cmake -S $root -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_BUILD_TESTS=OFF -DFARMRT_WITH_OPENIMAGEIO=OFF \
  -DFARMRT_WITH_ASSIMP=OFF -DFARMRT_CUDA_RESOURCE_USAGE=ON "${deps[@]}" > /tmp/cfg.log 2>&1 &&
  ninja -C /tmp/b farmrt > /tmp/build.log 2>&1
echo "build rc=$? at $((SECONDS-s)) s"
wait
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; git -C $root log -1 --format=%h 2>/dev/null; } > $out/machine.txt
grep -B1 -A2 'Function properties for .*\(path_kernel_capped\|wavefront_intersect\)' /tmp/build.log | grep -E 'Function|registers|spill' > $out/registers.txt
scripts/generate/env_model.sh /tmp > /tmp/scene.log 2>&1
declare -A env=([binary]="FARMRT_CUDA_EXACT_WIDE=0" [wide1]="" [wide_cpu]="FARMRT_CUDA_LEAF_SIZE=0" [wide2]="FARMRT_CUDA_LEAF_SIZE=2"
  [fast]="" [rebuild1]="FARMRT_CUDA_GPU_BVH=rebuild" [fast_rebuild]="FARMRT_CUDA_GPU_BVH=rebuild")
variants=${VARIANTS:-binary wide1 wide_cpu wide2 fast}
scenes=${SCENES:-spheres:4096 cornell:1024 models:1024 env:256 interior:1024}
for rep in 1 2 3; do for c in $scenes; do for v in $variants; do
  IFS=: read -r scene spp <<< "$c"
  config=configs/$scene.yaml; extra=()
  [ $scene = env ] && config=/tmp/env_model.yaml
  [ $scene = spheres ] && extra=(--width 1200 --height 675)
  [ $scene = interior ] && extra=(--noise-threshold 0.01 --min-spp 16 --width 480 --height 270)
  if [[ $v = fast* ]]; then case $scene in spheres|cornell|textured) extra+=(--gpu-math fast);; *) continue;; esac; fi
  t0=$(date +%s.%N)
  env ${env[$v]} /tmp/b/farmrt $config --spp $spp "${extra[@]}" --backend cuda --quiet -o /tmp/${v}_$scene.pfm --stats /tmp/${v}_$scene.json > /tmp/${v}_$scene.log 2>&1
  rc=$?; t1=$(date +%s.%N)
  echo "$v $scene $spp $rc $(python3 -c "import json; print(json.load(open('/tmp/${v}_$scene.json'))['render_seconds'])" 2>/dev/null || echo nan) $(awk "BEGIN {print $t1 - $t0}") $(python3 -c "import json; print(json.load(open('/tmp/${v}_$scene.json'))['seconds']['backend_setup'])" 2>/dev/null || echo nan)"
done; done; done > $out/scenes.txt
for sc in $(for c in $scenes; do echo ${c%%:*}; done); do for v in $variants; do
  [ $v = binary ] || [[ $v = fast* ]] && continue
  cmp -s /tmp/binary_$sc.pfm /tmp/${v}_$sc.pfm && echo "$sc $v same bytes as binary" || echo "$sc $v DIFFER"; done; done >> $out/scenes.txt
grep -h backend /tmp/*_spheres.json /tmp/*_env.json 2>/dev/null | sort | uniq -c >> $out/scenes.txt
python3 - $out/scenes.txt <<'PY' | tee $out/medians.txt
import collections, statistics, sys
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) >= 6 and p[3] == "0": r[(p[1], p[0])].append((float(p[4]), float(p[5]), float(p[6]) if len(p) > 6 else float("nan")))
for (scene, v), xs in sorted(r.items()):
    print(scene, v, "render %.4f" % statistics.median(x[0] for x in xs), "wall %.3f" % statistics.median(x[1] for x in xs),
          "setup %.3f" % statistics.median(x[2] for x in xs), "n", len(xs))
PY
cat $out/registers.txt | head -40; grep -v "^[a-z0-9_]* [a-z]* [0-9]* 0 " $out/scenes.txt | head -30
echo "done at $((SECONDS-s)) s"
