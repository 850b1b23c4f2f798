#!/usr/bin/env bash
# The 4-GPU host: one process on 1, 2, 4 GPUs (and 4 + CPU), and two ranks of two GPUs.
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p $out
export PATH=/usr/local/cuda/bin:$PATH
s=$SECONDS
mkdir -p /tmp/tb; OUT=/tmp/tb TARGETS="farmrt" bash .deps/chain.sh build > $out/build_summary.txt 2>&1; echo "built at $((SECONDS-s)) s"
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
nvidia-smi -L > $out/gpus.txt
CONFIGS="${CONFIGS:-g1 g2 g4 g4cpu nodes2x2}" REPEATS=${REPEATS:-2} timeout -k 5 ${BENCH_TIMEOUT:-300} bash scripts/bench/node_gpus.sh build-gpu /tmp/ng > $out/node_gpus_log.txt 2>&1
echo "bench rc=$? at $((SECONDS-s)) s"
cp /tmp/ng/node_gpus.md $out/ 2>/dev/null; cat $out/node_gpus.md
python3 - > $out/devices.txt <<'PY'
import glob, json, os
for p in sorted(glob.glob('/tmp/ng/runs/*.json')):
    d = json.load(open(p)); devs = d.get('devices', [])
    print(os.path.basename(p), 'render %.3f' % d['render_seconds'], [(x.get('name', ''), x.get('items'), x.get('launches'), round(x.get('busy_seconds', 0), 3)) for x in devs])
PY
