#!/usr/bin/env bash
# The committed tree on the 2 x H200 host (after ../2026-11-30_h200x2_final/
# found two GPU tests failing), one call, farmrt and farmrt_cuda_tests built
# on the dev VM and carried in .deps/prebuilt, the assimp test models in .deps/models:
#  1. the GPU tests and the GPU stop test;
#  2. the dealer's end-of-round rule in every round (FARMRT_FARM_ENDGAME=every)
#     against the default (the last round only), spheres.yaml at 1200x675,
#     4096 spp and 3840x2160, 1024 spp, one and two GPUs, REPEATS times interleaved.
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p "$out"
s=$SECONDS
build=$root/.deps/prebuilt
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
"$build/farmrt" --version | tee "$out/version.txt"
[ -e /work/main ] || { mkdir -p /work && ln -s "$root" /work/main; }
[ -e /usr/share/assimp/models ] || { mkdir -p /usr/share/assimp && ln -s "$root/.deps/models" /usr/share/assimp/models; }
timeout -k 5 300 "$build/farmrt_cuda_tests" >"$out/cuda_tests.log" 2>&1
echo "cuda tests rc=$? at $((SECONDS - s)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED|tests ran" "$out/cuda_tests.log" | tail -8
timeout -k 5 120 bash tests/farm/stop_within_seconds.sh "$build/farmrt" "$root" "" cuda >"$out/stop_gpu.log" 2>&1
echo "stop test rc=$? at $((SECONDS - s)) s"; tail -2 "$out/stop_gpu.log"
for rep in $(seq ${REPEATS:-5}); do for size in 1200:675:4096 3840:2160:1024; do for gpus in 0 0,1; do for setting in default FARMRT_FARM_ENDGAME=every; do
  IFS=: read -r w h spp <<< "$size"
  e=(); [ $setting = default ] || e=($setting)
  env "${e[@]}" "$build/farmrt" configs/spheres.yaml --width $w --height $h --spp $spp --backend cuda --gpus $gpus --quiet \
    -o /tmp/d_$w.pfm --stats /tmp/d.json >/dev/null 2>&1
  rc=$?; [ -f /tmp/ref_$w.pfm ] || cp /tmp/d_$w.pfm /tmp/ref_$w.pfm
  cmp -s /tmp/d_$w.pfm /tmp/ref_$w.pfm && same=same || same=DIFFER
  echo "$setting ${w}x$h g${gpus/,/} $rc $same $(python3 -c "import json; d = json.load(open('/tmp/d.json')); print(d['render_seconds'], d['wall_seconds'], sum(x['items'] for x in d['devices']), ' '.join('%.4f' % x['last_end_seconds'] for x in d['devices']))")"
done; done; done; done > "$out/endgame.txt"
python3 - "$out/endgame.txt" <<'PY' | tee "$out/endgame_medians.txt"
import collections, statistics, sys
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if p[3] == "0": r[(p[1], p[2], p[0])].append(p)
for size in sorted({k[0] for k in r}):
    one = statistics.median(float(p[5]) for p in r[(size, "g0", "default")])
    for gpus in ("g0", "g01"):
        for setting in ("default", "FARMRT_FARM_ENDGAME=every"):
            x = r.get((size, gpus, setting), [])
            if not x: continue
            render = statistics.median(float(p[5]) for p in x)
            print("%-10s %-4s %-26s render %.4f (%s) over the default's 1 GPU %.3fx  items %s  same %s" % (size, gpus, setting, render,
                  " ".join("%.4f" % float(p[5]) for p in x), one / render, statistics.median(int(p[7]) for p in x), all(p[4] == "same" for p in x)))
PY
echo "done at $((SECONDS - s)) s"
