#!/usr/bin/env bash
# Before (each of BEFORE: .deps/exp/COMMIT.tar.gz, a git archive) and after
# (this tree), built side by side, then the split kernels' scenes, exact math
# unless named, interleaved, three times: render phase, whole command and
# set-up, medians; every "after" image against the first BEFORE's (cmp).
# After's variants: FARMRT_CUDA_SHADING=all, scene and sorted (auto, the
# default, runs sorted for models.yaml and the million triangles, scene for
# the others: the backend lines at the end say which). The first BEFORE runs
# every case, the others cornell.yaml, models.yaml and the million triangles.
#   BEFORE=9e5e3f8 before_after.sh       (the first call: BEFORE="9e5e3f8 cd4f8b2", variants auto, single, per_material)
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p $out; befores=${BEFORE:?}; first=${befores%% *}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
deps=(-DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu)
s=$SECONDS
for b in $befores; do mkdir -p /tmp/src_$b && tar -xzf .deps/exp/$b.tar.gz -C /tmp/src_$b; done
( python3 scripts/generate/dense_ply.py /tmp/torus_1m.ply 1000000 > /tmp/ply.log 2>&1 ) &  # for env_model.sh below
for v in $befores after; do
  src=$root; [ $v = after ] || src=/tmp/src_$v
  ( cmake -S $src -B /tmp/b_$v -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_BUILD_TESTS=OFF -DFARMRT_WITH_OPENIMAGEIO=OFF \
      -DFARMRT_WITH_ASSIMP=OFF -DFARMRT_CUDA_RESOURCE_USAGE=ON "${deps[@]}" > /tmp/cfg_$v.log 2>&1 &&
      ninja -C /tmp/b_$v -j 6 farmrt > /tmp/build_$v.log 2>&1
    echo "$v build rc=$? at $((SECONDS-s)) s" ) &
done
wait
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; echo "before $befores, after $(git -C $root log -1 --format=%h 2>/dev/null)"; } > $out/machine.txt
grep -A2 'Function properties for .*wavefront_\(shade\|intersect\)' /tmp/build_after.log | grep -E 'Function|registers|spill' | paste - - - |
  sed -E 's/ptxas info *: *//g; s/Function properties for //' | sort -u > $out/registers.txt
scripts/generate/env_model.sh /tmp > /tmp/scene.log 2>&1
field() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@" 2>/dev/null || echo nan; }
cases="cornell:1024 cornell_fast:1024 models:1024 env:256 lights:256 emissive:512 interior:1024 interior_uniform:128"
for rep in 1 2 3; do for c in $cases; do for v in $befores after:all after:scene after:sorted; do
  IFS=: read -r name spp <<< "$c"; IFS=: read -r build shading <<< "$v"
  scene=${name%%_*}; config=configs/$scene.yaml; extra=()
  [ $scene = env ] && config=/tmp/env_model.yaml
  [ $name = cornell_fast ] && extra=(--gpu-math fast)
  [ $name = interior ] && extra=(--noise-threshold 0.01 --min-spp 16 --width 480 --height 270)
  [ $name = interior_uniform ] && extra=(--noise-threshold 0 --width 480 --height 270)
  [ $build != after ] && case $name in cornell|models|env) ;; *) [ $build = $first ] || continue;; esac
  tag=${v/:/_}; mode=${shading:-auto}
  t0=$(date +%s.%N)
  env $( [ $mode = auto ] || echo FARMRT_CUDA_SHADING=$mode ) /tmp/b_$build/farmrt $config --spp $spp "${extra[@]}" --backend cuda \
    --quiet -o /tmp/${tag}_$name.pfm --stats /tmp/${tag}_$name.json > /tmp/${tag}_$name.log 2>&1
  rc=$?; t1=$(date +%s.%N)
  echo "$tag $name $spp $rc $(field /tmp/${tag}_$name.json "d['render_seconds']") $(awk "BEGIN {print $t1 - $t0}") $(field /tmp/${tag}_$name.json "d['seconds']['backend_setup']")"
done; done; done > $out/scenes.txt
for c in $cases; do name=${c%%:*}; for tag in after_all after_scene after_sorted; do [ -f /tmp/${tag}_$name.pfm ] || continue
  cmp -s /tmp/${first}_$name.pfm /tmp/${tag}_$name.pfm && echo "$name $tag same bytes as $first" || echo "$name $tag DIFFER from $first"; done; done >> $out/scenes.txt
for c in $cases; do name=${c%%:*}; IFS=: read -r x spp <<< "$c"; config=configs/${name%%_*}.yaml; [ $name = env ] && config=/tmp/env_model.yaml
  echo "$name auto: $(/tmp/b_after/farmrt $config --spp 1 --width 32 --height 18 --backend cuda --quiet -o /tmp/auto.pfm --stats /tmp/auto.json > /dev/null 2>&1; field /tmp/auto.json "d['backend']")"; done >> $out/scenes.txt
python3 - $out/scenes.txt <<'PY' | tee $out/medians.txt
import collections, statistics, sys
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) == 7 and p[3] == "0": r[(p[1], p[0])].append(tuple(float(x) for x in p[4:7]))
for (scene, v), xs in sorted(r.items()):
    print(scene, v, *("%s %.4f" % (k, statistics.median(x[i] for x in xs)) for i, k in enumerate(("render", "wall", "setup"))), "n", len(xs))
PY
grep -v "^[a-z0-9_]* [a-z_]* [0-9]* 0 " $out/scenes.txt | head -40
echo "done at $((SECONDS-s)) s"
