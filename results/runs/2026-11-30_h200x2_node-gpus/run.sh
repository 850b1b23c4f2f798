#!/usr/bin/env bash
# The 2-GPU host, one call, with farmrt and its GPU test binary built on the
# dev VM (the device's CUDA 13; scripts/gpu_build_and_test.sh's configuration)
# and carried in .deps/prebuilt (PREBUILT; else built here as build.sh of
# runs/2026-11-29_h200x4_node-gpus builds it):
#  1. the GPU tests (farmrt_cuda_tests) and the GPU stop test;
#  2. scripts/bench/node_gpus.sh: one process on 1 and 2 GPUs, 2 GPUs + the
#     CPU, two ranks of a GPU each, both frame sizes;
#  3. 2 GPUs, and 2 GPUs + CPU, with the launch defaults before three bands
#     in flight with half grids (FARMRT_CUDA_BANDS=2 FARMRT_CUDA_GRID_DIVISOR=1).
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p "$out"
s=$SECONDS
prebuilt=${PREBUILT:-$root/.deps/prebuilt}
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
nvidia-smi -L >"$out/gpus.txt"; mpirun --version | head -1 >>"$out/gpus.txt"
build=$prebuilt
if ldd "$prebuilt/farmrt" | grep -q "not found"; then
  ldd "$prebuilt/farmrt" | grep "not found"
  build=$root/build-gpu BUILD=$build OUT=$out source results/runs/2026-11-29_h200x4_node-gpus/build.sh
  ninja -C "$build" tests/farmrt_cuda_tests >>"$out/build.log" 2>&1
  cp "$build/tests/farmrt_cuda_tests" "$build/" 2>/dev/null
fi
"$build/farmrt" --version | tee "$out/version.txt"
# The test binary reads configs/ under the dev VM's source path.
[ -e /work/main ] || { mkdir -p /work && ln -s "$root" /work/main; }

timeout -k 5 240 "$build/farmrt_cuda_tests" >"$out/cuda_tests.log" 2>&1
echo "cuda tests rc=$? at $((SECONDS - s)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED|tests ran" "$out/cuda_tests.log" | tail -8
timeout -k 5 120 bash tests/farm/stop_within_seconds.sh "$build/farmrt" "$root" "" cuda >"$out/stop_gpu.log" 2>&1
echo "stop test rc=$? at $((SECONDS - s)) s"; tail -3 "$out/stop_gpu.log"

CONFIGS="g1 g2 g2cpu ranks2" REPEATS=3 timeout -k 5 240 \
  bash scripts/bench/node_gpus.sh "$build" /tmp/ng >"$out/node_gpus_log.txt" 2>&1
echo "node_gpus rc=$? at $((SECONDS - s)) s"
cp /tmp/ng/node_gpus.md "$out/" 2>/dev/null; cat "$out/node_gpus.md"
mkdir -p "$out/json"; cp /tmp/ng/runs/*.json /tmp/ng/runs/*.wall "$out/json/" 2>/dev/null

mkdir -p "$out/earlier_defaults"
frame=(configs/spheres.yaml --width 1200 --height 675 --spp 4096 --quiet)
for repeat in 1 2 3; do
  for variant in now earlier; do
    env=(); [ $variant = earlier ] && env=(FARMRT_CUDA_BANDS=2 FARMRT_CUDA_GRID_DIVISOR=1)
    for config in g2 g2cpu; do
      backend=cuda; [ $config = g2cpu ] && backend=auto
      env "${env[@]}" "$build/farmrt" "${frame[@]}" --backend $backend --gpus 0,1 -o /tmp/e.pfm \
        --stats "$out/earlier_defaults/${config}_${variant}_$repeat.json" 2>/dev/null
    done
  done
done
echo "earlier defaults done at $((SECONDS - s)) s"
python3 - "$out" <<'PY' | tee "$out/devices.txt"
import glob, json, os, sys
out = sys.argv[1]
for p in sorted(glob.glob(out + '/json/*.json')) + sorted(glob.glob(out + '/earlier_defaults/*.json')):
    d = json.load(open(p)); devs = d.get('devices', [])
    print(os.path.basename(p), 'render %.3f' % d['render_seconds'], 'total %.3f' % d['wall_seconds'],
          [(x.get('name', '')[:12], x.get('items'), x.get('launches'), round(x.get('busy_seconds', 0), 3),
            round(x.get('device_busy_seconds', 0), 3)) for x in devs])
PY
