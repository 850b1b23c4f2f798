#!/usr/bin/env bash
# Before (each of BEFORE: .deps/exp/COMMIT.tar.gz, a git archive) and after
# (this tree), built side by side, then spheres.yaml (4096 spp, 1200x675), cornell.yaml and
# models.yaml (1024 spp) and the 1M-triangle scene of scripts/generate/env_model.sh
# (256 spp), exact math, interleaved, three times: render phase, set-up and
# whole command, medians; the images compared with the first BEFORE's (cmp).
#   BEFORE="36160b1 cd4f8b2" before_after.sh
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
      -DFARMRT_WITH_ASSIMP=OFF "${deps[@]}" > /tmp/cfg_$v.log 2>&1 && ninja -C /tmp/b_$v -j 8 farmrt > /tmp/build_$v.log 2>&1
    echo "$v build rc=$? at $((SECONDS-s)) s" ) &
done
wait
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; echo "before $befores, after $(git -C $root log -1 --format=%h 2>/dev/null)"; } > $out/machine.txt
scripts/generate/env_model.sh /tmp > /tmp/scene.log 2>&1
field() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@" 2>/dev/null || echo nan; }
for rep in 1 2 3; do for c in spheres:4096 cornell:1024 models:1024 env:256; do for v in $befores after; do
  IFS=: read -r scene spp <<< "$c"
  config=configs/$scene.yaml; extra=()
  [ $scene = env ] && config=/tmp/env_model.yaml
  [ $scene = spheres ] && extra=(--width 1200 --height 675)
  t0=$(date +%s.%N)
  /tmp/b_$v/farmrt $config --spp $spp "${extra[@]}" --backend cuda --quiet -o /tmp/${v}_$scene.pfm --stats /tmp/${v}_$scene.json > /tmp/${v}_$scene.log 2>&1
  rc=$?; t1=$(date +%s.%N)
  echo "$v $scene $spp $rc $(field /tmp/${v}_$scene.json "d['render_seconds']") $(awk "BEGIN {print $t1 - $t0}") $(field /tmp/${v}_$scene.json "d['seconds']['backend_setup']")"
done; done; done > $out/scenes.txt
for sc in spheres cornell models env; do cmp -s /tmp/${first}_$sc.pfm /tmp/after_$sc.pfm && echo "$sc same bytes as $first" || echo "$sc DIFFER from $first"; done >> $out/scenes.txt
for sc in spheres models env; do echo "$sc after: $(field /tmp/after_$sc.json "d['backend']")"; done >> $out/scenes.txt
python3 - $out/scenes.txt <<'PY' | tee $out/medians.txt
import collections, statistics, sys
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) == 7 and p[3] == "0": r[(p[1], p[0])].append(tuple(float(x) for x in p[4:7]))
for (scene, v), xs in sorted(r.items()):
    print(scene, v, *("%s %.4f" % (k, statistics.median(x[i] for x in xs)) for i, k in enumerate(("render", "wall", "setup"))), "n", len(xs))
PY
tail -7 $out/scenes.txt; grep -c " 0 " $out/scenes.txt
echo "done at $((SECONDS-s)) s"
