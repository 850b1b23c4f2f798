#!/usr/bin/env bash
# The book's scene's megakernel instruction by instruction, and the GPU
# tests, one call on one H200. Builds made on the dev VM, xz-compressed in
# .deps/ship (farmrt_after, farmrt_cuda_tests_after: this tree).
#  1. the GPU tests (cuda_tests.log);
#  2. Nsight Compute's source counters on the ninth launch of spheres.yaml at
#     1200x675, 4096 spp, exact math: every SASS instruction's executions and
#     stalls (sass.csv), summed by kind of instruction (by_opcode.txt).
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p "$out"
s=$SECONDS
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
bin=/tmp/bin; mkdir -p $bin
for f in "$root"/.deps/ship/*.xz; do xz -dc "$f" > "$bin/$(basename "$f" .xz)"; chmod +x "$bin/$(basename "$f" .xz)"; done
[ -e /work/main ] || { mkdir -p /work && ln -s "$root" /work/main; }
if [ -x $bin/farmrt_cuda_tests_after ]; then
  timeout -k 5 300 $bin/farmrt_cuda_tests_after > "$out/cuda_tests.log" 2>&1
  echo "cuda tests rc=$? at $((SECONDS - s)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED|tests ran" "$out/cuda_tests.log" | tail -8
fi
F=$bin/farmrt_after
timeout -k 3 200 ncu --clock-control none --section SourceCounters --section WarpStateStats --section InstructionStats \
  -k regex:path_kernel --launch-skip 8 --launch-count 1 -o /tmp/src -f $F configs/spheres.yaml --width 1200 --height 675 \
  --spp 4096 --backend cuda --quiet -o /tmp/n.pfm > "$out/ncu.log" 2>&1
echo "ncu rc=$? at $((SECONDS - s)) s"; tail -3 "$out/ncu.log"
ncu -i /tmp/src.ncu-rep --page details > "$out/details.txt" 2>&1
ncu -i /tmp/src.ncu-rep --page source --csv --print-source sass > /tmp/sass.csv 2> "$out/sass.err"
echo "sass rc=$? $(wc -l < /tmp/sass.csv) lines"; head -c 600 /tmp/sass.csv; echo
gzip -c /tmp/sass.csv > "$out/sass.csv.gz"
python3 - /tmp/sass.csv <<'PY' | tee "$out/by_opcode.txt"
import csv, collections, sys
rows = list(csv.reader(open(sys.argv[1])))
head = None
for i, r in enumerate(rows):
    if any("Source" == c or c.startswith("Source") for c in r) and any("Executed" in c for c in r):
        head = i; break
if head is None: print("no header found; first rows:", rows[:3]); sys.exit()
h = rows[head]; print("columns:", h)
src = next(j for j, c in enumerate(h) if c.startswith("Source"))
ex = next(j for j, c in enumerate(h) if c.startswith("Warp") and "Executed" in c) if any(c.startswith("Warp") and "Executed" in c for c in h) else next(j for j, c in enumerate(h) if "Executed" in c)
samp = [j for j, c in enumerate(h) if "Sampl" in c]
def num(x):
    try: return float(x.replace(",", ""))
    except: return 0.0
by_op = collections.Counter(); by_op_s = collections.Counter(); total = 0; total_s = 0
for r in rows[head + 1:]:
    if len(r) <= ex: continue
    op = r[src].strip().split()
    if not op: continue
    o = op[0]
    if o.startswith("@"): o = op[1] if len(op) > 1 else o
    o = o.split(".")[0]
    n = num(r[ex]); by_op[o] += n; total += n
    if samp: v = num(r[samp[0]]); by_op_s[o] += v; total_s += v
print("warp instructions executed: %.0f" % total)
for o, n in by_op.most_common(30):
    print("%-10s %6.2f%% of executed  %6.2f%% of samples" % (o, 100 * n / max(total, 1), 100 * by_op_s[o] / max(total_s, 1)))
PY
