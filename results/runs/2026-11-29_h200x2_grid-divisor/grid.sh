#!/usr/bin/env bash
# Does a launch's tail cost a GPU its time, and does a queued band take the
# blocks of one ending if each launch takes a share of the device
# (FARMRT_CUDA_GRID_DIVISOR) with more bands in flight (FARMRT_CUDA_BANDS)?
# One build of this tree; spheres.yaml, exact math, on one GPU and on two in
# one process, every variant interleaved, REPEATS times; render phase
# (--stats), whole command; every image of a size against the first (cmp).
# Then models.yaml and cornell.yaml (the split kernels) on one and two GPUs.
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
run() {  # run TAG SIZE GPUS SCENE SPP ENV...
  local tag=$1 size=$2 gpus=$3 scene=$4 spp=$5; shift 5
  local name=${scene}_${size}_g${gpus//,/}_$tag dims=()
  [ $size = default ] || dims=(--width ${size%x*} --height ${size#*x})
  local t0=$(date +%s.%N)
  env $(tr , ' ' <<< "$*") /tmp/b/farmrt configs/$scene.yaml "${dims[@]}" --spp $spp --backend cuda \
    --gpus $gpus --quiet -o /tmp/$name.pfm --stats /tmp/$name.json > /tmp/$name.log 2>&1
  local rc=$? t1=$(date +%s.%N)
  echo "$name $rc $(field /tmp/$name.json "d['render_seconds']") $(awk "BEGIN {print $t1 - $t0}") $(field /tmp/$name.json "sum(x.get('launches', 0) for x in d.get('devices', [])) or d['per_rank'][0].get('bands')")"
}
variants=${VARIANTS:-"base:X=1 b1:FARMRT_CUDA_BANDS=1 b3:FARMRT_CUDA_BANDS=3 b2d2:FARMRT_CUDA_GRID_DIVISOR=2 b3d2:FARMRT_CUDA_BANDS=3,FARMRT_CUDA_GRID_DIVISOR=2 b4d2:FARMRT_CUDA_BANDS=4,FARMRT_CUDA_GRID_DIVISOR=2 b4d3:FARMRT_CUDA_BANDS=4,FARMRT_CUDA_GRID_DIVISOR=3"}
for rep in $(seq ${REPEATS:-3}); do
  for g in 0 0,1; do for v in $variants; do run ${v%%:*} 1200x675 $g spheres 4096 ${v#*:}; done; done
  # many items on one GPU: the tail's cost magnified
  for v in base:X=1 b3d2:FARMRT_CUDA_BANDS=3,FARMRT_CUDA_GRID_DIVISOR=2 b4d2:FARMRT_CUDA_BANDS=4,FARMRT_CUDA_GRID_DIVISOR=2; do
    run ${v%%:*}_many 1200x675 0 spheres 4096 FARMRT_FARM_BAND_DIVISOR=15 ${v#*:}; done
done > $out/spheres.txt
echo "spheres at $((SECONDS-s)) s"
for rep in 1 2; do
  for g in 0 0,1; do for v in base:X=1 b3d2:FARMRT_CUDA_BANDS=3,FARMRT_CUDA_GRID_DIVISOR=2 b4d2:FARMRT_CUDA_BANDS=4,FARMRT_CUDA_GRID_DIVISOR=2; do
    run ${v%%:*} 3840x2160 $g spheres 1024 ${v#*:}; done; done
done > $out/spheres_4k.txt
echo "4k at $((SECONDS-s)) s"
for rep in 1 2 3; do for sc in models cornell; do for g in 0 0,1; do run base default $g $sc 1024 X=1; done; done; done > $out/split.txt
echo "split at $((SECONDS-s)) s"
for txt in spheres spheres_4k split; do
  awk '{print $1}' $out/$txt.txt | sort -u | while read name; do
    ref=/tmp/$(echo $name | sed -E 's/_g01?_.*$//')_g0_base.pfm
    cmp -s $ref /tmp/$name.pfm && echo "$name same" || echo "$name DIFFERS from $ref"
  done
done > $out/identical.txt
python3 - $out <<'PY' | tee $out/medians.txt
import collections, statistics, sys, os
for txt in ("spheres", "spheres_4k", "split"):
    r = collections.defaultdict(list)
    for line in open(os.path.join(sys.argv[1], txt + ".txt")):
        p = line.split()
        if len(p) >= 5 and p[1] == "0": r[p[0]].append((float(p[2]), float(p[3]), p[4]))
    for name, xs in sorted(r.items()):
        print(name, "render %.4f" % statistics.median(x[0] for x in xs), "wall %.3f" % statistics.median(x[1] for x in xs),
              "launches", xs[0][2], "n", len(xs))
PY
