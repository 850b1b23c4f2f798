#!/usr/bin/env bash
# The split kernels' generate kernel on cornell.yaml (1024 spp) under Nsight
# Compute's full set, one launch in the steady state (the 500th generate),
# the committed tree's farmrt as profile.sh carries it: generate_details.txt,
# and the SASS lines that take the most stall samples (generate_hot.txt).
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p "$out"
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
F=/tmp/farmrt; xz -dc "$root/.deps/ship/farmrt.xz" > $F; chmod +x $F
timeout -k 3 200 ncu --clock-control none --set full -k regex:wavefront_generate --launch-skip 500 --launch-count 1 \
  -o /tmp/gen -f $F configs/cornell.yaml --spp 1024 --backend cuda --quiet -o /tmp/n.pfm > "$out/generate_ncu.log" 2>&1
echo "ncu rc=$?"
ncu -i /tmp/gen.ncu-rep --page details > "$out/generate_details.txt" 2>&1
ncu -i /tmp/gen.ncu-rep --page source --csv --print-source sass > /tmp/gen.csv 2>/dev/null
python3 - /tmp/gen.csv <<'PY' | tee "$out/generate_hot.txt"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[1]; data = rows[2:]
si, ei, sm = h.index("Source"), h.index("Instructions Executed"), h.index("Warp Stall Sampling (All Samples)")
num = lambda x: float(x.replace(",", "")) if x.replace(",", "").replace(".", "").isdigit() else 0.0
total = sum(num(r[sm]) for r in data if len(r) > sm) or 1
print("instructions:", len(data), "stall samples:", total)
for i in sorted(range(len(data)), key=lambda i: -num(data[i][sm]))[:40]:
    r = data[i]; print("%5d %6.2f%%  %s" % (i, 100 * num(r[sm]) / total, r[si][:100]))
PY
grep -E "Duration|Registers Per|Achieved Occupancy|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Warp Cycles Per Issued|Issued Warp" "$out/generate_details.txt" | head -20
