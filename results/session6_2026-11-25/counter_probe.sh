#!/usr/bin/env bash
# The packet probe's variants measured in user-mode cycles (perf_event_open
# through .deps/tools/count: gcc -O2 -static results/session6_2026-11-25/count.c; the host has
# no perf): cycles do not move with the host's clock frequency, whose changes
# are most of its +-25% run-to-run noise. Needs the builds of packet_probe.sh.
#   OUT=... [REPEATS=5] results/session6_2026-11-25/counter_probe.sh
cd "$(dirname "$0")/../.."
count=.deps/tools/count
for scene in ${SCENES:-configs/spheres.yaml configs/many_spheres.yaml}; do
  for r in $(seq ${REPEATS:-5}); do
    for v in old:off old:avx2 old:avx512 new:off new:avx2 new:avx512; do
      b=build-cpu; [ ${v%%:*} = old ] && b=build-old
      echo "$(basename $scene) $v $r $($count $b/farmrt $scene --width ${WIDTH:-300} --height ${HEIGHT:-169} --spp ${SPP:-32} --threads 1 --backend cpu --simd ${v#*:} -o /tmp/o.pfm --quiet | awk '{printf "%s=%s ", $1, $2}')"
    done
  done
done | tee $OUT/counter_raw.txt > /dev/null
python3 - $OUT/counter_raw.txt <<'PY' | tee $OUT/counter.md
import sys, collections, statistics
data = collections.defaultdict(lambda: collections.defaultdict(list))
order = []
for line in open(sys.argv[1]):
    scene, variant, repeat, *fields = line.split()
    for f in fields:
        k, v = f.split("="); data[(scene, variant)][k].append(float(v))
    if (scene, variant) not in order: order.append((scene, variant))
print("| scene | variant | cycles (median) | vs scalar (old:off) cycles | instructions | IPC | branch misses | task-clock s |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for scene, variant in order:
    d = data[(scene, variant)]; base = data[(scene, "old:off")]
    if "cycles" not in d: print(scene, variant, "no cycle counter:", dict(d)); continue
    c = statistics.median(d["cycles"]); i = statistics.median(d["instructions"])
    print(f"| {scene} | {variant} | {c:.4g} | {statistics.median(base['cycles'])/c:.2f}x | {i:.4g} | {i/c:.2f} | {statistics.median(d['branch-misses']):.3g} | {statistics.median(d['task-clock-ns'])/1e9:.3f} |")
PY
