#!/usr/bin/env bash
# The 4-GPU host, one call: farmrt built as scripts/gpu_build_and_test.sh
# builds it (same build folder, so the GPU suite can follow), then
#  1. scripts/bench/node_gpus.sh: one process on 1, 2, 4 GPUs (and 4 + CPU),
#     two ranks of two GPUs;
#  2. four processes at once, one a GPU, each rendering the whole frame,
#     against one alone: does a GPU slow down beside three others busy, out
#     of this process?
#  3. one process on four GPUs dealt static bands (one item a GPU a round):
#     its GPU-seconds without the dealer's many items.
set -uo pipefail
source "$(dirname "$0")/build.sh"
nvidia-smi -L >"$out/gpus.txt"

CONFIGS="${CONFIGS:-g1 g2 g4 g4cpu nodes2x2}" REPEATS=${REPEATS:-2} timeout -k 5 ${BENCH_TIMEOUT:-300} \
  bash scripts/bench/node_gpus.sh "$build" /tmp/ng >"$out/node_gpus_log.txt" 2>&1
echo "node_gpus rc=$? at $((SECONDS - s)) s"
cp /tmp/ng/node_gpus.md "$out/" 2>/dev/null; cat "$out/node_gpus.md"
mkdir -p "$out/json"; cp /tmp/ng/runs/*.json /tmp/ng/runs/*.wall /tmp/ng/runs/*.end "$out/json/" 2>/dev/null

frame=(configs/spheres.yaml --width 1200 --height 675 --spp 4096 --quiet --backend cuda)
mkdir -p /tmp/conc "$out/concurrent"
for repeat in 1 2; do
  "$build/farmrt" "${frame[@]}" --gpus 0 -o /tmp/conc/alone.pfm --stats "$out/concurrent/alone_$repeat.json"
  for gpu in 0 1 2 3; do
    "$build/farmrt" "${frame[@]}" --gpus $gpu -o /tmp/conc/four_$gpu.pfm --stats "$out/concurrent/four_${repeat}_$gpu.json" &
  done
  wait
  "$build/farmrt" "${frame[@]}" --gpus 0,1,2,3 --schedule static -o /tmp/conc/static.pfm \
    --stats "$out/concurrent/static_$repeat.json"
done
for f in /tmp/conc/four_*.pfm /tmp/conc/static.pfm; do cmp -s /tmp/conc/alone.pfm "$f" || echo "$f differs"; done
echo "concurrent done at $((SECONDS - s)) s"
python3 - "$out" <<'PY' | tee "$out/devices.txt"
import glob, json, os, sys
out = sys.argv[1]
for p in sorted(glob.glob(out + '/json/*.json')) + sorted(glob.glob(out + '/concurrent/*.json')):
    d = json.load(open(p)); devs = d.get('devices', [])
    print(os.path.basename(p), 'render %.3f' % d['render_seconds'], 'total %.3f' % d['wall_seconds'], d.get('seconds', {}),
          [(x.get('items'), x.get('launches'), round(x.get('busy_seconds', 0), 3)) for x in devs])
PY
