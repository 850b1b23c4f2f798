#!/usr/bin/env bash
# Two builds with the measurement lines of ../2026-11-30_h200x2_leaf-refs/timeline.patch
# (inactive unless FARMRT_TIMELINE is set), carried in .deps/prebuilt as farmrt_NAME:
#   timeline        slots' buffers allocated by each slot's first band (before)
#   eager_timeline  every slot's buffers, and the split kernels' pool, made at set-up
# on the 2 x H200 host, interleaved, REPEATS times:
# 1. spheres.yaml (megakernel) 1200x675 at 4096 spp and 3840x2160 at 1024 spp,
#    cornell.yaml and models.yaml (split kernels) at 1024 spp; GPU 0, then GPUs 0,1.
#    Render phase, whole command, set-up; every image of a case the same bytes.
# 2. A timeline of each build on two GPUs (spheres 1200x675, 4096 spp).
# 3. The new build's images against its CPU's on one and two GPUs.
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p "$out"
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
s=$SECONDS
names=${NAMES:-"timeline eager_timeline"}
bin() { echo "$root/.deps/prebuilt/farmrt_$1"; }
field() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@" 2>/dev/null || echo nan; }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; for v in $names; do "$(bin $v)" --version; done; } > "$out/machine.txt"
cases=${CASES:-"spheres:1200:675:4096 spheres:3840:2160:1024 cornell:600:600:1024 models:600:600:1024"}
for rep in $(seq ${REPEATS:-3}); do for c in $cases; do for gpus in 0 0,1; do for v in $names; do
  IFS=: read -r name w h spp <<< "$c"
  tag=${name}_${w}_${spp}_g${gpus/,/}_${v}
  t0=$(date +%s.%N)
  $(bin $v) configs/$name.yaml --width $w --height $h --spp $spp --backend cuda --gpus $gpus --quiet -o /tmp/$tag.pfm --stats /tmp/$tag.json > /tmp/$tag.log 2>&1
  rc=$?; t1=$(date +%s.%N)
  ref=/tmp/${name}_${w}_${spp}_ref.pfm; [ -f $ref ] || cp /tmp/$tag.pfm $ref
  cmp -s /tmp/$tag.pfm $ref && same=same || same=DIFFER
  echo "$v $name ${w}x$h $spp g${gpus/,/} $rc $(field /tmp/$tag.json "d['render_seconds']") $(awk "BEGIN {print $t1 - $t0}") $(field /tmp/$tag.json "d['seconds']['backend_setup']" ) $same"
done; done; done; done > "$out/runs.txt"
echo "runs at $((SECONDS - s)) s; $(grep -c DIFFER "$out/runs.txt") differ"
python3 - "$out/runs.txt" <<'PY' | tee "$out/medians.txt"
import collections, statistics, sys
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if p[5] == "0": r[(p[1], p[2], p[3], p[4], p[0])].append((float(p[6]), float(p[7]), p[8]))
keys = sorted({k[:4] for k in r})
names = sorted({k[4] for k in r}, key=lambda v: (v != "timeline", v))
print("| scene | size | spp | GPUs | build | render (s) | speed-up over its 1 GPU | whole command (s) | set-up (s) | n |")
print("|---|---|---:|---|---|---:|---:|---:|---:|---:|")
for k in keys:
    for v in names:
        x = r.get(k + (v,), [])
        if not x: continue
        one = r.get(k[:3] + ("g0", v), [])
        ren = statistics.median(a[0] for a in x); wall = statistics.median(a[1] for a in x)
        setup = [float(a[2]) for a in x if a[2] != "nan"]
        up = statistics.median(a[0] for a in one) / ren if one else float("nan")
        print("| %s | %s | %s | %s | %s | %.4f | %.3fx | %.3f | %s | %d |" % (k[0], k[1], k[2], k[3], v, ren, up, wall,
              "%.3f" % statistics.median(setup) if setup else "-", len(x)))
PY
for v in $names; do
  FARMRT_TIMELINE=1 $(bin $v) configs/spheres.yaml --width 1200 --height 675 --spp 4096 --backend cuda --gpus 0,1 --quiet \
    -o /tmp/tl.pfm --stats "$out/timeline_$v.json" 2> "$out/timeline_$v.txt"
done
F=$(bin ${names##* }); {
  for config in spheres cornell models lights interior; do
    $F configs/$config.yaml --width 160 --height 90 --spp 16 --quiet --backend cpu -o /tmp/c_cpu.pfm
    for gpus in 0 0,1; do
      $F configs/$config.yaml --width 160 --height 90 --spp 16 --quiet --backend cuda --gpus $gpus -o /tmp/c_gpu.pfm &&
        cmp -s /tmp/c_cpu.pfm /tmp/c_gpu.pfm && echo "$config gpus $gpus same" || echo "$config gpus $gpus DIFFER"
    done
  done
} > "$out/correctness.txt" 2>&1
echo "done at $((SECONDS - s)) s: $(grep -c same "$out/correctness.txt") same, $(grep -c DIFFER "$out/correctness.txt") differ"
