#!/usr/bin/env bash
# The end of a two-GPU frame, on the 2 x H200 host, with the builds of
# ../2026-11-30_h200x2_eager-buffers/ (carried in .deps/prebuilt):
# 1. The dealer's and launcher's switches (render/tuning.h) on GPU 0 and on
#    GPUs 0,1, eager_timeline build, spheres.yaml 1200x675, 4096 spp,
#    interleaved, REPEATS times; each run's devices' last ends from --stats.
# 2. The whole command of both builds on one GPU, in the order A B B A,
#    with the process's own total (--stats seconds.total).
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p "$out"
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
s=$SECONDS
bin() { echo "$root/.deps/prebuilt/farmrt_$1"; }
stats() { python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
ends = [x.get('last_end_seconds', 0) for x in d['devices']]
print(d['render_seconds'], d['seconds']['backend_setup'], d['seconds']['total'], 'ends', ' '.join('%.4f' % e for e in ends))" "$1" 2>/dev/null || echo nan; }
settings=${SETTINGS:-"default FARMRT_FARM_MIN_BAND_MS=10 FARMRT_FARM_TAIL=256 FARMRT_FARM_TAIL=128 FARMRT_CUDA_BANDS=2 FARMRT_FARM_BAND_DIVISOR=6"}
for rep in $(seq ${REPEATS:-3}); do for gpus in 0 0,1; do for setting in $settings; do
  e=(); [ $setting = default ] || e=($setting)
  t0=$(date +%s.%N)
  env "${e[@]}" $(bin eager_timeline) configs/spheres.yaml --width 1200 --height 675 --spp 4096 --backend cuda --gpus $gpus --quiet -o /tmp/s.pfm --stats /tmp/s.json > /tmp/s.log 2>&1
  rc=$?; t1=$(date +%s.%N)
  echo "$setting g${gpus/,/} $rc $(awk "BEGIN {print $t1 - $t0}") $(stats /tmp/s.json)"
done; done; done > "$out/settings.txt"
echo "settings at $((SECONDS - s)) s"
python3 - "$out/settings.txt" <<'PY' | tee "$out/settings_medians.txt"
import collections, statistics, sys
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if p[2] == "0": r[(p[0], p[1])].append(p)
base = statistics.median(float(p[4]) for p in r[("default", "g0")])
for (setting, gpus) in sorted(r, key=lambda k: (k[0] != "default", k)):
    x = r[(setting, gpus)]
    render = statistics.median(float(p[4]) for p in x)
    spread = [max(map(float, p[8:])) - min(map(float, p[8:])) for p in x] if gpus == "g01" else []
    print("%-28s %-4s render %.4f  over default 1 GPU %.3fx  whole %.3f  end spread (ms) %s  n %d" % (setting, gpus, render, base / render,
          statistics.median(float(p[3]) for p in x), " ".join("%.0f" % (1e3 * v) for v in spread), len(x)))
PY
for rep in 1 2 3; do for v in timeline eager_timeline eager_timeline timeline; do for scene in spheres models; do
  size=(--width 1200 --height 675 --spp 4096); [ $scene = models ] && size=(--spp 1024)
  t0=$(date +%s.%N)
  $(bin $v) configs/$scene.yaml "${size[@]}" --backend cuda --gpus 0 --quiet -o /tmp/w.pfm --stats /tmp/w.json > /tmp/w.log 2>&1
  rc=$?; t1=$(date +%s.%N)
  echo "$v $scene $rc $(awk "BEGIN {print $t1 - $t0}") $(stats /tmp/w.json)"
done; done; done > "$out/whole.txt"
python3 - "$out/whole.txt" <<'PY' | tee "$out/whole_medians.txt"
import collections, statistics, sys
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if p[2] == "0": r[(p[1], p[0])].append([float(v) for v in p[3:7]])
for k in sorted(r):
    x = r[k]
    m = [statistics.median(v[i] for v in x) for i in range(4)]
    print("%-8s %-15s whole %.3f render %.4f setup %.3f in-process total %.3f outside %.3f n %d" % (k[0], k[1], m[0], m[1], m[2], m[3], m[0] - m[3], len(x)))
PY
echo "done at $((SECONDS - s)) s"
