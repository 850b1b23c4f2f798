#!/usr/bin/env bash
# What a GPU job costs besides its render phase, on the 2 x H200 host: a
# frame of 16x9 pixels at 1 spp (spheres.yaml), so that set-up and teardown
# are nearly all of it, REPEATS times interleaved: the CPU backend, one GPU,
# two GPUs, and one GPU with every kernel loaded at start
# (CUDA_MODULE_LOADING=EAGER); `farmrt --version` for the process alone.
# Each line: the case, the whole command (s), then --stats' seconds
# (parse, bvh_build, backend_setup, render, write, total).
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p "$out"
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
F=$root/.deps/prebuilt/farmrt
frame=(configs/spheres.yaml --width 16 --height 9 --spp 1 --quiet -o /tmp/t.pfm --stats /tmp/t.json)
for rep in $(seq ${REPEATS:-5}); do
  t0=$(date +%s.%N); $F --version >/dev/null; t1=$(date +%s.%N); echo "version $(awk "BEGIN {print $t1 - $t0}")"
  for c in cpu g0 g01 g0eager; do
    e=(); args=(--backend cuda --gpus 0)
    case $c in cpu) args=(--backend cpu) ;; g01) args=(--backend cuda --gpus 0,1) ;; g0eager) e=(CUDA_MODULE_LOADING=EAGER) ;; esac
    t0=$(date +%s.%N); env "${e[@]}" $F "${frame[@]}" "${args[@]}" >/dev/null 2>&1; rc=$?; t1=$(date +%s.%N)
    echo "$c $rc $(awk "BEGIN {print $t1 - $t0}") $(python3 -c "import json; s = json.load(open('/tmp/t.json'))['seconds']; print(' '.join('%s=%.3f' % (k, v) for k, v in s.items()))")"
  done
done | tee "$out/fixed_costs.txt"
python3 - "$out/fixed_costs.txt" <<'PY' | tee "$out/fixed_costs_medians.txt"
import collections, statistics, sys
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if p[0] == "version": r["version"].append({"whole": float(p[1])}); continue
    if p[1] != "0": continue
    d = {"whole": float(p[2])}
    d.update({k: float(v) for k, v in (x.split("=") for x in p[3:])})
    r[p[0]].append(d)
for case, x in r.items():
    keys = x[0].keys()
    print(case, " ".join("%s %.3f" % (k, statistics.median(v[k] for v in x)) for k in keys),
          "outside %.3f" % statistics.median(v["whole"] - v.get("total", 0) for v in x) if "total" in keys else "")
PY
