#!/usr/bin/env bash
# The new defaults (three bands in flight, a launch sharing the device takes
# half its blocks) against the old (FARMRT_CUDA_BANDS=2
# FARMRT_CUDA_GRID_DIVISOR=1) in one build of this tree: spheres.yaml at
# 1200x675/4096 spp and 3840x2160/1024 spp, models.yaml and cornell.yaml
# (the split kernels) at 1024 spp, on one GPU and on two in one process,
# interleaved; render phase, whole command, each device's items, launches
# and busy seconds; every image against the first of its scene and size.
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p $out
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
s=$SECONDS
cmake -S $root -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_BUILD_TESTS=OFF -DFARMRT_WITH_OPENIMAGEIO=OFF \
  -DFARMRT_WITH_ASSIMP=OFF -DCMAKE_PREFIX_PATH=$root/.deps/root/usr \
  -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu > /tmp/cfg.log 2>&1 &&
  ninja -C /tmp/b -j 16 farmrt > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "built at $((SECONDS-s)) s"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; git -C $root log -1 --format=%h 2>/dev/null; } > $out/machine.txt
field() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@" 2>/dev/null || echo nan; }
run() {  # run TAG SIZE GPUS SCENE SPP ENV,ENV...
  local tag=$1 size=$2 gpus=$3 scene=$4 spp=$5 vars=$6 rep=$7
  local name=${scene}_${size}_g${gpus//,/}_$tag dims=()
  [ $size = default ] || dims=(--width ${size%x*} --height ${size#*x})
  local t0=$(date +%s.%N)
  env $(tr , ' ' <<< "$vars") /tmp/b/farmrt configs/$scene.yaml "${dims[@]}" --spp $spp --backend cuda \
    --gpus $gpus --quiet -o /tmp/$name.pfm --stats /tmp/$name.json > /tmp/$name.log 2>&1
  local rc=$? t1=$(date +%s.%N)
  echo "$name $rc $(field /tmp/$name.json "d['render_seconds']") $(awk "BEGIN {print $t1 - $t0}") $(field /tmp/$name.json "sum(x.get('launches', 0) for x in d.get('devices', []))")"
  echo "$name $rep $(field /tmp/$name.json "[(x.get('items'), x.get('launches'), round(x.get('busy_seconds', 0), 3)) for x in d.get('devices', [])]")" >> $out/devices.txt
}
old=FARMRT_CUDA_BANDS=2,FARMRT_CUDA_GRID_DIVISOR=1
for rep in 1 2 3; do
  for g in 0 0,1; do for v in old:$old new:X=1; do run ${v%%:*} 1200x675 $g spheres 4096 ${v#*:} $rep; done; done
  for sc in models cornell; do for g in 0 0,1; do for v in b2:FARMRT_CUDA_BANDS=2 new:X=1; do
    run ${v%%:*} default $g $sc 1024 ${v#*:} $rep; done; done; done
done > $out/runs.txt
echo "1200x675 and split at $((SECONDS-s)) s"
for rep in 1 2; do
  for g in 0 0,1; do for v in old:$old new:X=1; do run ${v%%:*} 3840x2160 $g spheres 1024 ${v#*:} $rep; done; done
done >> $out/runs.txt
echo "4k at $((SECONDS-s)) s"
awk '{print $1}' $out/runs.txt | sort -u | while read name; do
  ref=/tmp/$(echo $name | sed -E 's/_g01?_.*$//')_g0_$(case $name in spheres*) echo old;; *) echo b2;; esac).pfm
  cmp -s $ref /tmp/$name.pfm && echo "$name same" || echo "$name DIFFERS from $ref"
done > $out/identical.txt
python3 - $out <<'PY' | tee $out/medians.txt
import collections, statistics, sys, os
r = collections.defaultdict(list)
for line in open(os.path.join(sys.argv[1], "runs.txt")):
    p = line.split()
    if len(p) >= 5 and p[1] == "0": r[p[0]].append((float(p[2]), float(p[3]), p[4]))
for name, xs in sorted(r.items()):
    print(name, "render %.4f" % statistics.median(x[0] for x in xs), "wall %.3f" % statistics.median(x[1] for x in xs),
          "launches", xs[0][2], "n", len(xs))
PY
grep -c DIFFERS $out/identical.txt
